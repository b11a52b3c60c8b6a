// snapshot create | ls | restore | rm, and fork.
#include "ctl/command.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>

namespace airlock::ctl {

namespace {

bool parseId(Context &ctx, const QString &text, qint64 *id)
{
    bool okNumber = false;
    *id = text.toLongLong(&okNumber);
    if (!okNumber || *id <= 0) {
        ctx.fail(QStringLiteral("snapshot ids are positive numbers (see `airlockctl snapshot ls NAME`), got \"%1\"").arg(text), kUsage);
        return false;
    }
    return true;
}

int create(Context &ctx, const Args &args)
{
    const auto r = ctx.call(QStringLiteral("snapshot.create"), {{QStringLiteral("sandbox"), args.positional.at(0)},
                                                                {QStringLiteral("label"), args.value(QStringLiteral("--label"))}});
    if (!r)
        return kFailed;
    if (ctx.json)
        ctx.printJson(*r);
    else
        std::printf("snapshot %lld of %s\n", r->toObject().value(QLatin1String("id")).toInteger(), qPrintable(args.positional.at(0)));
    return 0;
}

int list(Context &ctx, const Args &args)
{
    const auto r = ctx.call(QStringLiteral("snapshot.list"), {{QStringLiteral("sandbox"), args.positional.at(0)}});
    if (!r)
        return kFailed;
    if (ctx.json) {
        ctx.printJson(*r);
        return 0;
    }
    std::printf("%-6s %-7s %-22s %-8s %s\n", "ID", "PARENT", "CREATED", "CURRENT", "LABEL");
    for (const QJsonValue &v : r->toArray()) {
        const QJsonObject o = v.toObject();
        std::printf("%-6lld %-7s %-22s %-8s %s\n", o.value(QLatin1String("id")).toInteger(),
                    o.value(QLatin1String("parent")).isNull() ? "-" : qPrintable(QString::number(o.value(QLatin1String("parent")).toInteger())),
                    qPrintable(o.value(QLatin1String("created")).toString()),
                    o.value(QLatin1String("current")).toBool() ? "*" : "",
                    qPrintable(o.value(QLatin1String("label")).toString()));
    }
    return 0;
}

int byId(Context &ctx, const Args &args, const QString &method)
{
    qint64 id = 0;
    if (!parseId(ctx, args.positional.at(1), &id))
        return kUsage;
    const auto r = ctx.call(method, {{QStringLiteral("sandbox"), args.positional.at(0)}, {QStringLiteral("id"), id}});
    if (!r)
        return kFailed;
    if (ctx.json)
        ctx.printJson(*r);
    return 0;
}

int fork(Context &ctx, const Args &args)
{
    qint64 id = 0;
    if (!parseId(ctx, args.positional.at(1), &id))
        return kUsage;
    QJsonObject params{{QStringLiteral("sandbox"), args.positional.at(0)}, {QStringLiteral("id"), id},
                       {QStringLiteral("new_name"), args.positional.at(2)}};
    if (args.has(QStringLiteral("--start")))
        params.insert(QStringLiteral("start"), true);
    const auto r = ctx.call(QStringLiteral("sandbox.fork"), params);
    if (!r)
        return kFailed;
    if (ctx.json)
        ctx.printJson(*r);
    else
        std::printf("%s: %s, ip %s\n", qPrintable(r->toObject().value(QLatin1String("name")).toString()),
                    qPrintable(r->toObject().value(QLatin1String("state")).toString()),
                    qPrintable(r->toObject().value(QLatin1String("ip")).toString()));
    return 0;
}

} // namespace

void registerSnapshotCommands(Registry &registry)
{
    registry.add({QStringLiteral("snapshot create"), QStringLiteral("NAME [--label L]"),
                  QStringLiteral("freeze the sandbox's disk as a snapshot"), {QStringLiteral("--label")}, {}, 1, 1, true, create});
    registry.add({QStringLiteral("snapshot ls"), QStringLiteral("NAME"), QStringLiteral("list a sandbox's snapshots"),
                  {}, {}, 1, 1, true, list});
    registry.add({QStringLiteral("snapshot restore"), QStringLiteral("NAME ID"),
                  QStringLiteral("go back to a snapshot (a running sandbox restarts)"), {}, {}, 2, 2, true,
                  [](Context &ctx, const Args &args) { return byId(ctx, args, QStringLiteral("snapshot.restore")); }});
    registry.add({QStringLiteral("snapshot rm"), QStringLiteral("NAME ID"),
                  QStringLiteral("remove a snapshot nothing builds on"), {}, {}, 2, 2, true,
                  [](Context &ctx, const Args &args) { return byId(ctx, args, QStringLiteral("snapshot.remove")); }});
    registry.add({QStringLiteral("fork"), QStringLiteral("NAME ID NEWNAME [--start]"),
                  QStringLiteral("a new sandbox from a snapshot (fresh name, MAC and address)"), {}, {QStringLiteral("--start")},
                  3, 3, true, fork});
}

} // namespace airlock::ctl
