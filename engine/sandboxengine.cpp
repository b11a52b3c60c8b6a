#include "sandboxengine.h"
#include "accelprobe.h"
#include "core/crashpoint.h"
#include "core/gitconfigenv.h"
#include "core/diskspace.h"
#include "core/logging.h"
#include "guestagent.h"
#include "imagerecipe.h"
#include "sandboxspec.h"
#include "virhandle.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSqlRecord>
#include <QStorageInfo>
#include <QThread>
#include <QUuid>
#include <libvirt/virterror.h>
#include <unistd.h>
#include <vector>

namespace airlock {

namespace {

constexpr int kMinMemoryMib = 128;
constexpr qint64 kExt4MagicOffset = 1024 + 56; // s_magic in the superblock

QString now() { return QDateTime::currentDateTimeUtc().toString(Qt::ISODate); }

// The store's error under what the engine was doing.
template <typename T>
Error sqlFailed(const QString &what, const Result<T> &failed)
{
    return Error{what, failed.error().why};
}

QString randomMac()
{
    auto *rng = QRandomGenerator::system();
    return QStringLiteral("52:54:00:%1:%2:%3")
        .arg(rng->bounded(256), 2, 16, QLatin1Char('0'))
        .arg(rng->bounded(256), 2, 16, QLatin1Char('0'))
        .arg(rng->bounded(256), 2, 16, QLatin1Char('0'));
}

void destroyDomain(virConnectPtr conn, const QString &name)
{
    VirDomain d = lookupDomain(conn, name);
    if (!d)
        return;
    if (virDomainIsActive(d.get()) == 1)
        virDomainDestroy(d.get());
    virDomainUndefineFlags(d.get(), VIR_DOMAIN_UNDEFINE_MANAGED_SAVE | VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA);
}

void destroyNetwork(virConnectPtr conn, const QString &name)
{
    VirNetwork n = lookupNetwork(conn, name);
    if (!n)
        return;
    if (virNetworkIsActive(n.get()) == 1)
        virNetworkDestroy(n.get());
    virNetworkUndefine(n.get());
}

bool parseSubnetPool(const QString &text, quint32 *base, int *count)
{
    const auto pair = QHostAddress::parseSubnet(text);
    if (pair.first.protocol() != QAbstractSocket::IPv4Protocol || pair.second > 30 || pair.second < 8)
        return false;
    *base = pair.first.toIPv4Address() & (pair.second == 0 ? 0 : ~quint32(0) << (32 - pair.second));
    *count = 1 << (30 - pair.second);
    return true;
}

} // namespace

// QEMU runs as libvirt's qemu user, which cannot enter airlockd's 0700 data dir; the pool
// therefore lives where libvirt keeps images (AIRLOCK_POOL_DIR overrides).
QString SandboxEngine::poolDirectory() const
{
    const QString fromEnv = qEnvironmentVariable("AIRLOCK_POOL_DIR");
    if (!fromEnv.isEmpty())
        return fromEnv;
    if (::geteuid() == 0)
        return QStringLiteral("/var/lib/libvirt/images/airlock");
    return m_config.dataDir + QStringLiteral("/pool");
}

SandboxEngine::SandboxEngine(DaemonConfig config) : m_config(std::move(config)) {}
SandboxEngine::~SandboxEngine() { m_pool.reset(); }

bool SandboxEngine::validName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[a-z0-9][a-z0-9-]{0,31}$"));
    return re.match(name).hasMatch();
}

QString SandboxEngine::objectName(const QString &sandbox) const
{
    return QStringLiteral("airlock-%1-%2").arg(m_instance, sandbox);
}

Status SandboxEngine::start()
{
    if (Status s = openStore(); !s)
        return s;
    // libvirtd being down is not fatal for the daemon: every sandbox call says how to fix it.
    if (Status s = ensureLibvirt(); !s) {
        qCWarning(lcEngine) << s.error().message();
        return ok();
    }
    if (Status s = reconcile(); !s)
        qCWarning(lcEngine) << "reconcile:" << s.error().message();
    if (Status s = reconcileNetworks(); !s)
        qCWarning(lcEngine) << "network guard:" << s.error().message();
    probeAccel();
    return ok();
}

Status SandboxEngine::openWithoutReconcile()
{
    if (Status s = openStore(); !s)
        return s;
    ensureLibvirt();
    return ok();
}

void SandboxEngine::reloadAccel()
{
    if (m_accelProbed)
        return;
    const QString cached = m_store.setting(QStringLiteral("engine.accel")).value();
    if (!cached.isEmpty()) {
        m_accel = cached;
        m_accelProbed = true;
    }
}

Status SandboxEngine::openStore()
{
    Result<Store> store = Store::open(m_config.databasePath());
    if (!store)
        return store.error();
    m_store = std::move(store.value());

    Result<QString> instance = m_store.setting(QStringLiteral("engine.instance"));
    if (!instance)
        return instance.error();
    m_instance = instance.value();
    if (m_instance.isEmpty()) {
        // Names libvirt objects of this data dir apart from those of any other airlockd on the host.
        m_instance = QUuid::createUuid().toString(QUuid::Id128).left(4);
        if (Status s = m_store.setSetting(QStringLiteral("engine.instance"), m_instance); !s)
            return s;
    }
    QString poolText = qEnvironmentVariable("AIRLOCK_SUBNET_POOL");
    if (poolText.isEmpty())
        poolText = m_store.setting(QStringLiteral("network.pool"), QStringLiteral("10.213.0.0/16")).value();
    if (!parseSubnetPool(poolText, &m_subnetBase, &m_subnetCount))
        return Error{QStringLiteral("invalid sandbox subnet pool \"%1\"").arg(poolText),
                     QStringLiteral("give an IPv4 network of /8 to /30, e.g. 10.213.0.0/16"), ErrorKind::InvalidParams};

    if (m_config.accel == AccelChoice::Kvm) {
        m_accel = QStringLiteral("kvm");
        m_accelProbed = true;
    } else if (m_config.accel == AccelChoice::Tcg) {
        m_accel = QStringLiteral("tcg");
        m_accelProbed = true;
    } else {
        const QString cached = m_store.setting(QStringLiteral("engine.accel")).value();
        if (!cached.isEmpty()) {
            m_accel = cached;
            m_accelProbed = true;
        }
    }
    return ok();
}

Status SandboxEngine::ensureLibvirt()
{
    if (m_libvirt.uri().isEmpty()) {
        if (Status s = m_libvirt.open(m_config.libvirtUri); !s)
            return s;
    } else if (Status s = m_libvirt.ensureAlive(); !s) { // also after a failed reconnect: with backoff
        m_pool.reset();
        return s;
    }
    // The pool object of a replaced connection answers nothing.
    if (m_pool && m_poolGeneration != m_libvirt.generation())
        m_pool.reset();
    if (!m_pool) {
        m_poolGeneration = m_libvirt.generation();
        auto pool = std::make_unique<StoragePool>(m_libvirt.get());
        if (Status s = pool->ensure(poolDirectory()); !s)
            return s;
        m_pool = std::move(pool);
    }
    return ok();
}

