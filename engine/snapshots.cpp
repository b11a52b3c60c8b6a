// Snapshots, restore and fork: the layer tree of the layers table. A snapshot freezes the
// sandbox's top layer and continues in a new overlay above it; restore and fork start a new
// overlay above a frozen layer. A layer with children is never deleted; removing a snapshot
// other layers build on merges its layer into the one above (layermerge.cpp).
#include "core/crashpoint.h"
#include "core/diskspace.h"
#include "consolehub.h"
#include "core/logging.h"
#include "libvirtconnection.h"
#include "saveddefinition.h"
#include "sandboxengine.h"
#include "virhandle.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <QJsonDocument>
#include <QSqlRecord>
#include <QUuid>
#include <libvirt/virterror.h>
#include <sys/stat.h>
#include <unistd.h>

namespace airlock {

namespace {

QString now() { return QDateTime::currentDateTimeUtc().toString(Qt::ISODate); }
constexpr char kScreenSuffix[] = ".screen"; // beside a memory file: the console up to the checkpoint

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
                                             qint64 opId, qint64 *parentOut, const QString &memoryFile, qint64 memoryBytes,
                                             bool automatic)
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
        const QVariant noNumber(QMetaType(QMetaType::LongLong));
        Result<qint64> snapshot = m_store.write(
            QStringLiteral("INSERT INTO snapshots(sandbox_id, layer_id, parent_id, label, created, memory_file, memory_bytes, automatic) "
                           "VALUES(?, ?, ?, COALESCE(?, ''), ?, ?, ?, ?)"),
            {sid, top, parentSnapshot ? QVariant(parentSnapshot) : noNumber, label, now(),
             memoryFile.isEmpty() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(memoryFile),
             memoryFile.isEmpty() ? noNumber : QVariant(memoryBytes), automatic ? 1 : 0});
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
            // libvirt wrote the memory before it switched the disk: a switched checkpoint has all of it.
            const QString memoryFile = state.value(QLatin1String("memory_file")).toString();
            const QFileInfo memory(checkpointDir() + QLatin1Char('/') + memoryFile);
            const bool haveMemory = !memoryFile.isEmpty() && memory.isFile();
            recordSnapshot(sid, top, newVolume, state.value(QLatin1String("label")).toString(), opId, &parent,
                           haveMemory ? memoryFile : QString(), haveMemory ? memory.size() : 0,
                           state.value(QLatin1String("automatic")).toBool());
        } else {
            recordRestore(sid, state.value(QLatin1String("frozen")).toInteger(), top, newVolume, opId);
            collectLayers();
        }
        return;
    }
    qCInfo(lcEngine) << "reconcile: rolling back the" << kind << "of" << sandbox;
    m_pool->deleteVolume(newVolume);
    if (const QString memoryFile = state.value(QLatin1String("memory_file")).toString(); !memoryFile.isEmpty())
        QFile::remove(checkpointDir() + QLatin1Char('/') + memoryFile);
    endOperation(opId);
}

QString SandboxEngine::checkpointDir() const { return m_config.dataDir + QStringLiteral("/checkpoints"); }

// The memory file of snapshot `id` of `sandbox` (empty: a disk-only snapshot).
Result<QString> SandboxEngine::checkpointMemoryPath(const QString &sandbox, qint64 id, uid_t uid)
{
    qint64 sid = 0;
    const auto row = snapshotOf(sandbox, id, uid, QStringLiteral("SELECT memory_file FROM snapshots WHERE id = ? AND sandbox_id = ?"), &sid);
    if (!row)
        return row.error();
    const QString memory = row->value(0).toString();
    return memory.isEmpty() ? QString() : checkpointDir() + QLatin1Char('/') + memory;
}

// Where checkpoint `id` of `sandbox` keeps its screen (empty: no such checkpoint).
QString SandboxEngine::checkpointScreenPath(const QString &sandbox, qint64 id)
{
    const Result<QString> memory = checkpointMemoryPath(sandbox, id, 0);
    return !memory || memory->isEmpty() ? QString() : memory.value() + QLatin1String(kScreenSuffix);
}

