// egress ls / allow / deny: see and decide what sandboxes try to reach.
#include "ctl/command.h"
#include "ctl/duration.h"
#include "core/isotime.h"
#include "protocol/egress.h"
#include "protocol/jsonfields.h"
#include "protocol/names.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <cstdio>

namespace airlock::ctl {

namespace {

void printRow(const proto::EgressEvent &e)
{
    const QString host = e.host.isEmpty() ? e.ip : e.host;
    QString what = e.method.isEmpty() ? QString() : e.method + QLatin1Char(' ') + e.path;
    const QString rule = e.rule ? QString::number(e.rule) : QStringLiteral("-");
    // A row that stands for several identical denials says how many.
    const QString reason = e.count > 1 ? QStringLiteral("(%1 times) %2").arg(e.count).arg(e.reason) : e.reason;
    const QString process = e.guestProcess ? QStringLiteral(" {") + e.guestProcess->describe() + QLatin1Char('}') : QString();
    std::printf("%-7s %-12s %-24s %-5s %-32s %-6s %-8s %-5s %s%s%s\n", qPrintable(QString::number(e.id)), qPrintable(e.sandbox),
                qPrintable(isoTimeMs(e.time)), qPrintable(e.proto), qPrintable(host + QLatin1Char(':') + QString::number(e.port)),
                qPrintable(QString::number(e.bytesUp) + QLatin1Char('/') + QString::number(e.bytesDown)),
                qPrintable(proto::toString(e.decision)), qPrintable(rule), qPrintable(reason),
                qPrintable(what.isEmpty() ? QString() : QStringLiteral(" [") + what + QLatin1Char(']')), qPrintable(process));
}

void printHeader()
{
    std::printf("%-7s %-12s %-24s %-5s %-32s %-6s %-8s %-5s %s\n", "ID", "SANDBOX", "TIME", "PROTO", "TARGET", "UP/DN",
                "DECISION", "RULE", "REASON");
}

// Follows the attempts as they happen, one per line. With `pending`: each new held request
// (topic `pending`) and, once decided, that request again with its decision (topic
// `egress`, which carries every change; `pending` carries only new items).
int follow(Context &ctx, const QString &sandbox, bool pending)
{
    const QJsonArray topics = pending ? QJsonArray{QString(proto::topic::Pending), QString(proto::topic::Egress)}
                                      : QJsonArray{QString(proto::topic::Egress)};
    if (!ctx.call(proto::method::Subscribe, {{QStringLiteral("topics"), topics}}))
        return kFailed;
    if (!ctx.json)
        printHeader();
    std::fflush(stdout);
    QSet<qint64> held; // pending items shown and not yet decided
    for (;;) {
        Result<QJsonObject> event = ctx.client.nextEvent(-1);
        if (!event)
            return ctx.fail(event.error().message());
        const QString topic = event->value(QLatin1String("topic")).toString();
        const QJsonObject data = event->value(QLatin1String("data")).toObject();
        if (topic != proto::topic::Egress && topic != proto::topic::Pending)
            continue;
        const Result<proto::EgressEvent> e = proto::EgressEvent::fromJson(data);
        if (!e)
            return ctx.fail(QStringLiteral("the daemon sent an egress event airlockctl cannot read: %1; update airlockctl to the daemon's "
                                           "version").arg(e.error().message()));
        if (!sandbox.isEmpty() && e->sandbox != sandbox)
            continue;
        if (pending && topic == proto::topic::Pending)
            held.insert(e->id);
        else if (pending && !(e->decision != Decision::Pending && held.remove(e->id)))
            continue; // not a decision on a request shown here
        if (ctx.json)
            std::fputs(QJsonDocument(data).toJson(QJsonDocument::Compact).append('\n').constData(), stdout);
        else
            printRow(e.value());
        std::fflush(stdout);
    }
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
    if (args.has(QStringLiteral("--limit"))) {
        bool okLimit = false;
        const int limit = args.value(QStringLiteral("--limit")).toInt(&okLimit);
        if (!okLimit || limit < 1 || limit > 1000)
            return ctx.fail(QStringLiteral("--limit must be a number from 1 to 1000"), kUsage);
        params.insert(QStringLiteral("limit"), limit);
    }

    if (args.has(QStringLiteral("--follow")))
        return follow(ctx, sandbox, pending);

    const auto result = ctx.call(proto::method::EgressList, params);
    if (!result)
        return kFailed;
    const Result<QList<proto::EgressEvent>> events = proto::listFromJson<proto::EgressEvent>(result.value());
    if (!events)
        return ctx.fail(QStringLiteral("cannot read the daemon's egress.list reply: %1").arg(events.error().message()));
    if (ctx.json) {
        ctx.printJson(result->toArray());
        return 0;
    }
    printHeader();
    for (const proto::EgressEvent &e : events.value())
        printRow(e);
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
    if (args.value(QStringLiteral("--for")) == QLatin1String("session")) {
        if (scope != QLatin1String("sandbox"))
            return ctx.fail(QStringLiteral("--for session needs --scope sandbox (the rule ends when this sandbox stops)"), kUsage);
        params.insert(QStringLiteral("until_stop"), true);
    } else if (args.has(QStringLiteral("--for"))) {
        QString why;
        const std::optional<qint64> seconds = ctl::parseDuration(args.value(QStringLiteral("--for")), &why);
        if (!seconds)
            return ctx.fail(QStringLiteral("--for: %1 (or session)").arg(why), kUsage);
        if (scope == QLatin1String("once"))
            return ctx.fail(QStringLiteral("--for needs --scope sandbox or global (a once decision has no lifetime)"), kUsage);
        params.insert(QStringLiteral("for_s"), *seconds);
    }
    if (args.has(QStringLiteral("--raw-tcp")))
        params.insert(QStringLiteral("raw_tcp"), true); // the rule's host:port may carry unverified bytes
    // A pending request's rule: another path pattern, or the whole host (the daemon checks both).
    if (args.has(QStringLiteral("--path")))
        params.insert(QStringLiteral("path"), args.value(QStringLiteral("--path")));
    if (args.has(QStringLiteral("--whole-host")))
        params.insert(QStringLiteral("whole_host"), true);
    const auto result = ctx.call(proto::method::EgressDecide, params);
    if (!result)
        return kFailed;
    const Result<proto::EgressEvent> e = proto::fromReply<proto::EgressEvent>(result.value());
    if (!e)
        return ctx.fail(QStringLiteral("cannot read the daemon's egress.decide reply: %1").arg(e.error().message()));
    if (ctx.json) {
        ctx.printJson(result->toObject());
        return 0;
    }
    const QString host = e->host.isEmpty() ? e->ip : e->host;
    std::printf("%s %s:%d for %s (%s)\n", action == QLatin1String("allow") ? "allowed" : "denied", qPrintable(host),
                e->port, qPrintable(e->sandbox), qPrintable(e->reason));
    return 0;
}

// "until-answered" holds a request until someone decides; a duration denies it after that long.
int holdTimeout(Context &ctx, const Args &args)
{
    const QString text = args.positional.at(0);
    proto::EgressConfigureParams params;
    if (text != QLatin1String("until-answered")) {
        QString why;
        const std::optional<qint64> seconds = ctl::parseDuration(text, &why);
        if (!seconds || *seconds > 24 * 3600)
            return ctx.fail(seconds ? QStringLiteral("at most 1d; use until-answered to wait without end") : why, kUsage);
        params.holdTimeoutS = int(*seconds);
    }
    return ctx.show<proto::EgressConfigureParams>(proto::method::EgressConfigure, params.toJson(), [](const proto::EgressConfigureParams &p) {
        if (p.holdTimeoutS == 0)
            std::printf("pending requests now wait until someone answers them\n");
        else
            std::printf("pending requests are now denied after %d s without an answer\n", p.holdTimeoutS);
    });
}

} // namespace

void registerEgressCommands(Registry &registry)
{
    registry.add({QStringLiteral("egress ls"), QStringLiteral("[NAME] [--pending] [--follow] [--limit N]"),
                  QStringLiteral("egress attempts (or pending requests) of all sandboxes or one; the newest 100, or N up to 1000"),
                  {QStringLiteral("--limit")},
                  {QStringLiteral("--pending"), QStringLiteral("--follow")}, 0, 1, true, ls});
    const QStringList decideOptions{QStringLiteral("--scope"), QStringLiteral("--match"), QStringLiteral("--for"), QStringLiteral("--path")};
    const QString usage = QStringLiteral("ID [--scope once|sandbox|global] [--match host|domain|ip] [--for DURATION|session] [--raw-tcp] "
                                         "[--path PATTERN | --whole-host]");
    registry.add({QStringLiteral("egress allow"), usage,
                  QStringLiteral("release a pending request (and add a rule; for a pending method and path the rule names "
                                 "them, or --path PATTERN, or --whole-host)"),
                  decideOptions, {QStringLiteral("--raw-tcp"), QStringLiteral("--whole-host")}, 1, 1, true,
                  [](Context &c, const Args &a) { return decide(c, a, QStringLiteral("allow")); }});
    registry.add({QStringLiteral("egress deny"), usage, QStringLiteral("refuse a pending request (and add a rule)"),
                  decideOptions, {QStringLiteral("--whole-host")}, 1, 1, true,
                  [](Context &c, const Args &a) { return decide(c, a, QStringLiteral("deny")); }});
    registry.add({QStringLiteral("egress hold-timeout"), QStringLiteral("DURATION|until-answered"),
                  QStringLiteral("how long a pending request waits before it is denied (every sandbox)"), {}, {}, 1, 1, true,
                  holdTimeout});
}

} // namespace airlock::ctl