void SandboxEngine::probeAccel()
{
    if (m_accelProbed)
        return;
    const auto image = m_store.firstRow(QStringLiteral("SELECT kernel, initrd FROM images LIMIT 1"));
    if (!image || !image.value())
        return; // nothing to boot yet; probe after the first image build
    auto kernel = m_pool->volumePath(image.value()->value(0).toString());
    auto initrd = m_pool->volumePath(image.value()->value(1).toString());
    if (!kernel || !initrd)
        return;
    m_accel = probeKvm(kernel.value(), initrd.value()) ? QStringLiteral("kvm") : QStringLiteral("tcg");
    m_accelProbed = true;
    m_store.setSetting(QStringLiteral("engine.accel"), m_accel);
}

Result<qint64> SandboxEngine::beginOperation(const QString &kind, const QString &subject, const QJsonObject &state)
{
    Result<qint64> id = m_store.write(
        QStringLiteral("INSERT INTO operations(kind, subject, step, state_json, started) VALUES(?, ?, 'begin', ?, ?)"),
        {kind, subject, QString::fromUtf8(QJsonDocument(state).toJson(QJsonDocument::Compact)), now()});
    if (!id)
        return explainDiskFull(Error{QStringLiteral("cannot record the %1 of %2").arg(kind, subject), id.error().why},
                               m_config.databasePath());
    return id;
}

void SandboxEngine::endOperation(qint64 id)
{
    if (Result<qint64> done = m_store.write(QStringLiteral("DELETE FROM operations WHERE id = ?"), {id}); !done)
        qCWarning(lcEngine) << "cannot finish operation" << id << ":" << done.error().message(); // reconcile retries
}

// Undo whatever libvirt objects an interrupted operation may have made.
Status SandboxEngine::rollbackObjects(const QJsonObject &state)
{
    const QString domain = state.value(QLatin1String("domain")).toString();
    const QString network = state.value(QLatin1String("network")).toString();
    if (!domain.isEmpty())
        destroyDomain(m_libvirt.get(), domain);
    for (const QJsonValue &v : state.value(QLatin1String("volumes")).toArray())
        if (Status s = m_pool->deleteVolume(v.toString()); !s)
            return s;
    if (!network.isEmpty())
        destroyNetwork(m_libvirt.get(), network);
    return ok();
}

// After a crash: unfinished operations are rolled back (create, image build) or finished
// (remove); then libvirt objects of this instance that no row accounts for are removed.
Status SandboxEngine::reconcile()
{
    if (Status s = reconcileOperations(); !s)
        return s;
    if (Result<QStringList> gone = discardEphemerals(true); !gone)
        qCWarning(lcEngine) << "reconcile:" << gone.error().message();
    stopHalfResumedForks();
    return removeOrphans();
}

Status SandboxEngine::reconcileOperations()
{
    const auto ops = m_store.rows(QStringLiteral("SELECT id, kind, subject, state_json FROM operations ORDER BY id"));
    if (!ops)
        return Error{QStringLiteral("cannot read unfinished operations"), ops.error().why};
    struct Op { qint64 id; QString kind, subject; QJsonObject state; };
    QList<Op> pending;
    for (const QSqlRecord &row : *ops)
        pending.append({row.value(0).toLongLong(), row.value(1).toString(), row.value(2).toString(),
                        QJsonDocument::fromJson(row.value(3).toString().toUtf8()).object()});
    for (const Op &op : pending) {
        qCInfo(lcEngine) << "reconcile: finishing interrupted" << op.kind << "of" << op.subject;
        if (op.kind == QLatin1String("create")) {
            const auto created = m_store.firstRow(QStringLiteral("SELECT 1 FROM sandboxes WHERE name = ?"), {op.subject});
            if (created && created.value()) { // committed: the create had finished
                endOperation(op.id);
                continue;
            }
            if (Status s = rollbackObjects(op.state); !s)
                return s;
        } else if (op.kind == QLatin1String("remove")) {
            if (Status s = rollbackObjects(op.state); !s)
                return s;
            if (Status forgotten = forgetRemovedRows(op.subject); !forgotten) // the operation stays: the next start finishes it
                return Error{QStringLiteral("cannot finish the removal of %1").arg(op.subject), forgotten.error().message()};
        } else if (op.kind == QLatin1String("snapshot") || op.kind == QLatin1String("restore")) {
            reconcileLayerOperation(op.id, op.kind, op.subject, op.state);
            continue;
        } else if (op.kind == QLatin1String("merge")) {
            reconcileMerge(op.id, op.state);
            continue;
        } else if (op.kind == QLatin1String("image")) {
            reconcileImageBuild(op.subject, op.state);
        }
        endOperation(op.id);
    }
    return ok();
}

// The rows of a sandbox whose remove was interrupted after its objects went.
Status SandboxEngine::forgetRemovedRows(const QString &name)
{
    return m_store.transaction([&]() -> Status {
        const auto row = m_store.firstRow(QStringLiteral("SELECT id, network FROM sandboxes WHERE name = ?"), {name});
        if (!row || !*row)
            return row ? ok() : Status(row.error());
        const QVariant id = (*row)->value(0), net = (*row)->value(1);
        for (const auto &[sql, bind] : std::initializer_list<std::pair<QString, QVariant>>{
                 {QStringLiteral("DELETE FROM snapshots WHERE sandbox_id = ?"), id},
                 {QStringLiteral("UPDATE layers SET sandbox_id = NULL WHERE sandbox_id = ?"), id},
                 {QStringLiteral("DELETE FROM sandboxes WHERE id = ?"), id},
                 {QStringLiteral("DELETE FROM networks WHERE name = ?"), net}}) {
            if (Result<qint64> w = m_store.write(sql, {bind}); !w)
                return w.error();
        }
        return ok();
    });
}

void SandboxEngine::reconcileImageBuild(const QString &name, const QJsonObject &state)
{
    m_pool->refresh();
    const auto image = m_store.firstRow(QStringLiteral("SELECT 1 FROM images WHERE name = ?"), {name});
    if (image && !image.value())
        rollbackObjects(state);
    const QString scratch = state.value(QLatin1String("scratch")).toString();
    if (!scratch.isEmpty())
        QDir(scratch).removeRecursively();
}

// Objects named for this instance that no sandbox, layer or image row owns. A failed read
// must not make every object look orphaned: then nothing is removed.
Status SandboxEngine::removeOrphans()
{
    QSet<QString> knownObjects, knownVolumes;
    const auto names = m_store.rows(QStringLiteral("SELECT name FROM sandboxes"));
    const auto volumes = m_store.rows(QStringLiteral("SELECT volume FROM layers UNION SELECT kernel FROM images UNION "
                                                     "SELECT initrd FROM images UNION SELECT rootfs FROM images"));
    if (!names || !volumes)
        return Error{QStringLiteral("cannot read which libvirt objects are Airlock's; none was removed"),
                     (names ? volumes.error() : names.error()).why};
    for (const QSqlRecord &row : *names)
        knownObjects.insert(objectName(row.value(0).toString()));
    for (const QSqlRecord &row : *volumes)
        knownVolumes.insert(row.value(0).toString());
    const QString prefix = QStringLiteral("airlock-%1-").arg(m_instance);

    for (const VirDomain &dom : listAllDomains(m_libvirt.get())) {
        const QString name = QString::fromUtf8(virDomainGetName(dom.get()));
        if (name.startsWith(prefix) && !knownObjects.contains(name)) {
            qCInfo(lcEngine) << "reconcile: removing orphan domain" << name;
            if (virDomainIsActive(dom.get()) == 1)
                virDomainDestroy(dom.get());
            virDomainUndefineFlags(dom.get(), VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA);
        }
    }
    for (const VirNetwork &net : listAllNetworks(m_libvirt.get())) {
        const QString name = QString::fromUtf8(virNetworkGetName(net.get()));
        if (name.startsWith(prefix) && !knownObjects.contains(name)) {
            qCInfo(lcEngine) << "reconcile: removing orphan network" << name;
            if (virNetworkIsActive(net.get()) == 1)
                virNetworkDestroy(net.get());
            virNetworkUndefine(net.get());
        }
    }

    collectLayers();
    collectCheckpoints();
    m_pool->refresh();
    for (const QString &vol : m_pool->volumeNames()) {
        if (vol.startsWith(volumePrefix()) && !knownVolumes.contains(vol)) {
            qCInfo(lcEngine) << "reconcile: removing orphan volume" << vol;
            m_pool->deleteVolume(vol);
        }
    }
    return ok();
}