// Best effort: without it the restore still resumes, only the screen starts from there.
void SandboxEngine::keepCheckpointScreen(const QString &sandbox, qint64 id, const QByteArray &screen)
{
    const QString path = screen.isEmpty() ? QString() : checkpointScreenPath(sandbox, id);
    if (path.isEmpty())
        return;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) ||
        file.write(screen) != screen.size() || !file.commit())
        qCWarning(lcEngine) << "cannot keep the screen of checkpoint" << id << "of" << sandbox << ":" << file.errorString();
}

QByteArray SandboxEngine::checkpointScreen(const QString &sandbox, qint64 id)
{
    const QString path = checkpointScreenPath(sandbox, id);
    QFile file(path);
    return !path.isEmpty() && file.open(QIODevice::ReadOnly) ? file.read(ConsoleHub::kHistory) : QByteArray();
}

// Best effort, like collectLayers: a file that stays is collected on the next call.
void SandboxEngine::collectCheckpoints()
{
    QDir dir(checkpointDir());
    if (!dir.exists())
        return;
    const auto named = m_store.rows(QStringLiteral("SELECT memory_file FROM snapshots WHERE memory_file IS NOT NULL"));
    const auto ops = m_store.rows(QStringLiteral("SELECT state_json FROM operations"));
    if (!named || !ops) { // an unreadable store must not make every file look unused
        qCWarning(lcEngine) << "cannot look for unused memory files:" << (named ? ops.error() : named.error()).message();
        return;
    }
    QSet<QString> keep;
    for (const QSqlRecord &row : *named)
        keep.insert(row.value(0).toString());
    for (const QSqlRecord &row : *ops)
        keep.insert(QJsonDocument::fromJson(row.value(0).toString().toUtf8()).object().value(QLatin1String("memory_file")).toString());
    for (const QString &memory : QSet<QString>(keep)) // a checkpoint's screen goes with its memory
        keep.insert(memory + QLatin1String(kScreenSuffix));
    for (const QString &file : dir.entryList({volumePrefix() + QLatin1Char('*')}, QDir::Files)) {
        if (keep.contains(file))
            continue;
        qCInfo(lcEngine) << "removing the unused memory file" << file;
        if (!dir.remove(file))
            qCWarning(lcEngine) << "cannot remove the unused memory file" << dir.filePath(file);
    }
}


// The guard and the network as a start sets them up, then the guest back from its memory
// file, its disk on the new overlay.
Status SandboxEngine::resumeCheckpoint(const QString &sandbox, const QString &memoryPath, const QString &newPath)
{
    char *saved = virDomainSaveImageGetXMLDesc(m_libvirt.get(), memoryPath.toLocal8Bit().constData(), VIR_DOMAIN_SAVE_IMAGE_XML_SECURE);
    if (!saved)
        return LibvirtConnection::lastError(QStringLiteral("cannot read the checkpoint %1").arg(memoryPath));
    Result<QString> def = pointSavedDisk(takeVirString(saved), newPath);
    if (!def)
        return def.error();
    return restoreGuarded(sandbox, memoryPath, withoutBackingChain(def.value()).toUtf8());
}

// The guard and the network as a start sets them up, then libvirt's restore of `savedPath`
// (with `dxml` in place of its saved definition, unless empty).
Status SandboxEngine::restoreGuarded(const QString &sandbox, const QString &savedPath, const QByteArray &dxml)
{
    if (Status s = activateNetwork(sandbox); !s)
        return s;
    // The resumed guest's next packet must already meet the egress rules.
    if (Status s = guardNetwork(sandbox); !s)
        return s;
    if (virDomainRestoreFlags(m_libvirt.get(), QFile::encodeName(savedPath).constData(), dxml.isEmpty() ? nullptr : dxml.constData(),
                              VIR_DOMAIN_SAVE_RUNNING) < 0) {
        Error e = LibvirtConnection::lastError(QStringLiteral("cannot resume %1 from its checkpoint").arg(sandbox));
        releaseNetwork(sandbox);
        return e;
    }
    m_startedAt.insert(sandbox, QDateTime::currentMSecsSinceEpoch());
    return ok();
}

