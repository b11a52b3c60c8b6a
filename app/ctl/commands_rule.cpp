// rule ls | add | rm: the person's standing egress rules.
#include "ctl/command.h"
#include "ctl/duration.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>

namespace airlock::ctl {

namespace {

QString describePort(const QJsonObject &r)
{
    const int port = r.value(QLatin1String("port")).toInt();
    return port ? QString::number(port) : QStringLiteral("any");
}

QString describeExpiry(const QJsonObject &r)
{
    if (r.value(QLatin1String("once")).toBool())
        return QStringLiteral("once");
    const QJsonValue e = r.value(QLatin1String("expires"));
    if (!e.isString())
        return QStringLiteral("never");
    const QDateTime t = QDateTime::fromString(e.toString(), Qt::ISODate);
    const qint64 left = QDateTime::currentDateTimeUtc().secsTo(t);
    if (left <= 0)
        return QStringLiteral("expired");
    if (left < 3600)
        return QStringLiteral("in %1m").arg((left + 59) / 60);
    if (left < 86400)
        return QStringLiteral("in %1h").arg((left + 3599) / 3600);
    return QStringLiteral("in %1d").arg((left + 86399) / 86400);
}

void printRules(const QJsonArray &rules)
{
    std::printf("%-6s %-8s %-16s %-6s %-34s %-6s %-8s %s\n", "ID", "SCOPE", "SANDBOX", "ACTION", "PATTERN", "PORT", "EXPIRES",
                "RAW-TCP");
    for (const QJsonValue &v : rules) {
        const QJsonObject r = v.toObject();
        std::printf("%-6lld %-8s %-16s %-6s %-34s %-6s %-8s %s\n", static_cast<long long>(r.value(QLatin1String("id")).toInteger()),
                    qPrintable(r.value(QLatin1String("scope")).toString()),
                    qPrintable(r.value(QLatin1String("sandbox")).isString() ? r.value(QLatin1String("sandbox")).toString()
                                                                            : QStringLiteral("-")),
                    qPrintable(r.value(QLatin1String("action")).toString()),
                    qPrintable(r.value(QLatin1String("pattern")).toString()), qPrintable(describePort(r)),
                    qPrintable(describeExpiry(r)), r.value(QLatin1String("raw_tcp")).toBool() ? "yes" : "-");
    }
}

int ruleLs(Context &ctx, const Args &args)
{
    QJsonObject params;
    if (!args.positional.isEmpty())
        params.insert(QStringLiteral("sandbox"), args.positional.first());
    const auto result = ctx.call(QStringLiteral("rule.list"), params);
    if (!result)
        return kFailed;
    if (ctx.json)
        ctx.printJson(result->toArray());
    else
        printRules(result->toArray());
    return 0;
}

int ruleAdd(Context &ctx, const Args &args)
{
    const QString usage = QStringLiteral("usage: airlockctl rule add (--sandbox NAME | --global) --action allow|deny "
                                         "--host PATTERN [--port P] [--for DURATION] [--raw-tcp]");
    QJsonObject params;
    const bool global = args.has(QStringLiteral("--global"));
    const bool sandbox = args.has(QStringLiteral("--sandbox"));
    if (global == sandbox)
        return ctx.fail(QStringLiteral("give exactly one of --sandbox NAME or --global; ") + usage, kUsage);
    if (args.values(QStringLiteral("--sandbox")).size() > 1 || args.values(QStringLiteral("--host")).size() > 1
        || args.values(QStringLiteral("--action")).size() > 1 || args.values(QStringLiteral("--port")).size() > 1
        || args.values(QStringLiteral("--for")).size() > 1)
        return ctx.fail(QStringLiteral("each option may be given once (add one rule per host); ") + usage, kUsage);
    if (sandbox) {
        const QString name = args.value(QStringLiteral("--sandbox"));
        if (name.isEmpty())
            return ctx.fail(QStringLiteral("--sandbox needs a sandbox name; ") + usage, kUsage);
        params.insert(QStringLiteral("sandbox"), name);
    } else {
        params.insert(QStringLiteral("global"), true);
    }
    const QString action = args.value(QStringLiteral("--action"));
    if (action != QLatin1String("allow") && action != QLatin1String("deny"))
        return ctx.fail(action.isEmpty() ? QStringLiteral("--action allow|deny is required; ") + usage
                                         : QStringLiteral("--action must be allow or deny, not '%1'").arg(action), kUsage);
    params.insert(QStringLiteral("action"), action);
    const QString host = args.value(QStringLiteral("--host"));
    if (host.isEmpty())
        return ctx.fail(QStringLiteral("--host PATTERN is required (a host, *.domain, IP or CIDR); ") + usage, kUsage);
    params.insert(QStringLiteral("host"), host);
    if (args.has(QStringLiteral("--port"))) {
        bool ok = false;
        const int port = args.value(QStringLiteral("--port")).toInt(&ok);
        if (!ok || port < 1 || port > 65535)
            return ctx.fail(QStringLiteral("invalid port '%1': give a number from 1 to 65535 (omit --port for any port)")
                                .arg(args.value(QStringLiteral("--port"))), kUsage);
        params.insert(QStringLiteral("port"), port);
    }
    if (args.has(QStringLiteral("--for"))) {
        QString why;
        const std::optional<qint64> seconds = parseDuration(args.value(QStringLiteral("--for")), &why);
        if (!seconds)
            return ctx.fail(why, kUsage);
        params.insert(QStringLiteral("for_s"), *seconds);
    }
    if (args.has(QStringLiteral("--raw-tcp")))
        params.insert(QStringLiteral("raw_tcp"), true); // the daemon says why a host without a port is refused
    const auto result = ctx.call(QStringLiteral("rule.add"), params);
    if (!result)
        return kFailed;
    if (ctx.json)
        ctx.printJson(result->toObject());
    else
        printRules(QJsonArray{*result});
    return 0;
}

int ruleRm(Context &ctx, const Args &args)
{
    bool ok = false;
    const qint64 id = args.positional.first().toLongLong(&ok);
    if (!ok || id < 1)
        return ctx.fail(QStringLiteral("'%1' is not a rule id; see airlockctl rule ls").arg(args.positional.first()), kUsage);
    const auto result = ctx.call(QStringLiteral("rule.remove"), QJsonObject{{QStringLiteral("id"), id}});
    if (!result)
        return kFailed;
    if (ctx.json)
        ctx.printJson(result->toObject());
    return 0;
}

} // namespace

void registerRuleCommands(Registry &registry)
{
    registry.add({QStringLiteral("rule ls"), QStringLiteral("[NAME]"),
                  QStringLiteral("egress rules (of one sandbox plus the global ones)"), {}, {}, 0, 1, true, ruleLs});
    registry.add({QStringLiteral("rule add"),
                  QStringLiteral("(--sandbox NAME | --global) --action allow|deny --host PATTERN [--port P] [--for DURATION] "
                                 "[--raw-tcp]"),
                  QStringLiteral("add an egress rule (--raw-tcp: the host:port may carry bytes that are neither TLS nor "
                                 "HTTP for that host)"),
                  {QStringLiteral("--sandbox"), QStringLiteral("--action"), QStringLiteral("--host"), QStringLiteral("--port"),
                   QStringLiteral("--for")},
                  {QStringLiteral("--global"), QStringLiteral("--raw-tcp")}, 0, 0, true, ruleAdd});
    registry.add({QStringLiteral("rule rm"), QStringLiteral("ID"), QStringLiteral("remove an egress rule"), {}, {}, 1, 1, true, ruleRm});
}

} // namespace airlock::ctl