// ---- images ----------------------------------------------------------------------------

Result<QJsonObject> SandboxEngine::buildImage(const QString &recipeName, const QString &nameIn, const Progress &progress,
                                              const std::function<bool()> &cancelled)
{
    if (Status s = ensureLibvirt(); !s)
        return s.error();
    Result<ImageRecipe> recipe = ImageRecipe::find(recipeName);
    if (!recipe)
        return recipe.error();
    return makeImage(recipe.value(), nameIn.isEmpty() ? recipeName : nameIn, progress, cancelled);
}

Result<QJsonObject> SandboxEngine::importImage(const QString &archive, const QString &format, const QString &reference,
                                               const QString &name, const Progress &progress, const std::function<bool()> &cancelled)
{
    if (Status s = ensureLibvirt(); !s)
        return s.error();
    if (Status s = checkImageName(name); !s)
        return s.error(); // before hashing what may be gigabytes
    progress(1, QStringLiteral("checking the upload"));
    Result<ImageRecipe> importer = ImageRecipe::importer(archive, format, reference);
    if (!importer)
        return importer.error();
    return makeImage(importer.value(), name, progress, cancelled);
}

Status SandboxEngine::checkImageName(const QString &name)
{
    if (validName(name))
        return ok();
    return Error{QStringLiteral("invalid image name \"%1\"").arg(name),
                 QStringLiteral("use 1-32 characters a-z, 0-9 and -, starting with a letter or digit"), ErrorKind::InvalidParams};
}

// Runs a recipe (or an import) into the pool, unless the image already has its digest.
Result<QJsonObject> SandboxEngine::makeImage(const ImageRecipe &recipe, const QString &name, const Progress &progress,
                                             const std::function<bool()> &cancelled)
{
    if (Status s = checkImageName(name); !s)
        return s.error();
    const QString volBase = QStringLiteral("%1img-%2-%3").arg(volumePrefix(), name, recipe.digest.left(12));
    const ImageVolumes vols{volBase + QStringLiteral(".vmlinuz"), volBase + QStringLiteral(".initrd"),
                            volBase + QStringLiteral(".root.raw")};
    if (Result<std::optional<QJsonObject>> cached = cachedImage(name, recipe.digest, vols); !cached)
        return cached.error();
    else if (cached.value()) {
        progress(100, QStringLiteral("cached"));
        return *cached.value();
    }

    // The scratch dir sits beside the pool so the results move in with a rename.
    const QString scratch = m_pool->path() + QStringLiteral("/../build-") + volBase;
    QDir(scratch).removeRecursively();
    if (!QDir().mkpath(scratch))
        return Error{QStringLiteral("cannot create %1").arg(scratch), QStringLiteral("check disk space and permissions")};
    Result<qint64> op = beginOperation(QStringLiteral("image"), name,
                                       {{QStringLiteral("scratch"), QDir::cleanPath(scratch)},
                                        {QStringLiteral("volumes"), QJsonArray{vols.kernel, vols.initrd, vols.root}}});
    if (!op)
        return op.error();
    crashPoint("image:begun"); // the scratch dir and the operation exist, nothing else yet
    auto fail = [&](const Error &failure) -> Error {
        const Error e = explainDiskFull(failure, m_pool->path()); // before the cleanup frees room
        QDir(QDir::cleanPath(scratch)).removeRecursively();
        for (const QString &v : {vols.kernel, vols.initrd, vols.root}) {
            QFile::remove(m_pool->path() + QLatin1Char('/') + v);
            m_pool->deleteVolume(v);
        }
        m_pool->refresh();
        endOperation(op.value());
        return e;
    };

    progress(0, recipe.isImport() ? QStringLiteral("importing") : QStringLiteral("running recipe %1").arg(recipe.name));
    if (Status s = recipe.run(QDir::cleanPath(scratch), progress, cancelled); !s)
        return fail(s.error());
    crashPoint("image:ran");
    if (Status s = moveRecipeOutputs(scratch, vols); !s)
        return fail(s.error());
    crashPoint("image:moved");
    const qint64 size = qint64(m_pool->volumeAllocation(vols.kernel) + m_pool->volumeAllocation(vols.initrd) +
                               m_pool->volumeAllocation(vols.root));

    QStringList oldVolumes;
    Status stored = m_store.transaction([&]() -> Status {
        return recordImage(name, recipe.name, recipe.digest, vols, size, op.value(), &oldVolumes);
    });
    if (!stored)
        return fail(stored.error());
    for (const QString &v : oldVolumes)
        if (v != vols.kernel && v != vols.initrd && v != vols.root)
            m_pool->deleteVolume(v);
    probeAccel();
    progress(100, QStringLiteral("done"));
    return QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("kernel"), vols.kernel},
                       {QStringLiteral("size_bytes"), size}, {QStringLiteral("recipe"), recipe.name},
                       {QStringLiteral("cached"), false}};
}

// The image as listed when it is built from this digest and its volumes are all there;
// none when it must be built; an error when sandboxes use an image it would replace.
Result<std::optional<QJsonObject>> SandboxEngine::cachedImage(const QString &name, const QString &digest, const ImageVolumes &vols)
{
    const auto built = m_store.firstRow(QStringLiteral("SELECT digest FROM images WHERE name = ?"), {name});
    if (!built)
        return Error{QStringLiteral("cannot read image %1").arg(name), built.error().why};
    if (!built.value())
        return std::optional<QJsonObject>();
    if (built.value()->value(0).toString() == digest && m_pool->hasVolume(vols.kernel) && m_pool->hasVolume(vols.initrd) &&
        m_pool->hasVolume(vols.root)) {
        const Result<QJsonArray> images = listImages();
        if (!images)
            return images.error();
        for (const QJsonValue &v : images.value())
            if (v.toObject().value(QLatin1String("name")).toString() == name) {
                QJsonObject o = v.toObject();
                o.insert(QStringLiteral("cached"), true);
                return std::optional<QJsonObject>(o);
            }
    }
    const auto used = m_store.firstRow(QStringLiteral("SELECT count(*) FROM sandboxes WHERE image = ?"), {name});
    if (!used) // unknown counts as used: never rebuild under a running sandbox
        return Error{QStringLiteral("cannot rebuild image %1").arg(name), used.error().why};
    if (used.value() && used.value()->value(0).toInt() > 0)
        return Error{QStringLiteral("cannot rebuild image %1").arg(name),
                     QStringLiteral("sandboxes use the current one; build it under another name (--name)"), ErrorKind::Conflict};
    return std::optional<QJsonObject>();
}

