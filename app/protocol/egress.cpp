#include "protocol/egress.h"
#include "core/isotime.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

QJsonObject EgressEvent::toJson() const
{
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("sandbox"), sandbox},
        {QStringLiteral("time"), isoTimeMs(time)},
        {QStringLiteral("proto"), proto},
        {QStringLiteral("host"), host},
        {QStringLiteral("ip"), ip},
        {QStringLiteral("port"), port},
        {QStringLiteral("sni"), sni},
        {QStringLiteral("method"), method},
        {QStringLiteral("path"), path},
        {QStringLiteral("decision"), toString(decision)},
        {QStringLiteral("rule"), rule ? QJsonValue(rule) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("reason"), reason},
        {QStringLiteral("bytes_up"), bytesUp},
        {QStringLiteral("bytes_down"), bytesDown},
        {QStringLiteral("duration_ms"), durationMs},
        {QStringLiteral("count"), count},
    };
}

Result<EgressEvent> EgressEvent::fromJson(const QJsonObject &object)
{
    Fields f(object, "egress event");
    EgressEvent e;
    e.id = f.integer("id");
    e.sandbox = f.string("sandbox");
    e.time = f.time("time");
    e.proto = f.string("proto");
    e.host = f.string("host");
    e.ip = f.string("ip");
    e.port = int(f.integer("port"));
    e.sni = f.string("sni");
    e.method = f.string("method");
    e.path = f.string("path");
    e.decision = f.decision("decision");
    e.rule = f.optInteger("rule").value_or(0);
    e.reason = f.string("reason");
    e.bytesUp = f.integer("bytes_up");
    e.bytesDown = f.integer("bytes_down");
    e.durationMs = f.integer("duration_ms");
    e.count = f.integer("count", 1);
    return f.done(e);
}

QJsonObject EgressListParams::toJson() const
{
    QJsonObject o;
    if (sandbox)
        o.insert(QStringLiteral("sandbox"), *sandbox);
    if (pending)
        o.insert(QStringLiteral("pending"), true);
    if (limit)
        o.insert(QStringLiteral("limit"), *limit);
    if (beforeId)
        o.insert(QStringLiteral("before_id"), *beforeId);
    return o;
}

Result<EgressListParams> EgressListParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "egress.list params");
    EgressListParams p;
    p.sandbox = f.optString("sandbox");
    p.pending = f.boolean("pending", false);
    if (auto l = f.optInteger("limit"))
        p.limit = int(*l);
    p.beforeId = f.optInteger("before_id");
    return f.done(p);
}

QJsonObject EgressDecideParams::toJson() const
{
    QJsonObject o{{QStringLiteral("id"), id}, {QStringLiteral("action"), action}};
    if (scope)
        o.insert(QStringLiteral("scope"), *scope);
    if (match)
        o.insert(QStringLiteral("match"), *match);
    if (forS)
        o.insert(QStringLiteral("for_s"), *forS);
    if (rawTcp)
        o.insert(QStringLiteral("raw_tcp"), true);
    return o;
}

Result<EgressDecideParams> EgressDecideParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "egress.decide params");
    EgressDecideParams p{f.integer("id"), f.string("action"), f.optString("scope"), f.optString("match"),
                         f.optInteger("for_s"), f.boolean("raw_tcp", false)};
    return f.done(p);
}

QJsonObject RuleInfo::toJson() const
{
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("scope"), sandbox ? QStringLiteral("sandbox") : QStringLiteral("global")},
        {QStringLiteral("sandbox"), sandbox ? QJsonValue(*sandbox) : QJsonValue()},
        {QStringLiteral("action"), allow ? QStringLiteral("allow") : QStringLiteral("deny")},
        {QStringLiteral("pattern"), pattern},
        {QStringLiteral("port"), port},
        {QStringLiteral("expires"), expires ? QJsonValue(isoTimeSeconds(*expires)) : QJsonValue()},
        {QStringLiteral("once"), once},
        {QStringLiteral("raw_tcp"), rawTcp},
        {QStringLiteral("owner_uid"), ownerUid},
    };
}

Result<RuleInfo> RuleInfo::fromJson(const QJsonObject &object)
{
    Fields f(object, "rule");
    RuleInfo r;
    r.id = f.integer("id");
    const QString scope = f.string("scope");
    r.sandbox = f.optString("sandbox");
    const QString action = f.string("action");
    r.pattern = f.string("pattern");
    r.port = int(f.integer("port"));
    r.expires = f.optTime("expires");
    r.once = f.boolean("once");
    r.rawTcp = f.boolean("raw_tcp");
    r.ownerUid = f.integer("owner_uid");
    if (f.failed())
        return f.done(r);
    if (action != QLatin1String("allow") && action != QLatin1String("deny"))
        return Error{QStringLiteral("invalid rule"), QStringLiteral("\"action\" must be allow or deny"), kInvalidPayload};
    if (scope != (r.sandbox ? QLatin1String("sandbox") : QLatin1String("global")))
        return Error{QStringLiteral("invalid rule"),
                     QStringLiteral("\"scope\" must be sandbox when \"sandbox\" names one, else global"), kInvalidPayload};
    r.allow = action == QLatin1String("allow");
    return r;
}

QJsonObject RuleListParams::toJson() const
{
    return sandbox ? QJsonObject{{QStringLiteral("sandbox"), *sandbox}} : QJsonObject{};
}

Result<RuleListParams> RuleListParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "rule.list params");
    RuleListParams p{f.optString("sandbox")};
    return f.done(p);
}

QJsonObject RuleAddParams::toJson() const
{
    QJsonObject o;
    if (sandbox)
        o.insert(QStringLiteral("sandbox"), *sandbox);
    if (global)
        o.insert(QStringLiteral("global"), true);
    o.insert(QStringLiteral("action"), action);
    o.insert(QStringLiteral("host"), host);
    if (port)
        o.insert(QStringLiteral("port"), *port);
    if (forS)
        o.insert(QStringLiteral("for_s"), *forS);
    if (once)
        o.insert(QStringLiteral("once"), true);
    if (rawTcp)
        o.insert(QStringLiteral("raw_tcp"), true);
    return o;
}

Result<RuleAddParams> RuleAddParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "rule.add params");
    RuleAddParams p;
    p.sandbox = f.optString("sandbox");
    p.global = f.boolean("global", false);
    p.action = f.string("action");
    p.host = f.string("host");
    if (auto port = f.optInteger("port"))
        p.port = int(*port);
    p.forS = f.optInteger("for_s");
    p.once = f.boolean("once", false);
    p.rawTcp = f.boolean("raw_tcp", false);
    return f.done(p);
}

QJsonObject IdParams::toJson() const { return {{QStringLiteral("id"), id}}; }

Result<IdParams> IdParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "id");
    IdParams p{f.integer("id")};
    return f.done(p);
}

} // namespace airlock::proto
