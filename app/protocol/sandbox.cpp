#include "protocol/sandbox.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

namespace {

QString b64(const QByteArray &bytes) { return QString::fromLatin1(bytes.toBase64()); }

template <typename V>
void insertIf(QJsonObject &o, const char *key, const std::optional<V> &v)
{
    if (v)
        o.insert(QLatin1String(key), *v);
}

} // namespace

SandboxRow SandboxRow::removed(const QString &name)
{
    SandboxRow r;
    r.name = name;
    r.state = SandboxState::Removed;
    return r;
}

QJsonObject SandboxRow::toJson() const
{
    if (state == SandboxState::Removed)
        return {{QStringLiteral("name"), name}, {QStringLiteral("state"), toString(state)}};
    QJsonObject o{{QStringLiteral("name"), name},
                  {QStringLiteral("state"), toString(state)},
                  {QStringLiteral("image"), image},
                  {QStringLiteral("ip"), ip},
                  {QStringLiteral("pending"), pending},
                  {QStringLiteral("cpus"), cpus},
                  {QStringLiteral("memory_mib"), memoryMib},
                  {QStringLiteral("disk_gib"), diskGib},
                  {QStringLiteral("uptime_s"), uptimeS}};
    if (disk) {
        o.insert(QStringLiteral("disk_used_bytes"), disk->usedBytes);
        o.insert(QStringLiteral("disk_total_bytes"), disk->totalBytes);
        o.insert(QStringLiteral("disk_full"), disk->full);
    }
    return o;
}

Result<SandboxRow> SandboxRow::fromJson(const QJsonObject &object)
{
    Fields f(object, "sandbox row");
    SandboxRow r;
    r.name = f.string("name");
    r.state = f.sandboxState("state");
    if (f.failed() || r.state == SandboxState::Removed)
        return f.done(r);
    r.image = f.string("image");
    r.ip = f.string("ip");
    r.pending = f.integer("pending");
    r.cpus = int(f.integer("cpus"));
    r.memoryMib = int(f.integer("memory_mib"));
    r.diskGib = int(f.integer("disk_gib"));
    r.uptimeS = f.integer("uptime_s");
    if (object.contains(QLatin1String("disk_used_bytes")))
        r.disk = DiskUsage{f.integer("disk_used_bytes"), f.integer("disk_total_bytes"), f.boolean("disk_full")};
    return f.done(r);
}

QJsonObject SecretLoan::toJson() const
{
    QJsonObject o{{QStringLiteral("secret"), secret}};
    insertIf(o, "env", env);
    return o;
}

Result<SecretLoan> SecretLoan::fromJson(const QJsonObject &object)
{
    Fields f(object, "secret loan");
    SecretLoan l{f.string("secret"), f.optString("env")};
    return f.done(l);
}

QJsonObject SandboxCreateParams::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name}};
    insertIf(o, "image", image);
    insertIf(o, "template", templateName);
    insertIf(o, "cpus", cpus);
    insertIf(o, "memory_mib", memoryMib);
    insertIf(o, "disk_gib", diskGib);
    if (!env.isEmpty()) {
        QJsonObject e;
        for (auto it = env.begin(); it != env.end(); ++it)
            e.insert(it.key(), it.value());
        o.insert(QStringLiteral("env"), e);
    }
    if (!secrets.isEmpty())
        o.insert(QStringLiteral("secrets"), toJsonArray(secrets));
    if (!presets.isEmpty())
        o.insert(QStringLiteral("presets"), QJsonArray::fromStringList(presets));
    if (start)
        o.insert(QStringLiteral("start"), true);
    insertIf(o, "boot_timeout_s", bootTimeoutS);
    return o;
}

Result<SandboxCreateParams> SandboxCreateParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "sandbox.create params");
    SandboxCreateParams p;
    p.name = f.string("name");
    p.image = f.optString("image");
    p.templateName = f.optString("template");
    auto optInt = [&f](const char *key) { auto v = f.optInteger(key); return v ? std::optional<int>(int(*v)) : std::nullopt; };
    p.cpus = optInt("cpus");
    p.memoryMib = optInt("memory_mib");
    p.diskGib = optInt("disk_gib");
    p.env = f.stringMap("env", false);
    p.secrets = f.list<SecretLoan>("secrets", false);
    p.presets = f.strings("presets", {});
    p.start = f.boolean("start", false);
    p.bootTimeoutS = optInt("boot_timeout_s");
    return f.done(p);
}

QJsonObject SandboxCreated::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name}, {QStringLiteral("state"), toString(state)},
                  {QStringLiteral("image"), image}, {QStringLiteral("ip"), ip}};
    insertIf(o, "template", templateName);
    return o;
}