Status SandboxEngine::moveRecipeOutputs(const QString &scratch, const ImageVolumes &vols)
{
    const QList<QPair<QString, QString>> moves = {{QStringLiteral("vmlinuz"), vols.kernel},
                                                  {QStringLiteral("initrd.img"), vols.initrd},
                                                  {QStringLiteral("rootfs.img"), vols.root}};
    for (const auto &[file, vol] : moves) {
        const QString dest = m_pool->path() + QLatin1Char('/') + vol;
        QFile::remove(dest);
        if (!QFile::rename(scratch + QLatin1Char('/') + file, dest))
            return Error{QStringLiteral("the recipe did not produce %1").arg(file), QStringLiteral("check the recipe")};
        QFile::setPermissions(dest, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup |
                                        QFileDevice::ReadOther);
    }
    QDir(QDir::cleanPath(scratch)).removeRecursively();
    return m_pool->refresh();
}

// Inside buildImage's transaction; oldVolumes gets the volumes of the image it replaces.
Status SandboxEngine::recordImage(const QString &name, const QString &recipe, const QString &digest, const ImageVolumes &vols,
                                  qint64 size, qint64 opId, QStringList *oldVolumes)
{
    const auto old = m_store.firstRow(QStringLiteral("SELECT kernel, initrd, rootfs FROM images WHERE name = ?"), {name});
    if (!old)
        return old.error();
    if (*old)
        *oldVolumes << (*old)->value(0).toString() << (*old)->value(1).toString() << (*old)->value(2).toString();
    const Result<qint64> recorded =
        m_store.write(QStringLiteral("INSERT OR REPLACE INTO images(name, recipe, kernel, initrd, rootfs, size_bytes, digest, created) "
                                     "VALUES(?, ?, ?, ?, ?, ?, ?, ?)"),
                      {name, recipe, vols.kernel, vols.initrd, vols.root, size, digest, now()});
    if (!recorded)
        return sqlFailed(QStringLiteral("cannot record image %1").arg(name), recorded);
    const Result<qint64> done = m_store.write(QStringLiteral("DELETE FROM operations WHERE id = ?"), {opId});
    if (!done)
        return sqlFailed(QStringLiteral("cannot record image %1").arg(name), done);
    return ok();
}

Result<QJsonArray> SandboxEngine::listImages()
{
    const auto rows = m_store.rows(QStringLiteral("SELECT name, kernel, size_bytes, created, recipe FROM images ORDER BY name"));
    if (!rows)
        return sqlFailed(QStringLiteral("cannot list images"), rows);
    QJsonArray out;
    for (const QSqlRecord &q : *rows)
        out.append(QJsonObject{{QStringLiteral("name"), q.value(0).toString()},
                               {QStringLiteral("kernel"), q.value(1).toString()},
                               {QStringLiteral("size_bytes"), q.value(2).toLongLong()},
                               {QStringLiteral("created"), q.value(3).toString()},
                               {QStringLiteral("recipe"), q.value(4).toString()}});
    return out;
}

Status SandboxEngine::removeImage(const QString &name)
{
    if (Status s = ensureLibvirt(); !s)
        return s;
    const auto image = m_store.firstRow(QStringLiteral("SELECT kernel, initrd, rootfs FROM images WHERE name = ?"), {name});
    if (!image)
        return image.error();
    if (!image.value())
        return Error{QStringLiteral("no image named %1").arg(name), QStringLiteral("see `airlockctl image ls`"), ErrorKind::NotFound};
    const QSqlRecord &row = *image.value();
    const QStringList volumes{row.value(0).toString(), row.value(1).toString(), row.value(2).toString()};
    const auto users = m_store.firstRow(QStringLiteral("SELECT group_concat(name, ', ') FROM sandboxes WHERE image = ?"), {name});
    if (users && users.value() && !users.value()->value(0).toString().isEmpty())
        return Error{QStringLiteral("image %1 is in use").arg(name),
                     QStringLiteral("remove the sandboxes built on it first: %1").arg(users.value()->value(0).toString()),
                     ErrorKind::Conflict};
    if (Result<qint64> removed = m_store.write(QStringLiteral("DELETE FROM images WHERE name = ?"), {name}); !removed)
        return Error{QStringLiteral("cannot remove image %1").arg(name), removed.error().why};
    for (const QString &v : volumes)
        m_pool->deleteVolume(v); // leftovers are swept by reconcile
    return ok();
}

// ---- image integrity ---------------------------------------------------------------------

// The image's files as they are on disk now: someone may have deleted or overwritten them
// behind Airlock's back. A root disk that no longer starts with an ext4 superblock would
// leave the guest hanging in its initramfs, so it is refused here with what to do.
Result<SandboxEngine::ImageFiles> SandboxEngine::checkImage(const QString &image)
{
    const auto row = m_store.firstRow(QStringLiteral("SELECT kernel, initrd, rootfs, recipe FROM images WHERE name = ?"), {image});
    if (!row)
        return row.error();
    if (!row.value())
        return Error{QStringLiteral("the image %1 of this sandbox is gone").arg(image),
                     QStringLiteral("build it again (airlockctl image build RECIPE --name %1)").arg(image), ErrorKind::Conflict};
    const QString recipe = row.value()->value(3).toString();
    const QString rebuild = QStringLiteral("rebuild the image: remove the sandboxes on it, then airlockctl image rm %1; "
                                           "airlockctl image build %2 --name %1").arg(image, recipe);
    m_pool->refresh(); // files removed behind our back must not linger as volumes
    ImageFiles files;
    const QList<std::pair<int, QString *>> parts{{0, &files.kernel}, {1, &files.initrd}, {2, &files.root}};
    for (const auto &[column, out] : parts) {
        const QString volume = row.value()->value(column).toString();
        auto path = m_pool->volumePath(volume);
        if (!path || !QFile::exists(path.value()))
            return Error{QStringLiteral("image %1 is damaged: its %2 (%3) is missing")
                             .arg(image, column == 0 ? QStringLiteral("kernel") : column == 1 ? QStringLiteral("initrd")
                                                                                              : QStringLiteral("root disk"), volume),
                         rebuild, ErrorKind::Conflict};
        *out = path.value();
    }
    QFile root(files.root);
    QByteArray magic;
    if (root.open(QIODevice::ReadOnly) && root.seek(kExt4MagicOffset))
        magic = root.read(2);
    if (magic != QByteArray("\x53\xef", 2))
        return Error{QStringLiteral("image %1 is damaged: its root disk %2 is no ext4 filesystem any more").arg(image, files.root),
                     rebuild, ErrorKind::Conflict};
    return files;
}

// ---- sandboxes -------------------------------------------------------------------------

