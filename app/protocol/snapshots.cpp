#include "protocol/snapshots.h"
#include "core/isotime.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

QJsonObject SnapshotInfo::toJson() const
{
    QJsonObject o{{QStringLiteral("id"), id}};
    if (sandbox)
        o.insert(QStringLiteral("sandbox"), *sandbox);
    o.insert(QStringLiteral("label"), label);
    o.insert(QStringLiteral("parent"), parent ? QJsonValue(*parent) : QJsonValue());
    o.insert(QStringLiteral("created"), isoTimeSeconds(created));
    if (current)
        o.insert(QStringLiteral("current"), *current);
    return o;
}

Result<SnapshotInfo> SnapshotInfo::fromJson(const QJsonObject &object)
{
    Fields f(object, "snapshot");
    SnapshotInfo s{f.integer("id"), f.optString("sandbox"), f.string("label"), f.optInteger("parent"),
                   f.time("created"), f.optBoolean("current")};
    return f.done(s);
}

QJsonObject SnapshotCreateParams::toJson() const { return {{QStringLiteral("sandbox"), sandbox}, {QStringLiteral("label"), label}}; }

Result<SnapshotCreateParams> SnapshotCreateParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "snapshot.create params");
    SnapshotCreateParams p{f.string("sandbox"), f.string("label", QString())};
    return f.done(p);
}

QJsonObject SnapshotRef::toJson() const
{
    QJsonObject o{{QStringLiteral("sandbox"), sandbox}};
    if (id)
        o.insert(QStringLiteral("id"), *id);
    return o;
}

Result<SnapshotRef> SnapshotRef::fromJson(const QJsonObject &object)
{
    Fields f(object, "snapshot");
    SnapshotRef r{f.string("sandbox"), f.optInteger("id")};
    return f.done(r);
}

QJsonObject ConsoleAttachResult::toJson() const
{
    return {{QStringLiteral("history_b64"), QString::fromLatin1(history.toBase64())},
            {QStringLiteral("topic"), topic},
            {QStringLiteral("state"), toString(state)}};
}

Result<ConsoleAttachResult> ConsoleAttachResult::fromJson(const QJsonObject &object)
{
    Fields f(object, "console.attach result");
    ConsoleAttachResult r{f.base64("history_b64"), f.string("topic"), f.sandboxState("state")};
    return f.done(r);
}

QJsonObject ConsoleWriteParams::toJson() const
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("data_b64"), QString::fromLatin1(data.toBase64())}};
}

Result<ConsoleWriteParams> ConsoleWriteParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "console.write params");
    ConsoleWriteParams p{f.string("name"), f.base64("data_b64")};
    return f.done(p);
}

QJsonObject ConsoleSize::toJson() const
{
    QJsonObject o{{QStringLiteral("rows"), rows}, {QStringLiteral("cols"), cols}};
    if (name)
        o.insert(QStringLiteral("name"), *name);
    return o;
}

Result<ConsoleSize> ConsoleSize::fromJson(const QJsonObject &object)
{
    Fields f(object, "console size");
    ConsoleSize s{f.optString("name"), int(f.integer("rows")), int(f.integer("cols"))};
    return f.done(s);
}

QJsonObject ConsoleOutput::toJson() const { return {{QStringLiteral("data_b64"), QString::fromLatin1(data.toBase64())}}; }

Result<ConsoleOutput> ConsoleOutput::fromJson(const QJsonObject &object)
{
    Fields f(object, "console output");
    ConsoleOutput o{f.base64("data_b64")};
    return f.done(o);
}

} // namespace airlock::proto
