#pragma once
// Sandboxes: the row of sandbox.list and the `sandbox` topic, and the parameters and
// results of the sandbox.* and file.* methods.
#include "protocol/payload.h"

namespace airlock::proto {

struct DiskUsage {
    qint64 usedBytes = 0;
    qint64 totalBytes = 0;
    bool full = false;
    bool operator==(const DiskUsage &) const = default;
};

// A sandbox.list row; the `sandbox` event and lifecycle replies send the same without the
// disk fields, and {name, state: "removed"} once it is gone (then only name and state).
struct SandboxRow {
    QString name;
    SandboxState state = SandboxState::Unknown;
    QString image;
    QString ip;
    qint64 pending = 0;   // held requests: only sandbox.list fills it
    int cpus = 0;
    int memoryMib = 0;
    int diskGib = 0;
    qint64 uptimeS = 0;
    std::optional<DiskUsage> disk; // disk_used_bytes, disk_total_bytes, disk_full (sandbox.list)

    static SandboxRow removed(const QString &name);
    AIRLOCK_PAYLOAD(SandboxRow)
};

struct SecretLoan {
    QString secret;
    std::optional<QString> env; // default: the secret's name upper-cased
    AIRLOCK_PAYLOAD(SecretLoan)
};

// sandbox.create; unset optionals are left out (the daemon's defaults apply).
struct SandboxCreateParams {
    QString name;
    std::optional<QString> image;
    std::optional<QString> templateName; // "template"
    std::optional<int> cpus;
    std::optional<int> memoryMib;
    std::optional<int> diskGib;
    QMap<QString, QString> env;
    QList<SecretLoan> secrets;
    QStringList presets;
    bool start = false;
    std::optional<int> bootTimeoutS;
    AIRLOCK_PAYLOAD(SandboxCreateParams)
};

// sandbox.create and sandbox.fork: {name, state, image, ip, template?}.
struct SandboxCreated {
    QString name;
    SandboxState state = SandboxState::Stopped;
    QString image;
    QString ip;
    std::optional<QString> templateName;
    AIRLOCK_PAYLOAD(SandboxCreated)
};

// {name}: sandbox.kill/pause/resume/remove, image.remove, console.attach/detach, ...
struct NameParams {
    QString name;
    AIRLOCK_PAYLOAD(NameParams)
};

struct SandboxStartParams {
    QString name;
    std::optional<bool> wait;
    std::optional<int> bootTimeoutS;
    AIRLOCK_PAYLOAD(SandboxStartParams)
};

struct SandboxStopParams {
    QString name;
    std::optional<int> timeoutS;
    AIRLOCK_PAYLOAD(SandboxStopParams)
};

struct ExecParams {
    QString name;
    QStringList argv;
    QByteArray stdinData;        // "stdin_b64"; empty is left out
    std::optional<int> timeoutS; // 0 = no limit
    AIRLOCK_PAYLOAD(ExecParams)
};

struct ExecResult {
    int exitCode = 0;
    QByteArray stdoutData; // "stdout_b64"
    QByteArray stderrData; // "stderr_b64"
    bool timedOut = false;
    AIRLOCK_PAYLOAD(ExecResult)
};

struct ForkParams {
    QString sandbox;
    qint64 id = 0; // the snapshot
    QString newName;
    bool start = false;
    AIRLOCK_PAYLOAD(ForkParams)
};

struct FilePushParams {
    QString name;
    QString path;
    QByteArray data; // "data_b64"
    qint64 offset = 0;
    AIRLOCK_PAYLOAD(FilePushParams)
};

// file.push and console.write.
struct WrittenResult {
    qint64 written = 0;
    AIRLOCK_PAYLOAD(WrittenResult)
};

struct FilePullParams {
    QString name;
    QString path;
    qint64 offset = 0;
    std::optional<qint64> length;
    AIRLOCK_PAYLOAD(FilePullParams)
};

struct FilePullResult {
    QByteArray data; // "data_b64"
    bool eof = false;
    AIRLOCK_PAYLOAD(FilePullResult)
};

} // namespace airlock::proto
