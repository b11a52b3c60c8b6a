// egress ls / allow / deny: see and decide what sandboxes try to reach.
#include "ctl/command.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <cstdio>

namespace airlock::ctl {

namespace {

// "90", "90s", "10m", "2h", "1d" -> seconds; 0 on anything else.
qint64 parseDuration(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^([0-9]{1,9})([smhd]?)$"));
    const QRegularExpressionMatch m = re.match(text.trimmed());
    if (!m.hasMatch())
        return 0;
    const qint64 n = m.captured(1).toLongLong();
    const QString unit = m.captured(2);
    const qint64 factor = unit == QLatin1String("m") ? 60 : unit == QLatin1String("h") ? 3600 : unit == QLatin1String("d") ? 86400 : 1;
    return n * factor;
}

QString field(const QJsonObject &o, const char *name) { return o.value(QLatin1String(name)).toVariant().toString(); }

void printRow(const QJsonObject &e)
{
    const QString host = field(e, "host").isEmpty() ? field(e, "ip") : field(e, "host");
    QString what = field(e, "method").isEmpty() ? QString() : field(e, "method") + QLatin1Char(' ') + field(e, "path");
    const QString rule = e.value(QLatin1String("rule")).isNull() ? QStringLiteral("-") : field(e, "rule");
    // A row that stands for several identical denials says how many.
    const qint64 count = e.value(QLatin1String("count")).toInteger(1);
    const QString reason = count > 1 ? QStringLiteral("(%1 times) %2").arg(count).arg(field(e, "reason")) : field(e, "reason");
    std::printf("%-7s %-12s %-24s %-5s %-32s %-6s %-8s %-5s %s%s\n", qPrintable(field(e, "id")), qPrintable(field(e, "sandbox")),
                qPrintable(field(e, "time")), qPrintable(field(e, "proto")), qPrintable(host + QLatin1Char(':') + field(e, "port")),
                qPrintable(field(e, "bytes_up") + QLatin1Char('/') + field(e, "bytes_down")), qPrintable(field(e, "decision")),
                qPrintable(rule), qPrintable(reason), qPrintable(what.isEmpty() ? QString() : QStringLiteral(" [") + what + QLatin1Char(']')));
}

void printHeader()
{
    std::printf("%-7s %-12s %-24s %-5s %-32s %-6s %-8s %-5s %s\n", "ID", "SANDBOX", "TIME", "PROTO", "TARGET", "UP/DN",
                "DECISION", "RULE", "REASON");
}

int ls(Context &ctx, const Args &args)
{
    const QString sandbox = args.positional.value(0);
    const bool pending = args.has(QStringLiteral("--pending"));
    QJsonObject params;
    if (!sandbox.isEmpty())
        params.insert(QStringLiteral("sandbox"), sandbox);
    if (pending)
        params.insert(QStringLiteral("pending"), true);

    if (args.has(QStringLiteral("--follow"))) {
        // One object per line as attempts happen (a pending one again when it is decided).
        const QString topic = pending ? QStringLiteral("pending") : QStringLiteral("egress");
        if (!ctx.call(QStringLiteral("subscribe"), {{QStringLiteral("topics"), QJsonArray{topic}}}))
            return kFailed;
        if (!ctx.json)
            printHeader();
        std::fflush(stdout);
        for (;;) {
            Result<QJsonObject> event = ctx.client.nextEvent(-1);
            if (!event)
                return ctx.fail(event.error().message());
            const QJsonObject data = event->value(QLatin1String("data")).toObject();
            if (event->value(QLatin1String("topic")).toString() != topic)
                continue;
            if (!sandbox.isEmpty() && data.value(QLatin1String("sandbox")).toString() != sandbox)
                continue;
            if (ctx.json)
                std::fputs(QJsonDocument(data).toJson(QJsonDocument::Compact).append('\n').constData(), stdout);
            else
                printRow(data);
            std::fflush(stdout);
        }
    }

    const auto result = ctx.call(QStringLiteral("egress.list"), params);
    if (!result)
        return kFailed;
    if (ctx.json) {
        ctx.printJson(result->toArray());
        return 0;
    }
    printHeader();
    for (const QJsonValue &v : result->toArray())
        printRow(v.toObject());
    return 0;
}

int decide(Context &ctx, const Args &args, const QString &action)
{
    bool okId = false;
    const qint64 id = args.positional.at(0).toLongLong(&okId);
    if (!okId || id <= 0)
        return ctx.fail(QStringLiteral("\"%1\" is not a request id; see `airlockctl egress ls --pending`").arg(args.positional.at(0)), kUsage);
    const QString scope = args.value(QStringLiteral("--scope"), QStringLiteral("once"));
    const QString match = args.value(QStringLiteral("--match"), QStringLiteral("host"));
    if (!QStringList{QStringLiteral("once"), QStringLiteral("sandbox"), QStringLiteral("global")}.contains(scope))
        return ctx.fail(QStringLiteral("--scope must be once, sandbox or global"), kUsage);
    if (!QStringList{QStringLiteral("host"), QStringLiteral("domain"), QStringLiteral("ip")}.contains(match))
        return ctx.fail(QStringLiteral("--match must be host, domain or ip"), kUsage);
    QJsonObject params{{QStringLiteral("id"), id}, {QStringLiteral("action"), action},
                       {QStringLiteral("scope"), scope}, {QStringLiteral("match"), match}};
    if (args.has(QStringLiteral("--for"))) {
        const qint64 seconds = parseDuration(args.value(QStringLiteral("--for")));
        if (seconds <= 0)
            return ctx.fail(QStringLiteral("--for takes a duration such as 90s, 10m, 2h or 1d"), kUsage);
        if (scope == QLatin1String("once"))
            return ctx.fail(QStringLiteral("--for needs --scope sandbox or global (a once decision has no lifetime)"), kUsage);
        params.insert(QStringLiteral("for_s"), seconds);
    }
    if (args.has(QStringLiteral("--raw-tcp")))
        params.insert(QStringLiteral("raw_tcp"), true); // the rule's host:port may carry unverified bytes
    const auto result = ctx.call(QStringLiteral("egress.decide"), params);
    if (!result)
        return kFailed;
    const QJsonObject e = result->toObject();
    if (ctx.json) {
        ctx.printJson(e);
        return 0;
    }
    const QString host = field(e, "host").isEmpty() ? field(e, "ip") : field(e, "host");
    std::printf("%s %s:%s for %s (%s)\n", action == QLatin1String("allow") ? "allowed" : "denied", qPrintable(host),
                qPrintable(field(e, "port")), qPrintable(field(e, "sandbox")), qPrintable(field(e, "reason")));
    return 0;
}

} // namespace

void registerEgressCommands(Registry &registry)
{
    registry.add({QStringLiteral("egress ls"), QStringLiteral("[NAME] [--pending] [--follow]"),
                  QStringLiteral("egress attempts (or pending requests) of all sandboxes or one"), {},
                  {QStringLiteral("--pending"), QStringLiteral("--follow")}, 0, 1, true, ls});
    const QStringList decideOptions{QStringLiteral("--scope"), QStringLiteral("--match"), QStringLiteral("--for")};
    const QString usage = QStringLiteral("ID [--scope once|sandbox|global] [--match host|domain|ip] [--for DURATION] [--raw-tcp]");
    registry.add({QStringLiteral("egress allow"), usage, QStringLiteral("release a pending request (and add a rule)"),
                  decideOptions, {QStringLiteral("--raw-tcp")}, 1, 1, true,
                  [](Context &c, const Args &a) { return decide(c, a, QStringLiteral("allow")); }});
    registry.add({QStringLiteral("egress deny"), usage, QStringLiteral("refuse a pending request (and add a rule)"),
                  decideOptions, {}, 1, 1, true, [](Context &c, const Args &a) { return decide(c, a, QStringLiteral("deny")); }});
}

} // namespace airlock::ctl
