// libFuzzer target: every protocol payload's fromJson (JsonReader) on whatever object a local
// client sends as params, and JsonWriter on what it accepted: a payload read is written as an
// object the reader accepts again and that writes the same wire JSON (the walk is a fixpoint).
#include "protocol/protocol.h"

#include <QJsonDocument>
#include <cstdint>
#include <cstdlib>

using namespace airlock;
using namespace airlock::proto;

static void check(bool condition)
{
    if (!condition)
        std::abort();
}

template <typename T>
static void readBack(const QJsonObject &object)
{
    const Result<T> r = T::fromJson(object);
    if (!r) {
        check(r.error().what.startsWith(QLatin1String("invalid ")) && !r.error().why.isEmpty());
        check(r.error().kind == kInvalidPayload);
        return;
    }
    const QJsonObject wire = r->toJson();
    const Result<T> again = T::fromJson(wire);
    check(again.ok());
    check(again->toJson() == wire);
}

template <typename... T>
static void readAll(const QJsonObject &object)
{
    (readBack<T>(object), ...);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size)));
    if (doc.isArray()) { // a list reply: the item that is not the payload is named by its index
        const Result<QList<SandboxRow>> rows = listFromJson<SandboxRow>(doc.array());
        check(rows.ok() || rows.error().why.startsWith(QLatin1String("item ")));
    }
    if (!doc.isObject())
        return 0;
    const QJsonObject o = doc.object();
    readAll<EgressEvent, EgressListParams, EgressDecideParams, EgressConfigureParams, RuleInfo, RuleListParams, RuleAddParams, IdParams>(o);
    readAll<SandboxRow, SecretLoan, SandboxCreateParams, SandboxCreated, NameParams, SandboxStartParams, SandboxStopParams,
            ExecParams, ExecResult, ForkParams, FilePushParams, WrittenResult, FilePullParams, FilePullResult>(o);
    readAll<ImageInfo, ImageBuildParams, ImageCancelResult, TemplateSecret, TemplateInfo, PresetRuleInfo, PresetInfo>(o);
    readAll<SnapshotInfo, SnapshotCreateParams, SnapshotRef, ConsoleAttachResult, ConsoleWriteParams, ConsoleSize, ConsoleOutput>(o);
    readAll<VaultStatus, VaultUnlockParams, VaultChangePassphraseParams, VaultKeyringParams, SecretInfo, SecretSetParams>(o);
    readAll<PortExposeParams, PortRef, ExposedPortInfo, PortsChanged>(o);
    readAll<PolicyScope, PolicyLearnParams, PolicyText, PolicyImportParams, PolicyChange, PolicyImportResult>(o);
    readAll<EventEnvelope, ImageProgress, SnapshotProgress, Alert, TopicsParams, EgressStatus, DaemonStatus>(o);
    return 0;
}
