// Snapshots, restore and fork: the layer tree of the layers table. A snapshot freezes the
// sandbox's top layer and continues in a new overlay above it; restore and fork start a new
// overlay above a frozen layer. A layer with children is never deleted; removing a snapshot
// other layers build on merges its layer into the one above (layermerge.cpp).
#include "core/crashpoint.h"
#include "core/diskspace.h"
#include "core/logging.h"
#include "libvirtconnection.h"
#include "sandboxengine.h"
#include "virhandle.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QSqlRecord>
#include <QUuid>
#include <libvirt/virterror.h>

namespace airlock {

namespace {

QString now() { return QDateTime::currentDateTimeUtc().toString(Qt::ISODate); }

constexpr qint64 kSnapshotFreeBytes = 64 * 1024 * 1024;

Error noSnapshot(const QString &sandbox, qint64 id)
{
    return Error{QStringLiteral("sandbox %1 has no snapshot %2").arg(sandbox).arg(id),
                 QStringLiteral("see `airlockctl snapshot ls %1`").arg(sandbox), ErrorKind::NotFound};
}

} // namespace

Result<QSqlRecord> SandboxEngine::snapshotOf(const QString &sandbox, qint64 id, uid_t uid, const QString &sql, qint64 *sid)
{
    if (Status s = ensureLibvirt(); !s)
        return s.error();
    if (Status s = requireSandbox(sandbox, uid, sid); !s)
        return s.error();
    const auto row = m_store.firstRow(sql, {id, *sid});
    if (!row)
        return row.error();
    if (!*row)
        return noSnapshot(sandbox, id);
    return **row;
}

Result<QString> SandboxEngine::layerVolume(qint64 layer)
{
    const auto row = m_store.firstRow(QStringLiteral("SELECT volume FROM layers WHERE id = ?"), {layer});
    if (!row)
        return row.error();
    if (!*row)
        return Error{QStringLiteral("layer %1 is not in the store").arg(layer), {}, ErrorKind::NotFound};
    return m_pool->volumePath((*row)->value(0).toString());
}

Status SandboxEngine::pointDomainDisk(const QString &domain, const QString &oldPath, const QString &newPath)
{
    VirDomain dom = lookupDomain(m_libvirt.get(), domain);
    if (!dom.get())
        return LibvirtConnection::lastError(QStringLiteral("the domain %1 is gone").arg(domain));
    char *xml = virDomainGetXMLDesc(dom.get(), VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE);
    if (!xml)
        return LibvirtConnection::lastError(QStringLiteral("cannot read the definition of %1").arg(domain));
    QString def = takeVirString(xml);
    const QString from = QStringLiteral("file='%1'").arg(oldPath.toHtmlEscaped());
    if (!def.contains(from))
        return Error{QStringLiteral("the disk of %1 is not %2").arg(domain, oldPath),
                     QStringLiteral("it was changed behind Airlock's back")};
    def.replace(from, QStringLiteral("file='%1'").arg(newPath.toHtmlEscaped()));
    def = withoutBackingChain(def);
    if (!VirDomain(virDomainDefineXML(m_libvirt.get(), def.toUtf8().constData())))
        return LibvirtConnection::lastError(QStringLiteral("cannot point %1 at its new disk").arg(domain));
    return ok();
}

// After a live external snapshot libvirt writes the disk's whole backing chain into the
// definition and trusts it at the next start. Our layer files carry their chain in their
// qcow2 headers (and a merge changes it), so the definition keeps only the top file and
// libvirt reads the rest from the headers.
QString SandboxEngine::withoutBackingChain(QString def)
{
    const qsizetype first = def.indexOf(QLatin1String("<backingStore"));
    if (first < 0)
        return def;
    const qsizetype lastClose = def.lastIndexOf(QLatin1String("</backingStore>"));
    if (lastClose > first)
        return def.remove(first, lastClose + qsizetype(qstrlen("</backingStore>")) - first);
    const qsizetype selfClose = def.indexOf(QLatin1String("/>"), first);
    return selfClose > first ? def.remove(first, selfClose + 2 - first) : def;
}

Status SandboxEngine::forgetBackingChain(const QString &domain)
{
    VirDomain dom = lookupDomain(m_libvirt.get(), domain);
    if (!dom.get())
        return ok(); // nothing defined, nothing to forget
    char *xml = virDomainGetXMLDesc(dom.get(), VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE);
    if (!xml)
        return LibvirtConnection::lastError(QStringLiteral("cannot read the definition of %1").arg(domain));
    const QString def = takeVirString(xml);
    const QString stripped = withoutBackingChain(def);
    if (stripped == def)
        return ok();
    if (!VirDomain(virDomainDefineXML(m_libvirt.get(), stripped.toUtf8().constData())))
        return LibvirtConnection::lastError(QStringLiteral("cannot update the definition of %1").arg(domain));
    return ok();
}

void SandboxEngine::collectLayers()
{
    // Best effort: what stays (a volume libvirt would not delete, a failed read) is collected
    // on the next call; each failure is logged.
    for (;;) {
        const auto dead = m_store.rows(QStringLiteral("SELECT id, volume FROM layers l WHERE sandbox_id IS NULL AND NOT EXISTS "
                                                      "(SELECT 1 FROM layers c WHERE c.parent_id = l.id) AND NOT EXISTS "
                                                      "(SELECT 1 FROM snapshots s WHERE s.layer_id = l.id)"));
        if (!dead) {
            qCWarning(lcEngine) << "cannot look for unused layers:" << dead.error().message();
            return;
        }
        if (dead->isEmpty())
            return;
        for (const QSqlRecord &layer : *dead) {
            if (!m_pool->deleteVolume(layer.value(1).toString()))
                return;
            if (Result<qint64> d = m_store.write(QStringLiteral("DELETE FROM layers WHERE id = ?"), {layer.value(0)}); !d) {
                qCWarning(lcEngine) << "cannot forget the deleted layer" << layer.value(0).toLongLong() << ":" << d.error().message();
                return;
            }
        }
    }
}

namespace {

// Both a snapshot and a restore end the same way in the store: a new writable overlay
// above `parent` becomes the sandbox's top layer. Runs inside their transaction.
Result<qint64> pushTopLayer(Store &store, qint64 sid, qint64 parent, const QString &volume)
{
    Result<qint64> layer = store.write(QStringLiteral("INSERT INTO layers(sandbox_id, parent_id, volume, frozen, created) "
                                                      "VALUES(?, ?, ?, 0, ?)"),
                                       {sid, parent, volume, now()});
    if (!layer)
        return layer;
    if (Result<qint64> top = store.write(QStringLiteral("UPDATE sandboxes SET top_layer = ? WHERE id = ?"), {layer.value(), sid}); !top)
        return top.error();
    return layer;
}

Status finishOperation(Store &store, qint64 opId)
{
    Result<qint64> done = store.write(QStringLiteral("DELETE FROM operations WHERE id = ?"), {opId});
    return done ? ok() : Status(done.error());
}

} // namespace

// The store's side of a snapshot: the old top freezes, the new overlay becomes the top.
Result<qint64> SandboxEngine::recordSnapshot(qint64 sid, qint64 top, const QString &newVolume, const QString &label,
                                             qint64 opId, qint64 *parentOut)
{
    qint64 snapshotId = 0;
    qint64 parentSnapshot = 0;
    Status stored = m_store.transaction([&]() -> Status {
        auto parent = m_store.firstRow(QStringLiteral("SELECT id FROM snapshots WHERE sandbox_id = ? AND "
                                                      "layer_id = (SELECT parent_id FROM layers WHERE id = ?)"),
                                       {sid, top});
        if (!parent)
            return parent.error();
        if (parent.value())
            parentSnapshot = parent.value()->value(0).toLongLong();
        if (auto frozen = m_store.write(QStringLiteral("UPDATE layers SET frozen = 1 WHERE id = ?"), {top}); !frozen)
            return frozen.error();
        if (Result<qint64> layer = pushTopLayer(m_store, sid, top, newVolume); !layer)
            return layer.error();
        Result<qint64> snapshot =
            m_store.write(QStringLiteral("INSERT INTO snapshots(sandbox_id, layer_id, parent_id, label, created) VALUES(?, ?, ?, ?, ?)"),
                          {sid, top, parentSnapshot ? QVariant(parentSnapshot) : QVariant(QMetaType(QMetaType::LongLong)), label, now()});
        if (!snapshot)
            return snapshot.error();
        snapshotId = snapshot.value();
        return finishOperation(m_store, opId);
    });
    if (!stored)
        return Error{QStringLiteral("cannot record the snapshot"), stored.error().message()};
    *parentOut = parentSnapshot;
    return snapshotId;
}

// The store's side of a restore: a new overlay above `frozen` becomes the top.
Status SandboxEngine::recordRestore(qint64 sid, qint64 frozen, qint64 oldTop, const QString &newVolume, qint64 opId)
{
    Status stored = m_store.transaction([&]() -> Status {
        if (Result<qint64> layer = pushTopLayer(m_store, sid, frozen, newVolume); !layer)
            return layer.error();
        // The old top is no snapshot's layer; it goes unless something builds on it.
        if (auto orphaned = m_store.write(QStringLiteral("UPDATE layers SET sandbox_id = NULL WHERE id = ? AND frozen = 0"), {oldTop});
            !orphaned)
            return orphaned.error();
        return finishOperation(m_store, opId);
    });
    if (!stored)
        return Error{QStringLiteral("cannot record the restore"), stored.error().message()};
    return ok();
}

// After a crash in the middle of a snapshot or restore: if the domain already uses the new
// overlay the operation is finished in the store, otherwise the overlay is deleted.
void SandboxEngine::reconcileLayerOperation(qint64 opId, const QString &kind, const QString &sandbox, const QJsonObject &state)
{
    const QString newVolume = state.value(QLatin1String("volumes")).toArray().first().toString();
    auto newPath = m_pool->volumePath(newVolume);
    bool inUse = false;
    if (newPath) {
        VirDomain dom = lookupDomain(m_libvirt.get(), state.value(QLatin1String("domain")).toString());
        if (dom.get()) {
            for (unsigned flags : {0u, unsigned(VIR_DOMAIN_XML_INACTIVE)}) {
                if (takeVirString(virDomainGetXMLDesc(dom.get(), flags)).contains(QStringLiteral("file='%1'").arg(newPath.value())))
                    inUse = true;
            }
        }
    }
    qint64 sid = 0;
    if (const auto row = m_store.firstRow(QStringLiteral("SELECT id FROM sandboxes WHERE name = ?"), {sandbox}); row && row.value())
        sid = row.value()->value(0).toLongLong();
    const qint64 top = state.value(QLatin1String("top")).toInteger();
    if (inUse && sid) {
        qCInfo(lcEngine) << "reconcile: finishing the" << kind << "of" << sandbox;
        if (kind == QLatin1String("snapshot")) {
            qint64 parent = 0;
            recordSnapshot(sid, top, newVolume, state.value(QLatin1String("label")).toString(), opId, &parent);
        } else {
            recordRestore(sid, state.value(QLatin1String("frozen")).toInteger(), top, newVolume, opId);
            collectLayers();
        }
        return;
    }
    qCInfo(lcEngine) << "reconcile: rolling back the" << kind << "of" << sandbox;
    m_pool->deleteVolume(newVolume);
    endOperation(opId);
}

// The domain continues in the new overlay: a running one through a live external snapshot
// (the guest agent freezes the guest's filesystems around the switch: QUIESCE), a stopped
// one by pointing its definition at it.
Status SandboxEngine::switchToLayer(const QString &sandbox, bool running, const QString &oldPath, const QString &newPath)
{
    const QString domain = objectName(sandbox);
    if (!running)
        return pointDomainDisk(domain, oldPath, newPath);
    const QString xml = QStringLiteral("<domainsnapshot><disks><disk name='vda' snapshot='external' type='file'>"
                                       "<source file='%1'/><driver type='qcow2'/></disk></disks></domainsnapshot>")
                            .arg(newPath.toHtmlEscaped());
    VirDomain dom = lookupDomain(m_libvirt.get(), domain);
    const unsigned flags = VIR_DOMAIN_SNAPSHOT_CREATE_DISK_ONLY | VIR_DOMAIN_SNAPSHOT_CREATE_NO_METADATA |
                           VIR_DOMAIN_SNAPSHOT_CREATE_ATOMIC | VIR_DOMAIN_SNAPSHOT_CREATE_QUIESCE |
                           VIR_DOMAIN_SNAPSHOT_CREATE_REUSE_EXT;
    VirSnapshot snap(dom ? virDomainSnapshotCreateXML(dom.get(), xml.toUtf8().constData(), flags) : nullptr);
    if (!snap) {
        Error e = LibvirtConnection::lastError(QStringLiteral("cannot snapshot %1").arg(sandbox));
        if (e.why.contains(QLatin1String("agent")))
            e.why += QStringLiteral("; the guest agent must answer to quiesce the disk (is it still booting?)");
        return e;
    }
    return ok();
}

Result<QJsonObject> SandboxEngine::createSnapshot(const QString &sandbox, const QString &label, uid_t uid)
{
    if (Status s = ensureLibvirt(); !s)
        return s.error();
    qint64 sid = 0;
    if (Status s = requireSandbox(sandbox, uid, &sid); !s)
        return s.error();
    if (Status s = refuseIfEphemeral(sandbox, QStringLiteral("keep snapshots")); !s)
        return s.error();
    const auto row = m_store.firstRow(
        QStringLiteral("SELECT l.id, l.volume, l.parent_id FROM sandboxes s JOIN layers l ON l.id = s.top_layer WHERE s.id = ?"), {sid});
    if (!row)
        return row.error();
    if (!*row)
        return Error{QStringLiteral("sandbox %1 has no disk layer").arg(sandbox), QStringLiteral("remove and recreate it")};
    const qint64 top = (*row)->value(0).toLongLong();
    const QString topVolume = (*row)->value(1).toString();
    auto topPath = m_pool->volumePath(topVolume);
    if (!topPath)
        return topPath.error();

    const QString domain = objectName(sandbox);
    const QString state = stateOf(m_libvirt.get(), domain);
    if (state != QLatin1String("running") && state != QLatin1String("stopped"))
        return Error{QStringLiteral("sandbox %1 is %2").arg(sandbox, state),
                     QStringLiteral("snapshots are taken of running or stopped sandboxes"), ErrorKind::Conflict};

    // Once the domain writes into the new layer the store must take the snapshot's rows, and
    // the guest needs room to go on: without it, refuse before anything is made.
    for (const QString &path : {m_pool->path(), m_config.databasePath()})
        if (Status room = requireFreeSpace(QStringLiteral("cannot snapshot %1").arg(sandbox), path, kSnapshotFreeBytes); !room)
            return room.error();
    const QString newVolume = QStringLiteral("%1sbx-%2-%3.qcow2")
                                  .arg(volumePrefix(), sandbox, QUuid::createUuid().toString(QUuid::Id128).left(8));
    Result<qint64> op = beginOperation(QStringLiteral("snapshot"), sandbox,
                                       {{QStringLiteral("volumes"), QJsonArray{newVolume}},
                                        {QStringLiteral("domain"), domain},
                                        {QStringLiteral("old_path"), topPath.value()},
                                        {QStringLiteral("top"), top},
                                        {QStringLiteral("label"), label}});
    if (!op)
        return op.error();
    auto fail = [&](const Error &e) -> Error {
        const Error explained = explainDiskFull(e, m_pool->path()); // before the cleanup frees room
        m_pool->deleteVolume(newVolume);
        endOperation(op.value());
        return explained;
    };
    // Capacity follows the current top; qcow2 keeps the backing chain.
    const auto diskGib = m_store.firstRow(QStringLiteral("SELECT disk_gib FROM sandboxes WHERE id = ?"), {sid});
    const quint64 capacity = (diskGib && diskGib.value()) ? quint64(diskGib.value()->value(0).toLongLong()) << 30
                                                          : quint64(2) << 30;
    auto newPath = m_pool->createOverlay(newVolume, topPath.value(), QStringLiteral("qcow2"), capacity);
    if (!newPath)
        return fail(newPath.error());

    if (Status s = switchToLayer(sandbox, state == QLatin1String("running"), topPath.value(), newPath.value()); !s)
        return fail(s.error());
    crashPoint("snapshot:switched");

    qint64 parentSnapshot = 0;
    Result<qint64> snapshotId = recordSnapshot(sid, top, newVolume, label, op.value(), &parentSnapshot);
    if (!snapshotId) // the domain already writes into the new layer: leave the operation for reconcile
        return explainDiskFull(snapshotId.error(), m_config.databasePath());
    const qint64 snapshotIdValue = snapshotId.value();
    return QJsonObject{{QStringLiteral("id"), snapshotIdValue},
                       {QStringLiteral("sandbox"), sandbox},
                       {QStringLiteral("label"), label},
                       {QStringLiteral("parent"), parentSnapshot ? QJsonValue(parentSnapshot) : QJsonValue()},
                       {QStringLiteral("created"), now()}};
}

Result<QJsonArray> SandboxEngine::listSnapshots(const QString &sandbox, uid_t uid)
{
    qint64 sid = 0;
    if (Status s = requireSandbox(sandbox, uid, &sid); !s)
        return s.error();
    const auto rows = m_store.rows(
        QStringLiteral("SELECT s.id, s.label, s.parent_id, s.created, "
                       "  s.layer_id = (SELECT l.parent_id FROM layers l JOIN sandboxes b ON b.top_layer = l.id WHERE b.id = s.sandbox_id) "
                       "FROM snapshots s WHERE s.sandbox_id = ? ORDER BY s.id"),
        {sid});
    if (!rows)
        return Error{QStringLiteral("cannot list snapshots"), rows.error().why};
    QJsonArray out;
    for (const QSqlRecord &q : *rows)
        out.append(QJsonObject{{QStringLiteral("id"), q.value(0).toLongLong()},
                               {QStringLiteral("label"), q.value(1).toString()},
                               {QStringLiteral("parent"), q.value(2).isNull() ? QJsonValue() : QJsonValue(q.value(2).toLongLong())},
                               {QStringLiteral("created"), q.value(3).toString()},
                               {QStringLiteral("current"), q.value(4).toInt() == 1}});
    return out;
}

Result<bool> SandboxEngine::restoreSnapshot(const QString &sandbox, qint64 id, uid_t uid)
{
    qint64 sid = 0;
    const auto row = snapshotOf(sandbox, id, uid,
                                QStringLiteral("SELECT sn.layer_id, b.top_layer, t.volume, b.disk_gib FROM snapshots sn JOIN sandboxes b "
                                               "ON b.id = sn.sandbox_id JOIN layers t ON t.id = b.top_layer WHERE sn.id = ? AND sn.sandbox_id = ?"),
                                &sid);
    if (!row)
        return row.error();
    const QSqlRecord &q = *row;
    const qint64 frozen = q.value(0).toLongLong();
    const qint64 oldTop = q.value(1).toLongLong();
    const QString oldVolume = q.value(2).toString();
    const quint64 capacity = quint64(q.value(3).toLongLong()) << 30;
    auto base = layerVolume(frozen);
    if (!base)
        return base.error();
    auto oldPath = m_pool->volumePath(oldVolume);
    if (!oldPath)
        return oldPath.error();

    const QString domain = objectName(sandbox);
    const QString state = stateOf(m_libvirt.get(), domain);
    const bool wasRunning = state == QLatin1String("running") || state == QLatin1String("paused");
    // Once the domain writes into the new layer the store must take the snapshot's rows, and
    // the guest needs room to go on: without it, refuse before anything is made.
    for (const QString &path : {m_pool->path(), m_config.databasePath()})
        if (Status room = requireFreeSpace(QStringLiteral("cannot snapshot %1").arg(sandbox), path, kSnapshotFreeBytes); !room)
            return room.error();
    const QString newVolume = QStringLiteral("%1sbx-%2-%3.qcow2")
                                  .arg(volumePrefix(), sandbox, QUuid::createUuid().toString(QUuid::Id128).left(8));
    Result<qint64> op = beginOperation(QStringLiteral("restore"), sandbox,
                                       {{QStringLiteral("volumes"), QJsonArray{newVolume}}, {QStringLiteral("domain"), domain},
                                        {QStringLiteral("top"), oldTop}, {QStringLiteral("frozen"), frozen}});
    if (!op)
        return op.error();
    auto newPath = m_pool->createOverlay(newVolume, base.value(), QStringLiteral("qcow2"), capacity);
    if (!newPath) {
        endOperation(op.value());
        return newPath.error();
    }
    if (wasRunning) {
        VirDomain dom = lookupDomain(m_libvirt.get(), domain);
        if (dom.get())
            virDomainDestroy(dom.get()); // its top layer is thrown away anyway
        m_startedAt.remove(sandbox);
    }
    if (Status s = pointDomainDisk(domain, oldPath.value(), newPath.value()); !s) {
        m_pool->deleteVolume(newVolume);
        endOperation(op.value());
        return s.error();
    }
    crashPoint("restore:switched");
    Status stored = recordRestore(sid, frozen, oldTop, newVolume, op.value());
    if (!stored)
        return stored.error();
    collectLayers();
    return wasRunning;
}

Status SandboxEngine::removeSnapshot(const QString &sandbox, qint64 id, uid_t uid)
{
    qint64 sid = 0;
    const auto row = snapshotOf(sandbox, id, uid, QStringLiteral("SELECT layer_id FROM snapshots WHERE id = ? AND sandbox_id = ?"), &sid);
    if (!row)
        return row.error();
    const qint64 layer = row->value(0).toLongLong();
    const auto built = m_store.firstRow(QStringLiteral("SELECT count(*) FROM layers WHERE parent_id = ?"), {layer});
    if (!built || !built.value())
        return Error{QStringLiteral("cannot read the layers of %1").arg(sandbox), built ? QString() : built.error().why};
    if (built.value()->value(0).toInt() > 0) // the current disk or a later snapshot builds on it: merge (layermerge.cpp)
        return mergeSnapshotLayer(sandbox, sid, id, layer);
    Status stored = m_store.transaction([&]() -> Status {
        const QString what = QStringLiteral("cannot remove the snapshot");
        for (const auto &[sql, binds] : std::initializer_list<std::pair<QString, QVariantList>>{
                 {QStringLiteral("UPDATE snapshots SET parent_id = (SELECT parent_id FROM snapshots WHERE id = ?) WHERE parent_id = ?"), {id, id}},
                 {QStringLiteral("DELETE FROM snapshots WHERE id = ?"), {id}},
                 {QStringLiteral("UPDATE layers SET sandbox_id = NULL WHERE id = ?"), {layer}}}) {
            if (Result<qint64> w = m_store.write(sql, binds); !w)
                return Error{what, w.error().why};
        }
        return ok();
    });
    if (!stored)
        return stored;
    collectLayers();
    return ok();
}

Result<QJsonObject> SandboxEngine::fork(const QString &sandbox, qint64 id, const QString &newName, uid_t uid,
                                        const decltype(CreateRequest::lend) &lend)
{
    qint64 sid = 0;
    const auto row = snapshotOf(sandbox, id, uid,
                                QStringLiteral("SELECT sn.layer_id, b.image, b.cpus, b.memory_mib, b.disk_gib, b.env_json FROM snapshots sn "
                                               "JOIN sandboxes b ON b.id = sn.sandbox_id WHERE sn.id = ? AND sn.sandbox_id = ?"),
                                &sid);
    if (!row)
        return row.error();
    const QSqlRecord &q = *row;
    CreateRequest r;
    r.name = newName;
    r.baseLayer = q.value(0).toLongLong();
    r.image = q.value(1).toString();
    r.cpus = q.value(2).toInt();
    r.memoryMib = q.value(3).toInt();
    r.diskGib = q.value(4).toInt();
    const QJsonObject env = QJsonDocument::fromJson(q.value(5).toString().toUtf8()).object();
    for (auto it = env.begin(); it != env.end(); ++it)
        r.env.insert(it.key(), it.value().toString());
    r.owner = uid;
    r.lend = lend;
    if (newName.isEmpty())
        return Error{QStringLiteral("the fork needs a name"), QStringLiteral("airlockctl fork NAME ID NEWNAME"), ErrorKind::InvalidParams};
    return create(r); // fresh name, MAC, network and address
}

} // namespace airlock
