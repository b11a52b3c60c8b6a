// `snapshot rm` of a snapshot another layer builds on: its frozen layer L is merged away.
// When exactly one layer C builds on L, C is rebased onto L's parent with qemu-img's safe
// rebase: C receives every block it read through L, so C (and whatever builds on C) sees
// the same disk before and after, and L can go. A crash half-way leaves C still backed by L
// with some of L's blocks copied in: the same content, so reconcile simply retries.
// With several children (forks, or a restore's old top still in use) the merge would change
// what the others see, so it is refused. libvirt's storage API cannot rebase a volume, and
// a running VM must not have its backing files rewritten behind its back, so for the running
// sandbox QEMU does the merge live and the guest never stops:
// - C is the running disk (the snapshot removed is the latest): C pulls L's blocks in (a block
//   pull down to L's parent, virDomainBlockRebase), as the safe rebase would.
// - C is a later snapshot's frozen layer under the running disk: QEMU pulls only into the top,
//   so C's blocks are committed down into L instead (virDomainBlockCommit, top C, base L); L then
//   holds the later snapshot's disk and stands for it, and C goes. A commit rewrites L, so once
//   it has started the removed snapshot is gone even if the commit fails: L stays in the chain
//   (the guest reads the same disk either way) and its space stays with the sandbox.
// Forks or other sandboxes reading through C must be stopped (or removed) first.
#include "core/crashpoint.h"
#include "core/logging.h"
#include "libvirtconnection.h"
#include "sandboxengine.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QThread>