// The domain continues in the new overlay: a running one through a live external snapshot
// (the guest agent freezes the guest's filesystems around the switch: QUIESCE), a stopped
// one by pointing its definition at it. With `memoryPath` libvirt pauses the guest, saves
// its memory there (the format virDomainRestore reads), switches the disk and resumes it:
// memory and frozen layer are the same instant, so no quiesce is needed.
Status SandboxEngine::switchToLayer(const QString &sandbox, bool running, const QString &oldPath, const QString &newPath,
                                    const QString &memoryPath)
{
    const QString domain = objectName(sandbox);
    if (!running)
        return pointDomainDisk(domain, oldPath, newPath);
    const QString memory = memoryPath.isEmpty() ? QString()
                                                : QStringLiteral("<memory snapshot='external' file='%1'/>").arg(memoryPath.toHtmlEscaped());
    const QString xml = QStringLiteral("<domainsnapshot>%2<disks><disk name='vda' snapshot='external' type='file'>"
                                       "<source file='%1'/><driver type='qcow2'/></disk></disks></domainsnapshot>")
                            .arg(newPath.toHtmlEscaped(), memory);
    VirDomain dom = lookupDomain(m_libvirt.get(), domain);
    const unsigned flags = VIR_DOMAIN_SNAPSHOT_CREATE_NO_METADATA | VIR_DOMAIN_SNAPSHOT_CREATE_ATOMIC |
                           VIR_DOMAIN_SNAPSHOT_CREATE_REUSE_EXT |
                           (memoryPath.isEmpty() ? VIR_DOMAIN_SNAPSHOT_CREATE_DISK_ONLY | VIR_DOMAIN_SNAPSHOT_CREATE_QUIESCE : 0u);
    VirSnapshot snap(dom ? virDomainSnapshotCreateXML(dom.get(), xml.toUtf8().constData(), flags) : nullptr);
    if (!snap) {
        Error e = LibvirtConnection::lastError(QStringLiteral("cannot snapshot %1").arg(sandbox));
        if (e.why.contains(QLatin1String("agent")))
            e.why += QStringLiteral("; the guest agent must answer to quiesce the disk (is it still booting?)");
        return e;
    }
    return ok();
}

