#include "protocol/events.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

QJsonObject EventEnvelope::toJson() const { return {{QStringLiteral("topic"), topic}, {QStringLiteral("data"), data}}; }

Result<EventEnvelope> EventEnvelope::fromJson(const QJsonObject &object)
{
    Fields f(object, "event");
    EventEnvelope e{f.string("topic"), f.object("data")};
    return f.done(e);
}

QJsonObject ImageProgress::toJson() const
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("phase"), phase},
            {QStringLiteral("percent"), percent}, {QStringLiteral("message"), message}};
}

Result<ImageProgress> ImageProgress::fromJson(const QJsonObject &object)
{
    Fields f(object, "image event");
    ImageProgress p{f.string("name"), f.string("phase"), int(f.integer("percent")), f.string("message")};
    return f.done(p);
}

QJsonObject SnapshotProgress::toJson() const
{
    return {{QStringLiteral("sandbox"), sandbox}, {QStringLiteral("phase"), phase}, {QStringLiteral("percent"), percent}};
}

Result<SnapshotProgress> SnapshotProgress::fromJson(const QJsonObject &object)
{
    Fields f(object, "snapshot event");
    SnapshotProgress p{f.string("sandbox"), f.string("phase"), int(f.integer("percent"))};
    return f.done(p);
}

QJsonObject Alert::toJson() const
{
    return {{QStringLiteral("sandbox"), sandbox}, {QStringLiteral("kind"), kind}, {QStringLiteral("message"), message}};
}

Result<Alert> Alert::fromJson(const QJsonObject &object)
{
    Fields f(object, "alert");
    Alert a{f.string("sandbox"), f.string("kind"), f.string("message")};
    return f.done(a);
}

QJsonObject TopicsParams::toJson() const { return {{QStringLiteral("topics"), QJsonArray::fromStringList(topics)}}; }

Result<TopicsParams> TopicsParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "topics");
    TopicsParams p{f.strings("topics")};
    return f.done(p);
}

} // namespace airlock::proto