Status SandboxEngine::requireSandbox(const QString &name, uid_t uid, qint64 *id)
{
    const auto row = m_store.firstRow(QStringLiteral("SELECT id, owner_uid FROM sandboxes WHERE name = ?"), {name});
    if (!row)
        return sqlFailed(QStringLiteral("cannot read sandbox %1").arg(name), row);
    if (!*row || !(uid == 0 || uid == uid_t((*row)->value(1).toLongLong())))
        return Error{QStringLiteral("no sandbox named %1").arg(name), QStringLiteral("see `airlockctl ls`"), ErrorKind::NotFound};
    if (id)
        *id = (*row)->value(0).toLongLong();
    return ok();
}

Result<QString> SandboxEngine::domainOf(const QString &name, uid_t uid)
{
    if (Status s = ensureLibvirt(); !s)
        return s.error();
    if (Status s = requireSandbox(name, uid); !s)
        return s.error();
    return objectName(name);
}

QString SandboxEngine::stateOf(virConnectPtr conn, const QString &domainName)
{
    VirDomain d = lookupDomain(conn, domainName);
    if (!d) {
        // Only libvirt itself saying "no such domain" means gone: a broken connection
        // (libvirtd restarting) says nothing about the guest, which may well still run.
        virErrorPtr err = virGetLastError();
        return err && err->code == VIR_ERR_NO_DOMAIN ? QStringLiteral("missing") : QStringLiteral("unknown");
    }
    int state = 0, reason = 0;
    if (virDomainGetState(d.get(), &state, &reason, 0) < 0)
        return QStringLiteral("unknown");
    switch (state) {
    case VIR_DOMAIN_RUNNING: return QStringLiteral("running");
    case VIR_DOMAIN_BLOCKED: return QStringLiteral("running");
    case VIR_DOMAIN_PAUSED: return QStringLiteral("paused");
    case VIR_DOMAIN_SHUTDOWN: return QStringLiteral("stopping");
    case VIR_DOMAIN_SHUTOFF: return QStringLiteral("stopped");
    case VIR_DOMAIN_CRASHED: return QStringLiteral("crashed");
    case VIR_DOMAIN_PMSUSPENDED: return QStringLiteral("suspended");
    default: return QStringLiteral("unknown");
    }
}

namespace {

enum class HostPause { None, FullDisk, IoError };

// Why QEMU paused `d` by itself; QEMU reports per disk whether the error was ENOSPC (reset
// when the guest resumes).
HostPause hostPauseOf(virDomainPtr d)
{
    int state = 0, reason = 0;
    if (!d || virDomainGetState(d, &state, &reason, 0) < 0 || state != VIR_DOMAIN_PAUSED ||
        reason != VIR_DOMAIN_PAUSED_IOERROR)
        return HostPause::None;
    bool noSpace = false;
    const int n = virDomainGetDiskErrors(d, nullptr, 0, 0);
    if (n > 0) {
        std::vector<virDomainDiskError> errors(static_cast<size_t>(n));
        const int got = virDomainGetDiskErrors(d, errors.data(), unsigned(n), 0);
        for (int i = 0; i < got; ++i) {
            noSpace = noSpace || errors[size_t(i)].error == VIR_DOMAIN_DISK_ERROR_NO_SPACE;
            free(errors[size_t(i)].disk);
        }
    }
    return noSpace ? HostPause::FullDisk : HostPause::IoError;
}

} // namespace

QString SandboxEngine::pausedReason(const QString &sandbox, const QString &domainName)
{
    VirDomain d = lookupDomain(m_libvirt.get(), domainName);
    const HostPause pause = hostPauseOf(d.get());
    if (pause == HostPause::None)
        return {};
    const QString dir = m_pool ? m_pool->path() : poolDirectory();
    const QString pool = m_pool ? m_pool->name() : QStringLiteral("airlock");
    if (pause == HostPause::FullDisk || diskIsFull(dir))
        return QStringLiteral("paused: the host disk holding its overlay (pool %1, %2) is full; free space there (see `df -h %2`) "
                              "and it goes on by itself (or `airlockctl resume %3`)").arg(pool, dir, sandbox);
    return QStringLiteral("paused: an I/O error on the host disk holding its overlay (pool %1, %2); check that disk "
                          "(`dmesg`), then `airlockctl resume %3`").arg(pool, dir, sandbox);
}

bool SandboxEngine::pausedForFullDisk(const QString &domainName)
{
    return hostPauseOf(lookupDomain(m_libvirt.get(), domainName).get()) == HostPause::FullDisk;
}

qint64 SandboxEngine::poolBytesAvailable() const
{
    const QStorageInfo disk(m_pool ? m_pool->path() : poolDirectory());
    return disk.isValid() ? disk.bytesAvailable() : -1;
}

