// snapshot create | ls | restore | rm, and fork.
#include "ctl/command.h"
#include "ctl/duration.h"
#include "core/isotime.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"
#include "protocol/snapshots.h"

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
    const QString sandbox = args.positional.at(0);
    const proto::SnapshotCreateParams params{sandbox, args.value(QStringLiteral("--label")), args.has(QStringLiteral("--memory"))};
    return ctx.show<proto::SnapshotInfo>(proto::method::SnapshotCreate, params.toJson(), [&sandbox](const proto::SnapshotInfo &s) {
        if (s.memory.value_or(false))
            std::printf("snapshot %lld of %s, with %lld MiB of memory\n", static_cast<long long>(s.id), qPrintable(sandbox),
                        static_cast<long long>(s.memoryBytes.value_or(0) >> 20));
        else
            std::printf("snapshot %lld of %s\n", static_cast<long long>(s.id), qPrintable(sandbox));
    });
}

// snapshot auto NAME [--every D] [--keep N] | --off: the automatic checkpoints' schedule.
int schedule(Context &ctx, const Args &args)
{
    proto::CheckpointSchedule params{args.positional.at(0), std::nullopt, std::nullopt};
    if (args.has(QStringLiteral("--off")))
        params.everySeconds = 0;
    if (args.has(QStringLiteral("--every"))) {
        QString why;
        params.everySeconds = parseDuration(args.value(QStringLiteral("--every")), &why);
        if (!params.everySeconds)
            return ctx.fail(QStringLiteral("--every: %1").arg(why), kUsage);
    }
    if (args.has(QStringLiteral("--keep"))) {
        bool okNumber = false;
        params.keep = args.value(QStringLiteral("--keep")).toInt(&okNumber);
        if (!okNumber)
            return ctx.fail(QStringLiteral("--keep needs a number, got \"%1\"").arg(args.value(QStringLiteral("--keep"))), kUsage);
    }
    return ctx.show<proto::CheckpointSchedule>(proto::method::SnapshotSchedule, params.toJson(), [](const proto::CheckpointSchedule &s) {
        if (s.everySeconds.value_or(0) == 0)
            std::printf("%s: no automatic checkpoints\n", qPrintable(s.sandbox));
        else
            std::printf("%s: a checkpoint every %lld s while it runs, the latest %d kept\n", qPrintable(s.sandbox),
                        static_cast<long long>(*s.everySeconds), s.keep.value_or(0));
    });
}

int list(Context &ctx, const Args &args)
{
    const proto::SnapshotRef params{args.positional.at(0), std::nullopt};
    return ctx.show<QList<proto::SnapshotInfo>>(proto::method::SnapshotList, params.toJson(), [](const QList<proto::SnapshotInfo> &all) {
        std::printf("%-6s %-7s %-22s %-8s %-9s %s\n", "ID", "PARENT", "CREATED", "CURRENT", "MEMORY", "LABEL");
        for (const proto::SnapshotInfo &s : all) {
            const QString memory = s.memory.value_or(false) ? QStringLiteral("%1M").arg(s.memoryBytes.value_or(0) >> 20) : QStringLiteral("-");
            const QString label = s.automatic.value_or(false) && s.label.isEmpty() ? QStringLiteral("(automatic)") : s.label;
            std::printf("%-6lld %-7s %-22s %-8s %-9s %s\n", static_cast<long long>(s.id),
                        s.parent ? qPrintable(QString::number(*s.parent)) : "-", qPrintable(isoTimeSeconds(s.created)),
                        s.current.value_or(false) ? "*" : "", qPrintable(memory), qPrintable(label));
        }
    });
}

// restore answers with the sandbox as it is now, remove with {sandbox, id}.
template <typename Reply>
int byId(Context &ctx, const Args &args, const QString &method)
{
    qint64 id = 0;
    if (!parseId(ctx, args.positional.at(1), &id))
        return kUsage;
    return ctx.showJsonOnly<Reply>(method, proto::SnapshotRef{args.positional.at(0), id}.toJson());
}

int fork(Context &ctx, const Args &args)
{
    qint64 id = 0;
    if (!parseId(ctx, args.positional.at(1), &id))
        return kUsage;
    const proto::ForkParams params{args.positional.at(0), id, args.positional.at(2), args.has(QStringLiteral("--start"))};
    return ctx.show<proto::SandboxCreated>(proto::method::SandboxFork, params.toJson(), [](const proto::SandboxCreated &s) {
        std::printf("%s: %s, ip %s\n", qPrintable(s.name), qPrintable(proto::toString(s.state)), qPrintable(s.ip));
    });
}

} // namespace

void registerSnapshotCommands(Registry &registry)
{
    registry.add({QStringLiteral("snapshot create"), QStringLiteral("NAME [--label L] [--memory]"),
                  QStringLiteral("freeze the sandbox's disk as a snapshot (--memory: its running processes too)"),
                  {QStringLiteral("--label")}, {QStringLiteral("--memory")}, 1, 1, true, create});
    registry.add({QStringLiteral("snapshot ls"), QStringLiteral("NAME"), QStringLiteral("list a sandbox's snapshots"),
                  {}, {}, 1, 1, true, list});
    registry.add({QStringLiteral("snapshot auto"), QStringLiteral("NAME [--every DURATION] [--keep N] [--off]"),
                  QStringLiteral("checkpoints taken on a schedule while it runs (the latest N kept; labelled ones always stay)"),
                  {QStringLiteral("--every"), QStringLiteral("--keep")}, {QStringLiteral("--off")}, 1, 1, true, schedule});
    registry.add({QStringLiteral("snapshot restore"), QStringLiteral("NAME ID"),
                  QStringLiteral("go back to a snapshot (a running sandbox restarts; one with memory resumes)"), {}, {}, 2, 2, true,
                  [](Context &ctx, const Args &args) { return byId<proto::SandboxRow>(ctx, args, proto::method::SnapshotRestore); }});
    registry.add({QStringLiteral("snapshot rm"), QStringLiteral("NAME ID"),
                  QStringLiteral("remove a snapshot (its layer merges into the one above, live if it runs)"), {}, {}, 2, 2, true,
                  [](Context &ctx, const Args &args) { return byId<proto::SnapshotRef>(ctx, args, proto::method::SnapshotRemove); }});
    registry.add({QStringLiteral("fork"), QStringLiteral("NAME ID NEWNAME [--start]"),
                  QStringLiteral("a new sandbox from a snapshot (fresh name, MAC and address); "
                                 "of a checkpoint with --start, it runs on from the checkpoint"), {}, {QStringLiteral("--start")},
                  3, 3, true, fork});
}

} // namespace airlock::ctl
