#pragma once
// Sandboxes: the row of sandbox.list and the `sandbox` topic, and the parameters and
// results of the sandbox.* and file.* methods.
#include "protocol/payload.h"

namespace airlock::proto {

struct DiskUsage {
    qint64 usedBytes = 0;
    qint64 totalBytes = 0;
    bool full = false;
    static void fields(auto &s, auto &f)
    {
        f("disk_used_bytes", s.usedBytes)("disk_total_bytes", s.totalBytes)("disk_full", s.full);
    }
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
    // Why QEMU paused it on its own (the host disk holding its overlay is full), and what to do.
    std::optional<QString> pausedReason;

    static SandboxRow removed(const QString &name);
    // All but disk, which SandboxRow::toJson and fromJson add when there.
    static void fields(auto &s, auto &f)
    {
        f("name", s.name)("state", s.state)("image", s.image)("ip", s.ip)("pending", s.pending);
        f("cpus", s.cpus)("memory_mib", s.memoryMib)("disk_gib", s.diskGib)("uptime_s", s.uptimeS);
        f("paused_reason", s.pausedReason);
    }
    AIRLOCK_PAYLOAD(SandboxRow)
};

struct SecretLoan {
    QString secret;
    std::optional<QString> env; // default: the secret's name upper-cased
    static void fields(auto &s, auto &f) { f("secret", s.secret)("env", s.env); }
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
    bool ephemeral = false; // removed, disk and all, once it stops
    std::optional<QString> policy;       // a policy file's text (policy.import's `policy`): its rules come with the sandbox
    std::optional<QString> policySource; // its name, kept in the rules' origin
    bool signIn = false; // "sign_in": the console runs the template's sign-in command; its API key is not lent
    std::optional<qint64> checkpointEverySeconds; // "checkpoint_every_s": automatic checkpoints while it runs
    std::optional<int> checkpointKeep;            // "checkpoint_keep": how many automatic ones are kept (default 12)
    static void fields(auto &s, auto &f)
    {
        f("checkpoint_every_s", s.checkpointEverySeconds)("checkpoint_keep", s.checkpointKeep);
        f("name", s.name)("image", s.image)("template", s.templateName)("cpus", s.cpus)("memory_mib", s.memoryMib);
        f("sign_in", s.signIn, Omitted);
        f("disk_gib", s.diskGib)("env", s.env, Omitted)("secrets", s.secrets, Omitted)("presets", s.presets, Omitted);
        f("start", s.start, Omitted)("boot_timeout_s", s.bootTimeoutS);
        f("ephemeral", s.ephemeral, Omitted)("policy", s.policy)("policy_source", s.policySource);
    }
    AIRLOCK_PAYLOAD(SandboxCreateParams)
};

// The throw-away sandbox a sign-in runs in (airlockctl secret login, the app's Sign in…):
// "signin-TEMPLATE-xxxx", four random hex digits.
QString signInSandboxName(const QString &templateName);

// sandbox.create and sandbox.fork: {name, state, image, ip, template?}.
struct SandboxCreated {
    QString name;
    SandboxState state = SandboxState::Stopped;
    QString image;
    QString ip;
    std::optional<QString> templateName;
    static void fields(auto &s, auto &f)
    {
        f("name", s.name)("state", s.state)("image", s.image)("ip", s.ip)("template", s.templateName);
    }
    AIRLOCK_PAYLOAD(SandboxCreated)
};

// {name}: sandbox.kill/pause/resume/remove, image.remove, console.attach/detach, ...
struct NameParams {
    QString name;
    static void fields(auto &s, auto &f) { f("name", s.name); }
    AIRLOCK_PAYLOAD(NameParams)
};

struct SandboxStartParams {
    QString name;
    std::optional<bool> wait;
    std::optional<int> bootTimeoutS;
    static void fields(auto &s, auto &f) { f("name", s.name)("wait", s.wait)("boot_timeout_s", s.bootTimeoutS); }
    AIRLOCK_PAYLOAD(SandboxStartParams)
};

struct SandboxStopParams {
    QString name;
    std::optional<int> timeoutS;
    static void fields(auto &s, auto &f) { f("name", s.name)("timeout_s", s.timeoutS); }
    AIRLOCK_PAYLOAD(SandboxStopParams)
};

struct ExecParams {
    QString name;
    QStringList argv;
    QByteArray stdinData;        // "stdin_b64"; empty is left out
    std::optional<int> timeoutS; // 0 = no limit
    static void fields(auto &s, auto &f)
    {
        f("name", s.name)("argv", s.argv)("stdin_b64", s.stdinData, Omitted)("timeout_s", s.timeoutS);
    }
    AIRLOCK_PAYLOAD(ExecParams)
};

struct ExecResult {
    int exitCode = 0;
    QByteArray stdoutData; // "stdout_b64"
    QByteArray stderrData; // "stderr_b64"
    bool timedOut = false;
    static void fields(auto &s, auto &f)
    {
        f("exit_code", s.exitCode)("stdout_b64", s.stdoutData)("stderr_b64", s.stderrData)("timed_out", s.timedOut);
    }
    AIRLOCK_PAYLOAD(ExecResult)
};

struct ForkParams {
    QString sandbox;
    qint64 id = 0; // the snapshot
    QString newName;
    bool start = false;
    static void fields(auto &s, auto &f)
    {
        f("sandbox", s.sandbox)("id", s.id)("new_name", s.newName)("start", s.start, Defaulted);
    }
    AIRLOCK_PAYLOAD(ForkParams)
};

struct FilePushParams {
    QString name;
    QString path;
    QByteArray data; // "data_b64"
    qint64 offset = 0;
    static void fields(auto &s, auto &f)
    {
        f("name", s.name)("path", s.path)("data_b64", s.data)("offset", s.offset, Defaulted);
    }
    AIRLOCK_PAYLOAD(FilePushParams)
};

// file.push and console.write.
struct WrittenResult {
    qint64 written = 0;
    static void fields(auto &s, auto &f) { f("written", s.written); }
    AIRLOCK_PAYLOAD(WrittenResult)
};

struct FilePullParams {
    QString name;
    QString path;
    qint64 offset = 0;
    std::optional<qint64> length;
    static void fields(auto &s, auto &f)
    {
        f("name", s.name)("path", s.path)("offset", s.offset, Defaulted)("length", s.length);
    }
    AIRLOCK_PAYLOAD(FilePullParams)
};

struct FilePullResult {
    QByteArray data; // "data_b64"
    bool eof = false;
    static void fields(auto &s, auto &f) { f("data_b64", s.data)("eof", s.eof); }
    AIRLOCK_PAYLOAD(FilePullResult)
};

} // namespace airlock::proto