Status SandboxEngine::validateCreate(const CreateRequest &r)
{
    if (!validName(r.name))
        return Error{QStringLiteral("invalid sandbox name \"%1\"").arg(r.name),
                     QStringLiteral("use 1-32 characters a-z, 0-9 and -, starting with a letter or digit"), ErrorKind::InvalidParams};
    if (r.memoryMib < kMinMemoryMib)
        return Error{QStringLiteral("%1 MiB of memory is too little").arg(r.memoryMib),
                     QStringLiteral("give at least %1 (--memory %1)").arg(kMinMemoryMib), ErrorKind::InvalidParams};
    const int hostCpus = QThread::idealThreadCount();
    if (r.cpus < 1 || r.cpus > qMax(hostCpus, 1) * 4)
        return Error{QStringLiteral("%1 CPUs is out of range").arg(r.cpus),
                     QStringLiteral("give 1 to %1 (--cpus)").arg(qMax(hostCpus, 1) * 4), ErrorKind::InvalidParams};
    if (r.diskGib < 1 || r.diskGib > 4096)
        return Error{QStringLiteral("a %1 GiB disk is out of range").arg(r.diskGib),
                     QStringLiteral("give 1 to 4096 (--disk)"), ErrorKind::InvalidParams};
    static const QRegularExpression envKey(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    for (auto it = r.env.cbegin(); it != r.env.cend(); ++it) {
        if (!envKey.match(it.key()).hasMatch() || it.value().contains(QLatin1Char('\n')))
            return Error{QStringLiteral("invalid environment variable \"%1\"").arg(it.key()),
                         QStringLiteral("use --env NAME=VALUE with NAME of letters, digits and _ and a one-line value"),
                         ErrorKind::InvalidParams};
    }
    return ok();
}

// Everything a create needs before it touches libvirt: the name is free, the image is
// whole, the disk's backing file and a fresh MAC. Makes nothing.
Result<SandboxEngine::CreatePlan> SandboxEngine::planCreate(const CreateRequest &r)
{
    if (const auto taken = m_store.firstRow(QStringLiteral("SELECT 1 FROM sandboxes WHERE name = ?"), {r.name}); taken && taken.value())
        return Error{QStringLiteral("a sandbox named %1 already exists").arg(r.name),
                     QStringLiteral("choose another name or remove it first (airlockctl rm %1)").arg(r.name), ErrorKind::Conflict};
    if (const auto image = m_store.firstRow(QStringLiteral("SELECT 1 FROM images WHERE name = ?"), {r.image}); !image || !image.value())
        return Error{QStringLiteral("no image named %1").arg(r.image),
                     QStringLiteral("build it first (airlockctl image build %1) or see `airlockctl image ls`").arg(r.image),
                     ErrorKind::NotFound};
    auto files = checkImage(r.image);
    if (!files)
        return files.error();
    CreatePlan plan;
    SandboxSpec &spec = plan.spec;
    spec.name = r.name;
    spec.domainName = spec.networkName = objectName(r.name);
    spec.cpus = r.cpus;
    spec.memoryMib = r.memoryMib;
    spec.env = r.env;
    spec.kvm = m_accel == QLatin1String("kvm");
    spec.kernelPath = files->kernel;
    spec.initrdPath = files->initrd;
    plan.backingPath = files->root;
    if (r.baseLayer) {
        Result<QString> layer = layerVolume(r.baseLayer);
        if (!layer)
            return layer.error();
        plan.backingPath = layer.value();
        plan.backingFormat = QStringLiteral("qcow2");
    }
    for (int i = 0; i < 16; ++i) {
        spec.mac = randomMac();
        const auto clash = m_store.firstRow(QStringLiteral("SELECT 1 FROM sandboxes WHERE mac = ?"), {spec.mac});
        if (clash && !clash.value())
            break;
    }
    plan.volume = QStringLiteral("%1sbx-%2-%3.qcow2").arg(volumePrefix(), r.name, QUuid::createUuid().toString(QUuid::Id128).left(8));
    return plan;
}

// A /30 no sandbox of ours uses; another daemon's may still collide, so libvirt decides.
// Fills spec's bridge and addresses with the subnet whose network libvirt started.
Status SandboxEngine::defineSandboxNetwork(SandboxSpec &spec)
{
    QSet<quint32> used;
    const auto subnets = m_store.rows(QStringLiteral("SELECT subnet FROM networks"));
    if (!subnets)
        return Error{QStringLiteral("cannot read which subnets are in use"), subnets.error().why};
    for (const QSqlRecord &row : *subnets)
        used.insert(QHostAddress(row.value(0).toString().section(QLatin1Char('/'), 0, 0)).toIPv4Address());
    Error lastNetError;
    int attempts = 0;
    for (int i = 0; i < m_subnetCount && attempts < 64; ++i) {
        const quint32 base = m_subnetBase + quint32(i) * 4;
        if (used.contains(base))
            continue;
        ++attempts;
        spec.gateway = QHostAddress(base + 1).toString();
        spec.guestIp = QHostAddress(base + 2).toString();
        spec.bridge = QStringLiteral("al-%1%2").arg(m_instance).arg(i, 4, 16, QLatin1Char('0'));
        VirNetwork net(virNetworkDefineXML(m_libvirt.get(), networkXml(spec).toUtf8().constData()));
        if (!net) {
            lastNetError = LibvirtConnection::lastError(QStringLiteral("cannot define the network of %1").arg(spec.name));
            destroyNetwork(m_libvirt.get(), spec.networkName);
            if (lastNetError.why.contains(QLatin1String("already exists")))
                return lastNetError;
            continue;
        }
        if (virNetworkCreate(net.get()) < 0) {
            lastNetError = LibvirtConnection::lastError(QStringLiteral("cannot start the network of %1").arg(spec.name));
            virNetworkUndefine(net.get());
            continue;
        }
        virNetworkSetAutostart(net.get(), 1);
        return ok();
    }
    if (lastNetError.what.isEmpty())
        return Error{QStringLiteral("no free subnet left for %1").arg(spec.name),
                     QStringLiteral("remove sandboxes or widen the pool (setting network.pool)")};
    return lastNetError;
}

// inPlace: the domain of this create is defined again (a new environment); libvirt needs
// its UUID to update it rather than refuse a second domain of the name.
Status SandboxEngine::defineDomain(const SandboxSpec &spec, bool inPlace)
{
    // x86's kernel keeps 2048 bytes of its command line (with the NUL) and drops the rest:
    // an environment cut short there would lose variables without a word.
    constexpr qsizetype kMaxKernelCommandLine = 2047;
    if (const qsizetype length = kernelCommandLine(spec).size(); length > kMaxKernelCommandLine)
        return Error{QStringLiteral("the environment of %1 does not fit on the guest kernel's command line (%2 bytes, at most %3)")
                         .arg(spec.name).arg(length).arg(kMaxKernelCommandLine),
                     QStringLiteral("pass fewer or shorter --env values, or lend fewer secrets"), ErrorKind::InvalidParams};
    QString xml = domainXml(spec);
    if (VirDomain existing = inPlace ? lookupDomain(m_libvirt.get(), spec.domainName) : VirDomain()) {
        char uuid[VIR_UUID_STRING_BUFLEN] = {};
        if (virDomainGetUUIDString(existing.get(), uuid) == 0)
            xml.replace(QStringLiteral("</name>"), QStringLiteral("</name>\n  <uuid>%1</uuid>").arg(QString::fromLatin1(uuid)));
    }
    VirDomain dom(virDomainDefineXML(m_libvirt.get(), xml.toUtf8().constData()));
    if (!dom)
        return LibvirtConnection::lastError(QStringLiteral("cannot define the domain of %1").arg(spec.name));
    return ok();
}

Result<QJsonObject> SandboxEngine::create(const CreateRequest &r)
{
    if (Status s = validateCreate(r); !s)
        return s.error();
    if (Status s = ensureLibvirt(); !s)
        return s.error();
    Result<CreatePlan> plan = planCreate(r);
    if (!plan)
        return plan.error();
    SandboxSpec &spec = plan->spec;

    const QJsonObject state{{QStringLiteral("domain"), spec.domainName},
                            {QStringLiteral("network"), spec.networkName},
                            {QStringLiteral("volumes"), QJsonArray{plan->volume}}};
    Result<qint64> op = beginOperation(QStringLiteral("create"), r.name, state);
    if (!op)
        return op.error();
    auto fail = [&](Error e) -> Error {
        rollbackObjects(state);
        endOperation(op.value());
        return e;
    };

    if (Status s = defineSandboxNetwork(spec); !s)
        return fail(s.error());
    crashPoint("create:network");
    auto disk = m_pool->createOverlay(plan->volume, plan->backingPath, plan->backingFormat, quint64(r.diskGib) << 30);
    if (!disk)
        return fail(disk.error());
    spec.diskPath = disk.value();
    if (Status s = defineDomain(spec, false); !s)
        return fail(s.error());
    crashPoint("create:domain");

    Status stored = m_store.transaction([&]() -> Status { return recordSandbox(r, spec, plan->volume, op.value()); });
    if (!stored)
        return fail(stored.error());
    qCInfo(lcEngine) << "created sandbox" << r.name << "at" << spec.guestIp << "on" << spec.bridge;
    return QJsonObject{{QStringLiteral("name"), r.name}, {QStringLiteral("state"), QStringLiteral("stopped")},
                       {QStringLiteral("image"), r.image}, {QStringLiteral("ip"), spec.guestIp}};
}

// Inside create's transaction: the network, sandbox and layer rows, the lent secrets, and
// the end of the operation, all or nothing.
Status SandboxEngine::recordSandbox(const CreateRequest &r, SandboxSpec &spec, const QString &volume, qint64 opId)
{
    QJsonObject envJson; // grows by the lent secrets' variables
    for (auto it = r.env.cbegin(); it != r.env.cend(); ++it)
        envJson.insert(it.key(), it.value());
    const QString subnet = QStringLiteral("%1/30").arg(QHostAddress(QHostAddress(spec.gateway).toIPv4Address() - 1).toString());
    const Result<qint64> network =
        m_store.write(QStringLiteral("INSERT INTO networks(name, bridge, subnet, gateway, guest_ip, created) VALUES(?, ?, ?, ?, ?, ?)"),
                      {spec.networkName, spec.bridge, subnet, spec.gateway, spec.guestIp, now()});
    if (!network)
        return sqlFailed(QStringLiteral("cannot record the network of %1").arg(r.name), network);
    const Result<qint64> id = m_store.write(
        QStringLiteral("INSERT INTO sandboxes(name, owner_uid, image, cpus, memory_mib, disk_gib, mac, network, env_json, created, ephemeral, "
                       "checkpoint_every_s, checkpoint_keep) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        {r.name, qint64(r.owner), r.image, r.cpus, r.memoryMib, r.diskGib, spec.mac, spec.networkName,
         QString::fromUtf8(QJsonDocument(envJson).toJson(QJsonDocument::Compact)), now(), r.ephemeral ? 1 : 0,
         r.checkpointEverySeconds, r.checkpointEverySeconds ? r.checkpointKeep : 0});
    if (!id)
        return sqlFailed(QStringLiteral("cannot record sandbox %1").arg(r.name), id);
    if (Status s = lendSecrets(r, spec, envJson, *id); !s)
        return s;
    const Result<qint64> layer =
        m_store.write(QStringLiteral("INSERT INTO layers(sandbox_id, parent_id, volume, frozen, created) VALUES(?, ?, ?, 0, ?)"),
                      {*id, r.baseLayer ? QVariant(r.baseLayer) : QVariant(QMetaType(QMetaType::LongLong)), volume, now()});
    if (!layer)
        return sqlFailed(QStringLiteral("cannot record the disk of %1").arg(r.name), layer);
    const Result<qint64> top = m_store.write(QStringLiteral("UPDATE sandboxes SET top_layer = ? WHERE id = ?"), {*layer, *id});
    if (!top)
        return sqlFailed(QStringLiteral("cannot record the disk of %1").arg(r.name), top);
    const Result<qint64> done = m_store.write(QStringLiteral("DELETE FROM operations WHERE id = ?"), {opId});
    if (!done)
        return sqlFailed(QStringLiteral("cannot record sandbox %1").arg(r.name), done);
    return ok();
}

// The guest's environment gets the placeholders of what it borrows: recorded with the row
// and the domain defined again with them.
Status SandboxEngine::lendSecrets(const CreateRequest &r, SandboxSpec &spec, QJsonObject &envJson, qint64 id)
{
    if (!r.lend)
        return ok();
    Result<QMap<QString, QString>> lent = r.lend(m_store, id);
    if (!lent)
        return lent.error();
    if (lent->isEmpty())
        return ok();
    // The person's own git settings (--env GIT_CONFIG_*) stay beside the credential helper's.
    QMap<QString, QString> own;
    for (auto it = envJson.constBegin(); it != envJson.constEnd(); ++it)
        own.insert(it.key(), it.value().toString());
    const QMap<QString, QString> merged = withGitConfig(own, lent.value());
    for (auto it = merged.cbegin(); it != merged.cend(); ++it) {
        spec.env.insert(it.key(), it.value());
        envJson.insert(it.key(), it.value());
    }
    const Result<qint64> env = m_store.write(QStringLiteral("UPDATE sandboxes SET env_json = ? WHERE id = ?"),
                                             {QString::fromUtf8(QJsonDocument(envJson).toJson(QJsonDocument::Compact)), id});
    if (!env)
        return sqlFailed(QStringLiteral("cannot record the environment of %1").arg(r.name), env);
    return defineDomain(spec, true);
}

Result<QJsonArray> SandboxEngine::list(uid_t uid)
{
    // Read whole before asking libvirt about each: no read stays open meanwhile.
    const auto rows = m_store.rows(QStringLiteral("SELECT s.name, s.image, n.guest_ip, s.cpus, s.memory_mib, s.owner_uid, s.disk_gib "
                                                  "FROM sandboxes s LEFT JOIN networks n ON n.name = s.network ORDER BY s.name"));
    if (!rows)
        return sqlFailed(QStringLiteral("cannot list sandboxes"), rows);
    const bool connected = ensureLibvirt().ok();
    QJsonArray out;
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    for (const QSqlRecord &q : *rows) {
        if (!(uid == 0 || uid == uid_t(q.value(5).toLongLong())))
            continue;
        const QString name = q.value(0).toString();
        const QString state = connected ? stateOf(m_libvirt.get(), objectName(name)) : QStringLiteral("unknown");
        if (state != QLatin1String("running") && state != QLatin1String("paused"))
            m_startedAt.remove(name);
        const qint64 started = m_startedAt.value(name, 0);
        const QString why = state == QLatin1String("paused") ? pausedReason(name, objectName(name)) : QString();
        QJsonObject row{{QStringLiteral("name"), name},
                        {QStringLiteral("state"), state},
                        {QStringLiteral("image"), q.value(1).toString()},
                        {QStringLiteral("ip"), q.value(2).toString()},
                        {QStringLiteral("pending"), 0},
                        {QStringLiteral("cpus"), q.value(3).toInt()},
                        {QStringLiteral("memory_mib"), q.value(4).toInt()},
                        {QStringLiteral("disk_gib"), q.value(6).toInt()},
                        {QStringLiteral("uptime_s"), started ? (nowMs - started) / 1000 : 0}};
        if (!why.isEmpty())
            row.insert(QStringLiteral("paused_reason"), why);
        out.append(row);
    }
    return out;
}

Result<QJsonObject> SandboxEngine::describe(const QString &name, uid_t uid)
{
    auto all = list(uid);
    if (!all)
        return all.error();
    for (const QJsonValue &v : all.value())
        if (v.toObject().value(QLatin1String("name")).toString() == name)
            return v.toObject();
    return Error{QStringLiteral("no sandbox named %1").arg(name), QStringLiteral("see `airlockctl ls`"), ErrorKind::NotFound};
}

// The sandbox's libvirt network, started if it is not running (a start, a checkpoint's restore).
Status SandboxEngine::activateNetwork(const QString &name)
{
    VirNetwork net = lookupNetwork(m_libvirt.get(), objectName(name));
    if (!net)
        return Error{QStringLiteral("the network of %1 is gone").arg(name),
                     QStringLiteral("it was removed behind Airlock's back; remove the sandbox and create it again"), ErrorKind::Conflict};
    if (virNetworkIsActive(net.get()) != 1 && virNetworkCreate(net.get()) < 0)
        return LibvirtConnection::lastError(QStringLiteral("cannot start the network of %1").arg(name));
    return ok();
}

Status SandboxEngine::startSandbox(const QString &name, uid_t uid)
{
    if (Status s = ensureLibvirt(); !s)
        return s;
    if (Status s = requireSandbox(name, uid); !s)
        return s;
    const QString obj = objectName(name);
    if (Status s = activateNetwork(name); !s)
        return s;
    VirDomain dom = lookupDomain(m_libvirt.get(), obj);
    if (!dom)
        return Error{QStringLiteral("the domain of %1 is gone").arg(name),
                     QStringLiteral("it was removed behind Airlock's back; remove the sandbox and create it again"), ErrorKind::Conflict};
    if (virDomainIsActive(dom.get()) == 1)
        return Error{QStringLiteral("sandbox %1 is already running").arg(name), {}, ErrorKind::Conflict};
    if (const auto image = m_store.firstRow(QStringLiteral("SELECT image FROM sandboxes WHERE name = ?"), {name}); image && image.value()) {
        if (auto files = checkImage(image.value()->value(0).toString()); !files)
            return Error{QStringLiteral("cannot start sandbox %1: %2").arg(name, files.error().what), files.error().why, ErrorKind::Conflict};
    }
    // The guest's first packet must already meet the egress rules.
    if (Status s = guardNetwork(name); !s)
        return s;
    crashPoint("start:guarded");
    if (virDomainCreate(dom.get()) < 0) {
        Error e = LibvirtConnection::lastError(QStringLiteral("cannot start sandbox %1").arg(name));
        releaseNetwork(name);
        if (e.why.contains(QLatin1String("backing")))
            e.why += QStringLiteral("; its image may have been deleted or damaged behind Airlock's back: rebuild the image");
        return e;
    }
    crashPoint("start:booted");
    m_startedAt.insert(name, QDateTime::currentMSecsSinceEpoch());
    return ok();
}

Status SandboxEngine::kill(const QString &name, uid_t uid)
{
    if (Status s = ensureLibvirt(); !s)
        return s;
    if (Status s = requireSandbox(name, uid); !s)
        return s;
    VirDomain dom = lookupDomain(m_libvirt.get(), objectName(name));
    if (!dom || virDomainIsActive(dom.get()) != 1)
        return Error{QStringLiteral("sandbox %1 is not running").arg(name), {}, ErrorKind::Conflict};
    if (virDomainDestroy(dom.get()) < 0)
        return LibvirtConnection::lastError(QStringLiteral("cannot kill sandbox %1").arg(name));
    releaseNetwork(name);
    m_startedAt.remove(name);
    return ok();
}

Status SandboxEngine::pause(const QString &name, uid_t uid) { return setPaused(name, uid, true); }

Status SandboxEngine::resume(const QString &name, uid_t uid) { return setPaused(name, uid, false); }

// Pausing needs a running domain, resuming a paused one.
Status SandboxEngine::setPaused(const QString &name, uid_t uid, bool paused)
{
    if (Status s = ensureLibvirt(); !s)
        return s;
    if (Status s = requireSandbox(name, uid); !s)
        return s;
    const QString from = paused ? QStringLiteral("running") : QStringLiteral("paused");
    VirDomain dom = lookupDomain(m_libvirt.get(), objectName(name));
    if (!dom || stateOf(m_libvirt.get(), objectName(name)) != from)
        return Error{QStringLiteral("sandbox %1 is not %2").arg(name, from),
                     paused ? QStringLiteral("only a running sandbox can be paused") : QString(), ErrorKind::Conflict};
    // A guest QEMU stopped for a full disk would stop again at its next write.
    if (!paused) {
        const QString why = pausedReason(name, objectName(name));
        const qint64 available = poolBytesAvailable();
        if (!why.isEmpty() && available >= 0 && available < kResumeFreeBytes)
            return Error{QStringLiteral("cannot resume sandbox %1 (%2 MiB free, %3 MiB needed)")
                             .arg(name).arg(available >> 20).arg(kResumeFreeBytes >> 20),
                         why, ErrorKind::Conflict};
    }
    if ((paused ? virDomainSuspend(dom.get()) : virDomainResume(dom.get())) < 0)
        return LibvirtConnection::lastError(
            QStringLiteral("cannot %1 sandbox %2").arg(paused ? QStringLiteral("pause") : QStringLiteral("resume"), name));
    return ok();
}

Status SandboxEngine::remove(const QString &name, uid_t uid)
{
    if (Status s = ensureLibvirt(); !s)
        return s;
    qint64 id = 0;
    if (Status s = requireSandbox(name, uid, &id); !s)
        return s;
    const QString obj = objectName(name);
    const QString state = stateOf(m_libvirt.get(), obj);
    if (state == QLatin1String("running") || state == QLatin1String("paused") || state == QLatin1String("stopping"))
        return Error{QStringLiteral("sandbox %1 is %2").arg(name, state),
                     QStringLiteral("stop it first (airlockctl stop %1, or kill)").arg(name), ErrorKind::Conflict};
    // Layers another sandbox builds on (a fork) stay, unowned, until nothing needs them.
    QJsonArray volumes;
    const auto own = m_store.rows(
        QStringLiteral("WITH RECURSIVE foreign_deps(id) AS ("
                       "  SELECT parent_id FROM layers WHERE sandbox_id IS NOT ? AND parent_id IS NOT NULL"
                       "  UNION SELECT l.parent_id FROM layers l JOIN foreign_deps f ON l.id = f.id WHERE l.parent_id IS NOT NULL) "
                       "SELECT volume FROM layers WHERE sandbox_id = ? AND id NOT IN (SELECT id FROM foreign_deps)"),
        {id, id});
    if (!own)
        return Error{QStringLiteral("cannot read the layers of %1; nothing was removed").arg(name), own.error().why};
    for (const QSqlRecord &row : *own)
        volumes.append(row.value(0).toString());
    const QJsonObject state2{{QStringLiteral("domain"), obj}, {QStringLiteral("network"), obj},
                             {QStringLiteral("volumes"), volumes}};
    Result<qint64> op = beginOperation(QStringLiteral("remove"), name, state2);
    if (!op)
        return op.error();
    releaseNetwork(name); // a guest that powered itself off may still be guarded
    // From here on the removal is finished even across a crash (reconcile redoes it).
    if (Status s = rollbackObjects(state2); !s)
        return s;
    crashPoint("remove:objects");
    Status stored = m_store.transaction([&]() -> Status {
        for (const auto &[sql, bind] : std::initializer_list<std::pair<QString, QVariant>>{
                 {QStringLiteral("UPDATE sandboxes SET top_layer = NULL WHERE id = ?"), id},
                 {QStringLiteral("DELETE FROM snapshots WHERE sandbox_id = ?"), id},
                 {QStringLiteral("UPDATE layers SET sandbox_id = NULL WHERE sandbox_id = ?"), id},
                 {QStringLiteral("DELETE FROM sandboxes WHERE id = ?"), id},
                 {QStringLiteral("DELETE FROM networks WHERE name = ?"), obj},
                 {QStringLiteral("DELETE FROM operations WHERE id = ?"), op.value()}}) {
            if (Result<qint64> w = m_store.write(sql, {bind}); !w)
                return Error{QStringLiteral("cannot remove sandbox %1").arg(name), w.error().why};
        }
        return ok();
    });
    m_startedAt.remove(name);
    if (stored) {
        collectLayers();
        collectCheckpoints();
    }
    return stored;
}

int SandboxEngine::sandboxCount()
{
    const auto row = m_store.firstRow(QStringLiteral("SELECT count(*) FROM sandboxes"));
    if (row && *row)
        return (*row)->value(0).toInt();
    qCWarning(lcEngine) << "cannot count the sandboxes:" << (row ? QStringLiteral("no row") : row.error().message());
    return 0;
}

} // namespace airlock
