#pragma once
// Every method and event topic of airlockd's protocol, by name: a typo in a caller fails to
// build. The lists (allMethods, allTopics) are what the protocol test checks against the
// tables of app/PROTOCOL.md, so a method added here and not documented there fails a test.
#include <QLatin1String>
#include <QList>
#include <QString>

namespace airlock::proto {

#define AIRLOCK_PROTOCOL_METHODS(X) \
    X(Status, "status") \
    X(Subscribe, "subscribe") \
    X(Unsubscribe, "unsubscribe") \
    X(ImageList, "image.list") \
    X(ImageBuild, "image.build") \
    X(ImageImport, "image.import") \
    X(ImageCancel, "image.cancel") \
    X(ImageRemove, "image.remove") \
    X(TemplateList, "template.list") \
    X(PresetList, "preset.list") \
    X(SandboxCreate, "sandbox.create") \
    X(SandboxList, "sandbox.list") \
    X(SandboxStart, "sandbox.start") \
    X(SandboxStop, "sandbox.stop") \
    X(SandboxKill, "sandbox.kill") \
    X(SandboxPause, "sandbox.pause") \
    X(SandboxResume, "sandbox.resume") \
    X(SandboxRemove, "sandbox.remove") \
    X(SandboxExec, "sandbox.exec") \
    X(SandboxFork, "sandbox.fork") \
    X(FilePush, "file.push") \
    X(FilePull, "file.pull") \
    X(SnapshotCreate, "snapshot.create") \
    X(SnapshotList, "snapshot.list") \
    X(SnapshotRestore, "snapshot.restore") \
    X(SnapshotRemove, "snapshot.remove") \
    X(SnapshotSchedule, "snapshot.schedule") \
    X(ConsoleAttach, "console.attach") \
    X(ConsoleWrite, "console.write") \
    X(ConsoleResize, "console.resize") \
    X(ConsoleDetach, "console.detach") \
    X(RuleList, "rule.list") \
    X(RuleAdd, "rule.add") \
    X(RuleRemove, "rule.remove") \
    X(PolicyExport, "policy.export") \
    X(PolicyLearn, "policy.learn") \
    X(PolicyImport, "policy.import") \
    X(EgressList, "egress.list") \
    X(EgressDecide, "egress.decide") \
    X(EgressConfigure, "egress.configure") \
    X(VaultInit, "vault.init") \
    X(VaultUnlock, "vault.unlock") \
    X(VaultLock, "vault.lock") \
    X(VaultStatus, "vault.status") \
    X(VaultChangePassphrase, "vault.change_passphrase") \
    X(VaultKeyring, "vault.keyring") \
    X(SecretSet, "secret.set") \
    X(SecretList, "secret.list") \
    X(SecretRemove, "secret.remove") \
    X(PortExpose, "port.expose") \
    X(PortUnexpose, "port.unexpose") \
    X(PortList, "port.list")

// Topics of the "event" notification. A console's topic is kConsoleTopicPrefix + its name.
#define AIRLOCK_PROTOCOL_TOPICS(X) \
    X(Sandbox, "sandbox") \
    X(Image, "image") \
    X(Snapshot, "snapshot") \
    X(Egress, "egress") \
    X(Pending, "pending") \
    X(Alert, "alert") \
    X(Port, "port")

namespace method {
#define AIRLOCK_PROTOCOL_NAME(id, text) inline constexpr QLatin1String id{text};
AIRLOCK_PROTOCOL_METHODS(AIRLOCK_PROTOCOL_NAME)
} // namespace method

namespace topic {
AIRLOCK_PROTOCOL_TOPICS(AIRLOCK_PROTOCOL_NAME)
#undef AIRLOCK_PROTOCOL_NAME
inline constexpr QLatin1String ConsolePrefix{"console:"};
inline QString console(const QString &sandbox) { return QString(ConsolePrefix) + sandbox; }
} // namespace topic

// The method of every event notification: {"method":"event","params":{topic, data}}.
inline constexpr QLatin1String kEventMethod{"event"};

QList<QLatin1String> allMethods();
QList<QLatin1String> allTopics(); // without the console topics

} // namespace airlock::proto
