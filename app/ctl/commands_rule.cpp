// rule ls | add | rm: the person's standing egress rules.
#include "ctl/command.h"
#include "ctl/duration.h"
#include "protocol/egress.h"
#include "protocol/names.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>

namespace airlock::ctl {

namespace {

QString describePort(const proto::RuleInfo &r) { return r.port ? QString::number(r.port) : QStringLiteral("any"); }

QString describeExpiry(const proto::RuleInfo &r)
{
    if (r.once)
        return QStringLiteral("once");
    if (r.untilStop)
        return QStringLiteral("on stop");
    if (!r.expires)
        return QStringLiteral("never");
    const qint64 left = QDateTime::currentDateTimeUtc().secsTo(*r.expires);
    if (left <= 0)
        return QStringLiteral("expired");
    if (left < 3600)
        return QStringLiteral("in %1m").arg((left + 59) / 60);
    if (left < 86400)
        return QStringLiteral("in %1h").arg((left + 3599) / 3600);
    return QStringLiteral("in %1d").arg((left + 86399) / 86400);
}

void printRules(const QList<proto::RuleInfo> &rules)
{
    // ORIGIN last and cut: it can be a long chain of files; --json has it whole.
    constexpr qsizetype kOriginShown = 60;
    std::printf("%-6s %-8s %-16s %-6s %-34s %-6s %-8s %-7s %s\n", "ID", "SCOPE", "SANDBOX", "ACTION", "PATTERN", "PORT", "EXPIRES",
                "RAW-TCP", "ORIGIN");
    for (const proto::RuleInfo &r : rules) {
        const QString origin = r.origin.size() > kOriginShown ? r.origin.left(kOriginShown - 1) + QChar(0x2026) : r.origin;
        // A rule of requests shows what it matches after its host: "api.github.com GET /repos/myorg/*".
        const QString pattern = r.requestText().isEmpty() ? r.pattern : r.pattern + QLatin1Char(' ') + r.requestText();
        std::printf("%-6lld %-8s %-16s %-6s %-34s %-6s %-8s %-7s %s\n", static_cast<long long>(r.id), r.isGlobal() ? "global" : "sandbox",
                    qPrintable(r.sandbox.value_or(QStringLiteral("-"))), r.allow ? "allow" : "deny", qPrintable(pattern),
                    qPrintable(describePort(r)), qPrintable(describeExpiry(r)), r.rawTcp ? "yes" : "-",
                    origin.isEmpty() ? "-" : qUtf8Printable(origin));
    }
}

int ruleLs(Context &ctx, const Args &args)
{
    proto::RuleListParams params;
    if (!args.positional.isEmpty())
        params.sandbox = args.positional.first();
    return ctx.show<QList<proto::RuleInfo>>(proto::method::RuleList, params.toJson(), printRules);
}

int ruleAdd(Context &ctx, const Args &args)
{
    const QString usage = QStringLiteral("usage: airlockctl rule add (--sandbox NAME | --global) --action allow|deny "
                                         "--host PATTERN [--port P] [--for DURATION|session] [--raw-tcp] "
                                         "[--method M] [--path PATTERN | --git fetch|push [--repo PATTERN]]");
    QJsonObject params;
    const bool global = args.has(QStringLiteral("--global"));
    const bool sandbox = args.has(QStringLiteral("--sandbox"));
    if (global == sandbox)
        return ctx.fail(QStringLiteral("give exactly one of --sandbox NAME or --global; ") + usage, kUsage);
    if (args.values(QStringLiteral("--sandbox")).size() > 1 || args.values(QStringLiteral("--host")).size() > 1
        || args.values(QStringLiteral("--action")).size() > 1 || args.values(QStringLiteral("--port")).size() > 1
        || args.values(QStringLiteral("--for")).size() > 1 || args.values(QStringLiteral("--method")).size() > 1
        || args.values(QStringLiteral("--path")).size() > 1 || args.values(QStringLiteral("--git")).size() > 1
        || args.values(QStringLiteral("--repo")).size() > 1)
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
    if (args.value(QStringLiteral("--for")) == QLatin1String("session")) {
        params.insert(QStringLiteral("until_stop"), true); // the daemon says why it needs --sandbox
    } else if (args.has(QStringLiteral("--for"))) {
        QString why;
        const std::optional<qint64> seconds = parseDuration(args.value(QStringLiteral("--for")), &why);
        if (!seconds)
            return ctx.fail(why, kUsage);
        params.insert(QStringLiteral("for_s"), *seconds);
    }
    if (args.has(QStringLiteral("--raw-tcp")))
        params.insert(QStringLiteral("raw_tcp"), true); // the daemon says why a host without a port is refused
    // A rule of single requests; the daemon checks what each may hold and how they combine.
    for (const char *option : {"method", "path", "git", "repo"}) {
        const QString flag = QStringLiteral("--") + QLatin1String(option);
        if (args.has(flag))
            params.insert(QLatin1String(option), args.value(flag));
    }
    return ctx.show<proto::RuleInfo>(proto::method::RuleAdd, params, [](const proto::RuleInfo &r) { printRules({r}); });
}

int ruleRm(Context &ctx, const Args &args)
{
    bool ok = false;
    const qint64 id = args.positional.first().toLongLong(&ok);
    if (!ok || id < 1)
        return ctx.fail(QStringLiteral("'%1' is not a rule id; see airlockctl rule ls").arg(args.positional.first()), kUsage);
    return ctx.showJsonOnly<proto::IdParams>(proto::method::RuleRemove, proto::IdParams{id}.toJson());
}

} // namespace

void registerRuleCommands(Registry &registry)
{
    registry.add({QStringLiteral("rule ls"), QStringLiteral("[NAME]"),
                  QStringLiteral("egress rules (of one sandbox plus the global ones)"), {}, {}, 0, 1, true, ruleLs});
    registry.add({QStringLiteral("rule add"),
                  QStringLiteral("(--sandbox NAME | --global) --action allow|deny --host PATTERN [--port P] [--for DURATION|session] "
                                 "[--raw-tcp] [--method M] [--path PATTERN | --git fetch|push [--repo PATTERN]]"),
                  QStringLiteral("add an egress rule (--raw-tcp: the host:port may carry bytes that are neither TLS nor "
                                 "HTTP for that host; --method/--path/--git: the rule decides single requests on an "
                                 "intercepted host)"),
                  {QStringLiteral("--sandbox"), QStringLiteral("--action"), QStringLiteral("--host"), QStringLiteral("--port"),
                   QStringLiteral("--for"), QStringLiteral("--method"), QStringLiteral("--path"), QStringLiteral("--git"),
                   QStringLiteral("--repo")},
                  {QStringLiteral("--global"), QStringLiteral("--raw-tcp")}, 0, 0, true, ruleAdd});
    registry.add({QStringLiteral("rule rm"), QStringLiteral("ID"), QStringLiteral("remove an egress rule"), {}, {}, 1, 1, true, ruleRm});
}

} // namespace airlock::ctl