Result<SandboxCreated> SandboxCreated::fromJson(const QJsonObject &object)
{
    Fields f(object, "sandbox.create result");
    SandboxCreated c{f.string("name"), f.sandboxState("state"), f.string("image"), f.string("ip"), f.optString("template")};
    return f.done(c);
}

QJsonObject NameParams::toJson() const { return {{QStringLiteral("name"), name}}; }

Result<NameParams> NameParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "name");
    NameParams p{f.string("name")};
    return f.done(p);
}

QJsonObject SandboxStartParams::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name}};
    insertIf(o, "wait", wait);
    insertIf(o, "boot_timeout_s", bootTimeoutS);
    return o;
}

Result<SandboxStartParams> SandboxStartParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "sandbox.start params");
    SandboxStartParams p;
    p.name = f.string("name");
    p.wait = f.optBoolean("wait");
    if (auto t = f.optInteger("boot_timeout_s"))
        p.bootTimeoutS = int(*t);
    return f.done(p);
}

QJsonObject SandboxStopParams::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name}};
    insertIf(o, "timeout_s", timeoutS);
    return o;
}

Result<SandboxStopParams> SandboxStopParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "sandbox.stop params");
    SandboxStopParams p;
    p.name = f.string("name");
    if (auto t = f.optInteger("timeout_s"))
        p.timeoutS = int(*t);
    return f.done(p);
}

QJsonObject ExecParams::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name}, {QStringLiteral("argv"), QJsonArray::fromStringList(argv)}};
    if (!stdinData.isEmpty())
        o.insert(QStringLiteral("stdin_b64"), b64(stdinData));
    insertIf(o, "timeout_s", timeoutS);
    return o;
}

Result<ExecParams> ExecParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "sandbox.exec params");
    ExecParams p;
    p.name = f.string("name");
    p.argv = f.strings("argv");
    p.stdinData = f.base64("stdin_b64", {});
    if (auto t = f.optInteger("timeout_s"))
        p.timeoutS = int(*t);
    return f.done(p);
}

QJsonObject ExecResult::toJson() const
{
    return {{QStringLiteral("exit_code"), exitCode},
            {QStringLiteral("stdout_b64"), b64(stdoutData)},
            {QStringLiteral("stderr_b64"), b64(stderrData)},
            {QStringLiteral("timed_out"), timedOut}};
}

Result<ExecResult> ExecResult::fromJson(const QJsonObject &object)
{
    Fields f(object, "sandbox.exec result");
    ExecResult r{int(f.integer("exit_code")), f.base64("stdout_b64"), f.base64("stderr_b64"), f.boolean("timed_out")};
    return f.done(r);
}

QJsonObject ForkParams::toJson() const
{
    return {{QStringLiteral("sandbox"), sandbox}, {QStringLiteral("id"), id},
            {QStringLiteral("new_name"), newName}, {QStringLiteral("start"), start}};
}

Result<ForkParams> ForkParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "sandbox.fork params");
    ForkParams p{f.string("sandbox"), f.integer("id"), f.string("new_name"), f.boolean("start", false)};
    return f.done(p);
}

QJsonObject FilePushParams::toJson() const
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("path"), path},
            {QStringLiteral("data_b64"), b64(data)}, {QStringLiteral("offset"), offset}};
}

Result<FilePushParams> FilePushParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "file.push params");
    FilePushParams p{f.string("name"), f.string("path"), f.base64("data_b64"), f.integer("offset", 0)};
    return f.done(p);
}

QJsonObject WrittenResult::toJson() const { return {{QStringLiteral("written"), written}}; }

Result<WrittenResult> WrittenResult::fromJson(const QJsonObject &object)
{
    Fields f(object, "written result");
    WrittenResult r{f.integer("written")};
    return f.done(r);
}

QJsonObject FilePullParams::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name}, {QStringLiteral("path"), path}, {QStringLiteral("offset"), offset}};
    insertIf(o, "length", length);
    return o;
}

Result<FilePullParams> FilePullParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "file.pull params");
    FilePullParams p{f.string("name"), f.string("path"), f.integer("offset", 0), f.optInteger("length")};
    return f.done(p);
}

QJsonObject FilePullResult::toJson() const
{
    return {{QStringLiteral("data_b64"), b64(data)}, {QStringLiteral("eof"), eof}};
}

Result<FilePullResult> FilePullResult::fromJson(const QJsonObject &object)
{
    Fields f(object, "file.pull result");
    FilePullResult r{f.base64("data_b64"), f.boolean("eof")};
    return f.done(r);
}

} // namespace airlock::proto
