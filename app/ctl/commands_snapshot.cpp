// snapshot create | ls | restore | rm, and fork.
#include "ctl/command.h"
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

int list(Context &ctx, const Args &args)
{
    const proto::SnapshotRef params{args.positional.at(0), std::nullopt};
    return ctx.show<QList<proto::SnapshotInfo>>(proto::method::SnapshotList, params.toJson(), [](const QList<proto::SnapshotInfo> &all) {
        std::printf("%-6s %-7s %-22s %-8s %-9s %s\n", "ID", "PARENT", "CREATED", "CURRENT", "MEMORY", "LABEL");
        for (const proto::SnapshotInfo &s : all) {
            const QString memory = s.memory.value_or(false) ? QStringLiteral("%1M").arg(s.memoryBytes.value_or(0) >> 20) : QStringLiteral("-");
            std::printf("%-6lld %-7s %-22s %-8s %-9s %s\n", static_cast<long long>(s.id),
                        s.parent ? qPrintable(QString::number(*s.parent)) : "-", qPrintable(isoTimeSeconds(s.created)),
                        s.current.value_or(false) ? "*" : "", qPrintable(memory), qPrintable(s.label));
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
    registry.add({QStringLiteral("snapshot restore"), QStringLiteral("NAME ID"),
                  QStringLiteral("go back to a snapshot (a running sandbox restarts; one with memory resumes)"), {}, {}, 2, 2, true,
                  [](Context &ctx, const Args &args) { return byId<proto::SandboxRow>(ctx, args, proto::method::SnapshotRestore); }});
    registry.add({QStringLiteral("snapshot rm"), QStringLiteral("NAME ID"),
                  QStringLiteral("remove a snapshot nothing builds on"), {}, {}, 2, 2, true,
                  [](Context &ctx, const Args &args) { return byId<proto::SnapshotRef>(ctx, args, proto::method::SnapshotRemove); }});
    registry.add({QStringLiteral("fork"), QStringLiteral("NAME ID NEWNAME [--start]"),
                  QStringLiteral("a new sandbox from a snapshot (fresh name, MAC and address)"), {}, {QStringLiteral("--start")},
                  3, 3, true, fork});
}

} // namespace airlock::ctl