Result<QJsonObject> SandboxEngine::createSnapshot(const QString &sandbox, const QString &label, uid_t uid, bool memory, bool automatic)
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
    if (memory && state != QLatin1String("running"))
        return Error{QStringLiteral("sandbox %1 is %2: a memory snapshot saves a running guest").arg(sandbox, state),
                     QStringLiteral("start it, or take a disk snapshot (without --memory)"), ErrorKind::Conflict};
    if (state != QLatin1String("running") && state != QLatin1String("stopped"))
        return Error{QStringLiteral("sandbox %1 is %2").arg(sandbox, state),
                     QStringLiteral("snapshots are taken of running or stopped sandboxes"), ErrorKind::Conflict};

    // Capacity follows the current top; qcow2 keeps the backing chain.
    const auto sizes = m_store.firstRow(QStringLiteral("SELECT disk_gib, memory_mib FROM sandboxes WHERE id = ?"), {sid});
    const quint64 capacity = (sizes && sizes.value()) ? quint64(sizes.value()->value(0).toLongLong()) << 30 : quint64(2) << 30;
    const qint64 memoryBytes = (sizes && sizes.value()) ? sizes.value()->value(1).toLongLong() << 20 : qint64(1) << 30;

    // Once the domain writes into the new layer the store must take the snapshot's rows, and
    // the guest needs room to go on: without it, refuse before anything is made.
    for (const QString &path : {m_pool->path(), m_config.databasePath()})
        if (Status room = requireFreeSpace(QStringLiteral("cannot snapshot %1").arg(sandbox), path, kSnapshotFreeBytes); !room)
            return room.error();
    const QString tag = QUuid::createUuid().toString(QUuid::Id128).left(8);
    const QString newVolume = QStringLiteral("%1sbx-%2-%3.qcow2").arg(volumePrefix(), sandbox, tag);
    // The memory file holds all of the guest's RAM (dirty pages need no more): ask for room first.
    const QString memoryFile = memory ? QStringLiteral("%1%2-%3.mem").arg(volumePrefix(), sandbox, tag) : QString();
    const QString memoryPath = memory ? checkpointDir() + QLatin1Char('/') + memoryFile : QString();
    if (memory) {
        if (!QDir().mkpath(checkpointDir()) || ::chmod(QFile::encodeName(checkpointDir()).constData(), 0700) != 0)
            return Error{QStringLiteral("cannot make %1").arg(checkpointDir()), QStringLiteral("check the permissions of the data directory")};
        if (Status room = requireFreeSpace(QStringLiteral("cannot save the memory of %1").arg(sandbox), checkpointDir(),
                                           memoryBytes + kSnapshotFreeBytes);
            !room)
            return Error{room.error().what, room.error().why + QStringLiteral("; a disk snapshot (without --memory) needs only a little"),
                         room.error().kind};
    }
    QJsonObject opState{{QStringLiteral("volumes"), QJsonArray{newVolume}},
                        {QStringLiteral("domain"), domain},
                        {QStringLiteral("old_path"), topPath.value()},
                        {QStringLiteral("top"), top},
                        {QStringLiteral("label"), label},
                        {QStringLiteral("automatic"), automatic}};
    if (memory)
        opState.insert(QStringLiteral("memory_file"), memoryFile);
    Result<qint64> op = beginOperation(QStringLiteral("snapshot"), sandbox, opState);
    if (!op)
        return op.error();
    auto fail = [&](const Error &e) -> Error {
        const Error explained = explainDiskFull(e, memory ? checkpointDir() : m_pool->path()); // before the cleanup frees room
        m_pool->deleteVolume(newVolume);
        if (memory)
            QFile::remove(memoryPath);
        endOperation(op.value());
        return explained;
    };
    auto newPath = m_pool->createOverlay(newVolume, topPath.value(), QStringLiteral("qcow2"), capacity);
    if (!newPath)
        return fail(newPath.error());

    if (Status s = switchToLayer(sandbox, state == QLatin1String("running"), topPath.value(), newPath.value(), memoryPath); !s)
        return fail(s.error());
    crashPoint("snapshot:switched");

    qint64 savedBytes = 0;
    if (memory) {
        // The guest's whole RAM: readable by the store's owner only.
        struct stat st {};
        const QByteArray path = QFile::encodeName(memoryPath);
        if (::chmod(path.constData(), 0600) != 0)
            qCWarning(lcEngine) << "cannot make" << memoryPath << "private";
        if (geteuid() == 0 && ::stat(QFile::encodeName(m_config.databasePath()).constData(), &st) == 0 &&
            ::chown(path.constData(), st.st_uid, st.st_gid) != 0)
            qCWarning(lcEngine) << "cannot give" << memoryPath << "to the store's owner";
        savedBytes = QFileInfo(memoryPath).size();
    }

    qint64 parentSnapshot = 0;
    Result<qint64> snapshotId = recordSnapshot(sid, top, newVolume, label, op.value(), &parentSnapshot, memoryFile, savedBytes, automatic);
    if (!snapshotId) // the domain already writes into the new layer: leave the operation for reconcile
        return explainDiskFull(snapshotId.error(), m_config.databasePath());
    const qint64 snapshotIdValue = snapshotId.value();
    QJsonObject made{{QStringLiteral("id"), snapshotIdValue},
                     {QStringLiteral("sandbox"), sandbox},
                     {QStringLiteral("label"), label},
                     {QStringLiteral("parent"), parentSnapshot ? QJsonValue(parentSnapshot) : QJsonValue()},
                     {QStringLiteral("created"), now()},
                     {QStringLiteral("automatic"), automatic}};
    if (memory) {
        made.insert(QStringLiteral("memory"), true);
        made.insert(QStringLiteral("memory_bytes"), savedBytes);
    }
    return made;
}

Result<QJsonArray> SandboxEngine::listSnapshots(const QString &sandbox, uid_t uid)
{
    qint64 sid = 0;
    if (Status s = requireSandbox(sandbox, uid, &sid); !s)
        return s.error();
    const auto rows = m_store.rows(
        QStringLiteral("SELECT s.id, s.label, s.parent_id, s.created, "
                       "  s.layer_id = (SELECT l.parent_id FROM layers l JOIN sandboxes b ON b.top_layer = l.id WHERE b.id = s.sandbox_id), "
                       "  s.memory_file IS NOT NULL, s.memory_bytes, s.automatic "
                       "FROM snapshots s WHERE s.sandbox_id = ? ORDER BY s.id"),
        {sid});
    if (!rows)
        return Error{QStringLiteral("cannot list snapshots"), rows.error().why};
    QJsonArray out;
    for (const QSqlRecord &q : *rows) {
        QJsonObject row{{QStringLiteral("id"), q.value(0).toLongLong()},
                        {QStringLiteral("label"), q.value(1).toString()},
                        {QStringLiteral("parent"), q.value(2).isNull() ? QJsonValue() : QJsonValue(q.value(2).toLongLong())},
                        {QStringLiteral("created"), q.value(3).toString()},
                        {QStringLiteral("current"), q.value(4).toInt() == 1},
                        {QStringLiteral("memory"), q.value(5).toInt() == 1},
                        {QStringLiteral("automatic"), q.value(7).toInt() == 1}};
        if (q.value(5).toInt() == 1)
            row.insert(QStringLiteral("memory_bytes"), q.value(6).toLongLong());
        out.append(row);
    }
    return out;
}

