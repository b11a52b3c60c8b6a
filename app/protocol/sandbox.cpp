#include "protocol/sandbox.h"
#include "protocol/jsonfields.h"

#include <QRandomGenerator>

namespace airlock::proto {

SandboxRow SandboxRow::removed(const QString &name)
{
    SandboxRow r;
    r.name = name;
    r.state = SandboxState::Removed;
    return r;
}

// A removed row is {name, state} alone; the disk fields come together or not at all.
QJsonObject SandboxRow::toJson() const
{
    JsonWriter w;
    if (state == SandboxState::Removed)
        return w("name", name)("state", state).object();
    fields(*this, w);
    if (disk)
        DiskUsage::fields(*disk, w);
    return w.object();
}

Result<SandboxRow> SandboxRow::fromJson(const QJsonObject &object)
{
    JsonReader f(object, "sandbox row");
    SandboxRow r;
    f("name", r.name)("state", r.state);
    if (f.failed() || r.state == SandboxState::Removed)
        return f.done(r);
    fields(r, f);
    if (object.contains(QLatin1String("disk_used_bytes")))
        DiskUsage::fields(r.disk.emplace(), f);
    return f.done(r);
}

AIRLOCK_PAYLOAD_JSON(SecretLoan, "secret loan")
AIRLOCK_PAYLOAD_JSON(SandboxCreateParams, "sandbox.create params")
AIRLOCK_PAYLOAD_JSON(SandboxCreated, "sandbox.create result")
AIRLOCK_PAYLOAD_JSON(NameParams, "name")
AIRLOCK_PAYLOAD_JSON(SandboxStartParams, "sandbox.start params")
AIRLOCK_PAYLOAD_JSON(SandboxStopParams, "sandbox.stop params")
AIRLOCK_PAYLOAD_JSON(ExecParams, "sandbox.exec params")
AIRLOCK_PAYLOAD_JSON(ExecResult, "sandbox.exec result")
AIRLOCK_PAYLOAD_JSON(ForkParams, "sandbox.fork params")
AIRLOCK_PAYLOAD_JSON(FilePushParams, "file.push params")
AIRLOCK_PAYLOAD_JSON(WrittenResult, "written result")
AIRLOCK_PAYLOAD_JSON(FilePullParams, "file.pull params")
AIRLOCK_PAYLOAD_JSON(FilePullResult, "file.pull result")

QString signInSandboxName(const QString &templateName)
{
    return QStringLiteral("signin-%1-%2").arg(templateName.left(20)).arg(QRandomGenerator::global()->bounded(0x10000), 4, 16, QLatin1Char('0'));
}

} // namespace airlock::proto