namespace airlock {

namespace {
constexpr int kRebaseTimeoutMs = 30 * 60 * 1000;
constexpr char kDisk[] = "vda";

// Waits for the disk's block job to end; then the live chain says whether it did its work.
Status waitForBlockJob(virDomainPtr dom, QDeadlineTimer deadline)
{
    for (;;) {
        virDomainBlockJobInfo info{};
        const int r = virDomainGetBlockJobInfo(dom, kDisk, &info, 0);
        if (r == 0)
            return ok();
        if (r < 0)
            return LibvirtConnection::lastError(QStringLiteral("cannot follow the merge"));
        if (deadline.hasExpired())
            return Error{QStringLiteral("the merge did not finish in time"), QStringLiteral("it was cancelled; try again")};
        QThread::msleep(100);
    }
}

// Does the running domain's disk still read through `path`?
Result<bool> liveChainHas(virDomainPtr dom, const QString &path)
{
    char *xml = virDomainGetXMLDesc(dom, 0);
    if (!xml)
        return LibvirtConnection::lastError(QStringLiteral("cannot read the running disk's chain"));
    return takeVirString(xml).contains(QStringLiteral("'%1'").arg(path));
}

// The backing file a stopped disk's header names (empty for none).
Result<QString> backingFileOf(const QString &path)
{
    QProcess qemuImg;
    qemuImg.start(QStringLiteral("qemu-img"), {QStringLiteral("info"), QStringLiteral("-U"), QStringLiteral("--output=json"), path});
    if (!qemuImg.waitForFinished(60000) || qemuImg.exitStatus() != QProcess::NormalExit || qemuImg.exitCode() != 0)
        return Error{QStringLiteral("cannot read the header of %1").arg(path), QString::fromLocal8Bit(qemuImg.readAllStandardError()).trimmed()};
    return QJsonDocument::fromJson(qemuImg.readAllStandardOutput()).object().value(QLatin1String("backing-filename")).toString();
}

} // namespace

Status SandboxEngine::rebaseLayer(const QString &childPath, const QString &basePath, const QString &baseFormat)
{
    QProcess qemuImg;
    qemuImg.start(QStringLiteral("qemu-img"), {QStringLiteral("rebase"), QStringLiteral("-f"), QStringLiteral("qcow2"),
                                               QStringLiteral("-b"), basePath, QStringLiteral("-F"), baseFormat, childPath});
    if (!qemuImg.waitForStarted(10000))
        return Error{QStringLiteral("cannot run qemu-img"), QStringLiteral("install qemu-utils")};
    if (!qemuImg.waitForFinished(kRebaseTimeoutMs) || qemuImg.exitStatus() != QProcess::NormalExit || qemuImg.exitCode() != 0) {
        qemuImg.kill();
        return Error{QStringLiteral("cannot merge the snapshot's layer into %1").arg(childPath),
                     QString::fromLocal8Bit(qemuImg.readAllStandardError()).trimmed()};
    }
    return ok();
}

// The merge operation's record, as reconcileMerge reads it.
QJsonObject SandboxEngine::mergeState(qint64 snapshotId, qint64 layer, qint64 child, const QString &childPath, const QString &basePath,
                                      const QString &baseFormat, const QStringList &domains)
{
    return {{QStringLiteral("snapshot"), snapshotId}, {QStringLiteral("layer"), layer},
            {QStringLiteral("child"), child}, {QStringLiteral("child_path"), childPath},
            {QStringLiteral("base_path"), basePath}, {QStringLiteral("base_format"), baseFormat},
            {QStringLiteral("domains"), QJsonArray::fromStringList(domains)}, {QStringLiteral("volumes"), QJsonArray{}}};
}

// What a merged layer's child is rebased onto: the layer's parent layer (returned, with its
// path and format), or the image's root disk when it has none (a null parent).
Result<QVariant> SandboxEngine::mergeBase(const QString &sandbox, qint64 sid, qint64 layer, QString *basePath, QString *baseFormat)
{
    *baseFormat = QStringLiteral("qcow2");
    const auto parent = m_store.firstRow(QStringLiteral("SELECT parent_id FROM layers WHERE id = ?"), {layer});
    if (!parent || !parent.value())
        return Error{QStringLiteral("layer %1 is not in the store").arg(layer), {}};
    const QVariant grandparent = parent.value()->value(0);
    if (grandparent.isNull()) {
        const auto image = m_store.firstRow(QStringLiteral("SELECT image FROM sandboxes WHERE id = ?"), {sid});
        if (!image || !image.value())
            return Error{QStringLiteral("sandbox %1 has no image").arg(sandbox), {}};
        auto files = checkImage(image.value()->value(0).toString());
        if (!files)
            return files.error();
        *basePath = files->root;
        *baseFormat = QStringLiteral("raw");
    } else {
        auto path = layerVolume(grandparent.toLongLong());
        if (!path)
            return path.error();
        *basePath = path.value();
    }
    return grandparent;
}

Status SandboxEngine::mergeSnapshotLayer(const QString &sandbox, qint64 sid, qint64 snapshotId, qint64 layer)
{
    const auto children = m_store.rows(QStringLiteral("SELECT id, volume FROM layers WHERE parent_id = ?"), {layer});
    if (!children)
        return children.error();
    if (children->size() != 1)
        return Error{QStringLiteral("snapshot %1 of %2 cannot be removed").arg(snapshotId).arg(sandbox),
                     QStringLiteral("%1 other layers build on it (a fork of it beside the sandbox's own later disk); "
                                    "remove the forks first").arg(children->size()),
                     ErrorKind::Conflict};
    const qint64 child = children->first().value(0).toLongLong();
    const QString childVolume = children->first().value(1).toString();

    // Every sandbox whose disk reads through the child: they must all be stopped.
    const auto users = m_store.rows(
        QStringLiteral("WITH RECURSIVE below(id) AS (SELECT ? UNION SELECT l.id FROM layers l JOIN below b ON l.parent_id = b.id) "
                       "SELECT DISTINCT s.name FROM sandboxes s JOIN layers l ON l.sandbox_id = s.id WHERE l.id IN (SELECT id FROM below)"),
        {child});
    if (!users)
        return users.error();
    QStringList running, affected;
    for (const QSqlRecord &r : users.value()) {
        affected << objectName(r.value(0).toString());
        const QString state = stateOf(m_libvirt.get(), objectName(r.value(0).toString()));
        if (state != QLatin1String("stopped") && state != QLatin1String("missing"))
            running << r.value(0).toString();
    }
    if (running.size() == 1 && affected.size() == 1 && running.first() == sandbox) {
        const auto top = m_store.firstRow(QStringLiteral("SELECT top_layer FROM sandboxes WHERE id = ?"), {sid});
        const auto above = m_store.firstRow(QStringLiteral("SELECT count(*) FROM layers WHERE parent_id = ?"), {child});
        if (top && top.value() && top.value()->value(0).toLongLong() == child)
            return mergeLayerLive(sandbox, sid, snapshotId, layer, child, LiveMerge::PullIntoTop);
        if (above && above.value() && above.value()->value(0).toInt() == 1) // the commit rewrites only the one disk above C
            return mergeLayerLive(sandbox, sid, snapshotId, layer, child, LiveMerge::CommitIntoLayer);
    }
    if (!running.isEmpty())
        return Error{QStringLiteral("snapshot %1 of %2 cannot be merged away while %3 runs").arg(snapshotId).arg(sandbox, running.join(QStringLiteral(", "))),
                     QStringLiteral("later layers build on it and merging rewrites a disk a running VM reads; "
                                    "stop %1 first (airlockctl stop)").arg(running.join(QStringLiteral(", "))),
                     ErrorKind::Conflict};

    QString basePath, baseFormat;
    const Result<QVariant> grandparent = mergeBase(sandbox, sid, layer, &basePath, &baseFormat);
    if (!grandparent)
        return grandparent.error();
    auto childPath = m_pool->volumePath(childVolume);
    if (!childPath)
        return childPath.error();

    Result<qint64> op = beginOperation(QStringLiteral("merge"), sandbox,
                                       mergeState(snapshotId, layer, child, childPath.value(), basePath, baseFormat, affected));
    if (!op)
        return op.error();
    if (Status s = rebaseLayer(childPath.value(), basePath, baseFormat); !s) {
        endOperation(op.value()); // the child still reads through L: nothing changed for anyone
        return s;
    }
    crashPoint("merge:rebased");
    for (const QString &domain : affected) // they must read the new chain from the headers
        if (Status s = forgetBackingChain(domain); !s)
            qCWarning(lcEngine) << s.error().message();
    if (Status s = recordMerge(snapshotId, layer, child, grandparent.value(), op.value()); !s)
        return s; // the operation stays for reconcile, which records it again
    m_pool->refresh();
    collectLayers();
    qCInfo(lcEngine) << "merged snapshot" << snapshotId << "of" << sandbox << "into the layer above it";
    return ok();
}

// QEMU merges while the guest runs: C pulls L's blocks in, or C's blocks are committed down
// into L (see the top of this file); the guest reads the same disk throughout.
Status SandboxEngine::mergeLayerLive(const QString &sandbox, qint64 sid, qint64 snapshotId, qint64 layer, qint64 child, LiveMerge how)
{
    QString basePath, baseFormat;
    const Result<QVariant> grandparent = mergeBase(sandbox, sid, layer, &basePath, &baseFormat);
    if (!grandparent)
        return grandparent.error();
    auto layerPath = layerVolume(layer);
    auto childPath = layerVolume(child);
    if (!layerPath)
        return layerPath.error();
    if (!childPath)
        return childPath.error();
    const QString domain = objectName(sandbox);
    VirDomain dom = lookupDomain(m_libvirt.get(), domain);
    if (!dom.get())
        return LibvirtConnection::lastError(QStringLiteral("cannot find the domain of %1").arg(sandbox));
    const bool commit = how == LiveMerge::CommitIntoLayer;
    if (commit) { // a restore since may have left C on a branch the running disk no longer reads
        const Result<bool> reads = liveChainHas(dom.get(), childPath.value());
        if (!reads)
            return reads.error();
        if (!reads.value())
            return Error{QStringLiteral("snapshot %1 of %2 cannot be merged away while it runs").arg(snapshotId).arg(sandbox),
                         QStringLiteral("the layers building on it are not under the running disk; stop %1 first (airlockctl stop)").arg(sandbox),
                         ErrorKind::Conflict};
    }
    QJsonObject state = mergeState(snapshotId, layer, child, childPath.value(), basePath, baseFormat, {domain});
    state.insert(QStringLiteral("live"), true);
    state.insert(QStringLiteral("commit"), commit);
    state.insert(QStringLiteral("layer_path"), layerPath.value());
    if (commit) {
        auto topPath = m_store.firstRow(QStringLiteral("SELECT volume FROM layers WHERE parent_id = ?"), {child});
        if (!topPath || !topPath.value())
            return Error{QStringLiteral("cannot read the layer above snapshot %1").arg(snapshotId), topPath ? QString() : topPath.error().why};
        auto path = m_pool->volumePath(topPath.value()->value(0).toString());
        if (!path)
            return path.error();
        state.insert(QStringLiteral("above_path"), path.value());
    }
    Result<qint64> op = beginOperation(QStringLiteral("merge"), sandbox, state);
    if (!op)
        return op.error();
    const int started = commit ? virDomainBlockCommit(dom.get(), kDisk, layerPath->toUtf8().constData(), childPath->toUtf8().constData(), 0, 0)
                               : virDomainBlockRebase(dom.get(), kDisk, basePath.toUtf8().constData(), 0, 0);
    if (started < 0) {
        endOperation(op.value()); // nothing started: no file changed
        return LibvirtConnection::lastError(QStringLiteral("cannot merge snapshot %1 of %2 while it runs").arg(snapshotId).arg(sandbox));
    }
    crashPoint(commit ? "merge:committing" : "merge:pulling");
    if (Status s = waitForBlockJob(dom.get(), QDeadlineTimer(kRebaseTimeoutMs)); !s) {
        qCWarning(lcEngine) << s.error().message();
        virDomainBlockJobAbort(dom.get(), kDisk, 0);
    }
    return finishLiveMerge(dom.get(), op.value(), state, grandparent.value());
}

// The job has ended: the running chain says whether it did its work.
Status SandboxEngine::finishLiveMerge(virDomainPtr dom, qint64 opId, const QJsonObject &state, const QVariant &grandparent)
{
    const qint64 snapshotId = state.value(QLatin1String("snapshot")).toInteger();
    const qint64 layer = state.value(QLatin1String("layer")).toInteger();
    const qint64 child = state.value(QLatin1String("child")).toInteger();
    const bool commit = state.value(QLatin1String("commit")).toBool();
    const QString leaving = state.value(QLatin1String(commit ? "child_path" : "layer_path")).toString();
    const Result<bool> stillReads = liveChainHas(dom, leaving);
    if (!stillReads || stillReads.value()) {
        if (!commit) { // the job failed or was cancelled: nothing changed for the guest
            endOperation(opId);
            return stillReads ? Status(Error{QStringLiteral("the merge of snapshot %1 stopped before it finished").arg(snapshotId),
                                             QStringLiteral("the snapshot is kept; try again, or stop the sandbox first")})
                              : Status(stillReads.error());
        }
        // L may hold some of C's blocks now: it no longer is the removed snapshot's disk.
        if (Status s = m_store.transaction([&] { return forgetSnapshotRow(snapshotId); }); !s)
            return s; // the operation stays for reconcile, which forgets it again
        endOperation(opId);
        return Error{QStringLiteral("snapshot %1 is removed, but merging its layer stopped before it finished").arg(snapshotId),
                     QStringLiteral("the sandbox reads the same disk; the layer's space stays in use until the sandbox is removed")};
    }
    // The next boot reads the new chain from the headers.
    if (Status s = forgetBackingChain(QString::fromUtf8(virDomainGetName(dom))); !s)
        qCWarning(lcEngine) << s.error().message();
    if (Status s = commit ? recordCommit(snapshotId, layer, child, opId) : recordMerge(snapshotId, layer, child, grandparent, opId); !s)
        return s; // the operation stays for reconcile, which records it again
    m_pool->refresh();
    collectLayers();
    qCInfo(lcEngine) << "merged snapshot" << snapshotId << "live under the running disk of" << virDomainGetName(dom);
    return ok();
}

// The merge in the store, in one transaction: the snapshot goes, `changes` move the layers,
// and the merge operation ends.
Status SandboxEngine::recordMergeRows(qint64 snapshotId, qint64 opId, const QList<std::pair<const char *, QVariantList>> &changes)
{
    return m_store.transaction([&]() -> Status {
        if (Status s = forgetSnapshotRow(snapshotId); !s)
            return s;
        for (const auto &[sql, binds] : changes + QList<std::pair<const char *, QVariantList>>{{"DELETE FROM operations WHERE id = ?", {opId}}}) {
            if (Result<qint64> w = m_store.write(QString::fromLatin1(sql), binds); !w)
                return Error{QStringLiteral("cannot record the merge of snapshot %1").arg(snapshotId), w.error().why};
        }
        return ok();
    });
}

// After a rebase or a pull C holds L's blocks: C builds on L's parent, and L goes.
Status SandboxEngine::recordMerge(qint64 snapshotId, qint64 layer, qint64 child, const QVariant &grandparent, qint64 opId)
{
    return recordMergeRows(snapshotId, opId, {{"UPDATE layers SET parent_id = ? WHERE id = ?", {grandparent, child}},
                                              {"UPDATE layers SET sandbox_id = NULL WHERE id = ?", {layer}}});
}

// After a commit L holds C's disk: C's snapshot and the layer above C move onto L, and C goes.
Status SandboxEngine::recordCommit(qint64 snapshotId, qint64 layer, qint64 child, qint64 opId)
{
    return recordMergeRows(snapshotId, opId, {{"UPDATE snapshots SET layer_id = ? WHERE layer_id = ?", {layer, child}},
                                              {"UPDATE layers SET parent_id = ? WHERE parent_id = ?", {layer, child}},
                                              {"UPDATE layers SET sandbox_id = NULL WHERE id = ?", {child}}});
}

// After a crash: the safe rebase is repeatable, so it runs again and the store follows.
// A live merge whose guest still runs is QEMU's to finish: wait for its job, then the running
// chain says whether it did.
void SandboxEngine::reconcileMerge(qint64 opId, const QJsonObject &state)
{
    const qint64 snapshotId = state.value(QLatin1String("snapshot")).toInteger();
    const qint64 layer = state.value(QLatin1String("layer")).toInteger();
    const qint64 child = state.value(QLatin1String("child")).toInteger();
    const auto still = m_store.firstRow(QStringLiteral("SELECT parent_id FROM layers WHERE id = ?"), {layer});
    const auto childRow = m_store.firstRow(QStringLiteral("SELECT parent_id FROM layers WHERE id = ?"), {child});
    if (!still || !still.value() || !childRow || !childRow.value() || childRow.value()->value(0).toLongLong() != layer) {
        endOperation(opId); // already recorded, or the layers are gone
        return;
    }
    if (state.value(QLatin1String("live")).toBool()) {
        const QJsonArray domains = state.value(QLatin1String("domains")).toArray();
        VirDomain dom = lookupDomain(m_libvirt.get(), domains.isEmpty() ? QString() : domains.first().toString());
        if (dom.get() && virDomainIsActive(dom.get()) == 1) {
            if (Status s = waitForBlockJob(dom.get(), QDeadlineTimer(kRebaseTimeoutMs)); !s)
                qCWarning(lcEngine) << "reconcile: the live merge of snapshot" << snapshotId << ":" << s.error().message();
            if (Status s = finishLiveMerge(dom.get(), opId, state, still.value()->value(0)); !s)
                qCWarning(lcEngine) << "reconcile:" << s.error().message();
            return;
        }
        // Stopped since: its disk is a file again. A commit that finished left the disk above C
        // naming L; otherwise the safe rebase below finishes the merge (C still reads its own
        // blocks first, so what a commit copied into L changes nothing C shows).
        if (state.value(QLatin1String("commit")).toBool()) {
            const Result<QString> backing = backingFileOf(state.value(QLatin1String("above_path")).toString());
            if (backing && backing.value() == state.value(QLatin1String("layer_path")).toString()) {
                for (const QJsonValue &domain : domains)
                    forgetBackingChain(domain.toString());
                if (recordCommit(snapshotId, layer, child, opId))
                    collectLayers();
                return;
            }
        }
    }
    if (Status s = rebaseLayer(state.value(QLatin1String("child_path")).toString(), state.value(QLatin1String("base_path")).toString(),
                               state.value(QLatin1String("base_format")).toString());
        !s) {
        qCWarning(lcEngine) << "reconcile: the merge of snapshot" << snapshotId << "failed again:" << s.error().message();
        endOperation(opId);
        return;
    }
    for (const QJsonValue &domain : state.value(QLatin1String("domains")).toArray())
        forgetBackingChain(domain.toString());
    if (recordMerge(snapshotId, layer, child, still.value()->value(0), opId))
        collectLayers();
}

} // namespace airlock