Result<Restored> SandboxEngine::restoreSnapshot(const QString &sandbox, qint64 id, uid_t uid)
{
    qint64 sid = 0;
    const auto row = snapshotOf(sandbox, id, uid,
                                QStringLiteral("SELECT sn.layer_id, b.top_layer, t.volume, b.disk_gib, sn.memory_file FROM snapshots sn JOIN sandboxes b "
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
    const QString memoryFile = q.value(4).toString();
    const QString memoryPath = memoryFile.isEmpty() ? QString() : checkpointDir() + QLatin1Char('/') + memoryFile;
    if (!memoryPath.isEmpty() && !QFileInfo(memoryPath).isFile())
        return Error{QStringLiteral("the memory of snapshot %1 of %2 is gone").arg(id).arg(sandbox),
                     QStringLiteral("%1 was removed behind Airlock's back; remove the snapshot").arg(memoryPath), ErrorKind::Conflict};

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
    if (!memoryPath.isEmpty()) {
        if (Status s = resumeCheckpoint(sandbox, memoryPath, newPath.value()); !s) {
            // Back to the disk it had, stopped: nothing of the checkpoint's restore stays.
            const Status back = pointDomainDisk(domain, newPath.value(), oldPath.value());
            if (back)
                m_pool->deleteVolume(newVolume);
            endOperation(op.value());
            const QString left = back ? QStringLiteral("; %1 is stopped on the disk it had").arg(sandbox)
                                      : QStringLiteral("; %1 is stopped and its disk could not be put back (%2)").arg(sandbox, back.error().message());
            return Error{s.error().what, s.error().why + left, s.error().kind};
        }
    }
    crashPoint("restore:switched");
    Status stored = recordRestore(sid, frozen, oldTop, newVolume, op.value());
    if (!stored)
        return stored.error();
    collectLayers();
    if (!memoryPath.isEmpty())
        return Restored::Resumed;
    return wasRunning ? Restored::Restart : Restored::Stopped;
}

// Forgets snapshot `id`, its children moving up to its parent; runs inside the caller's
// transaction when there is one.
Status SandboxEngine::forgetSnapshotRow(qint64 id)
{
    for (const auto &[sql, binds] : QList<std::pair<const char *, QVariantList>>{
             {"UPDATE snapshots SET parent_id = (SELECT parent_id FROM snapshots WHERE id = ?) WHERE parent_id = ?", {id, id}},
             {"DELETE FROM snapshots WHERE id = ?", {id}}}) {
        if (Result<qint64> w = m_store.write(QString::fromLatin1(sql), binds); !w)
            return Error{QStringLiteral("cannot remove snapshot %1").arg(id), w.error().why};
    }
    return ok();
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
    if (built.value()->value(0).toInt() > 0) { // the current disk or a later snapshot builds on it: merge (layermerge.cpp)
        Status merged = mergeSnapshotLayer(sandbox, sid, id, layer);
        collectCheckpoints(); // a checkpoint's memory goes with it (a failed live commit removes it too)
        return merged;
    }
    Status stored = m_store.transaction([&]() -> Status {
        if (Status s = forgetSnapshotRow(id); !s)
            return s;
        if (Result<qint64> w = m_store.write(QStringLiteral("UPDATE layers SET sandbox_id = NULL WHERE id = ?"), {layer}); !w)
            return Error{QStringLiteral("cannot remove the snapshot"), w.error().why};
        return ok();
    });
    if (!stored)
        return stored;
    collectLayers();
    collectCheckpoints();
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
