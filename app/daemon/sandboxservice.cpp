#include "daemon/sandboxservice.h"
#include "daemon/callparams.h"
#include "daemon/secretbridge.h"
#include "daemon/egressnetworkhooks.h"
#include "daemon/enginerows.h"
#include "api/apiserver.h"
#include "api/jsonrpc.h"
#include "protocol/events.h"
#include "protocol/images.h"
#include "protocol/sandbox.h"
#include "protocol/snapshots.h"
#include "protocol/status.h"
#include "protocol/jsonfields.h"
#include "protocol/names.h"
#include "core/crashpoint.h"
#include "core/logging.h"
#include "store/store.h"
#include "consolehub.h"
#include "guestagent.h"
#include "sandboxengine.h"
#include "virhandle.h"
#include "agenttemplate.h"
#include "policy.h"
#include "portforwarder.h"
#include "policyfile.h"
#include "core/policyfiletext.h"
#include "presets.h"
#include "rulestore.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QSemaphore>
#include <QThread>
#include <QSet>
#include <libvirt/libvirt.h>

namespace airlock {

namespace {

constexpr int kDefaultBootTimeoutS = 120; // TCG on a loaded 2-core machine
constexpr int kStopTimeoutS = 30;
constexpr int kDiskWatchMs = 10000; // a guest agent call per running sandbox each time
constexpr int kCheckpointLookMs = 5000;    // how often due automatic checkpoints are looked for
constexpr qint64 kCheckpointRetryMs = 60000; // a failed automatic checkpoint is tried again after this
// Automatic resumes after a full disk less than this apart count as one streak.
constexpr qint64 kAutoResumeStreakMs = 10 * 60 * 1000;
constexpr int kAutoResumeMaxDoublings = 6; // the room needed stops growing at 64 × 16 MiB
constexpr qint64 kMaxChunk = 512 * 1024;   // a request line is at most 1 MiB
} // namespace

SandboxService::SandboxService(const DaemonConfig &config, ApiServer &api, EgressControl *egress)
    : m_config(config), m_api(api), m_uploads(config.dataDir + QStringLiteral("/uploads")), m_egress(egress)
{
    m_pool.setMaxThreadCount(16);
    m_execPool.setMaxThreadCount(ExecSlots::kThreads);
    if (m_egress) {
        m_ports = std::make_unique<PortForwarder>();
        m_hooks = std::make_unique<EgressNetworkHooks>(*m_egress, *m_ports);
    }
}

SandboxService::~SandboxService() { stop(); }

Status SandboxService::start()
{
    if (Status s = m_uploads.reset(); !s)
        return s;
    if (m_ports)
        m_ports->start();
    m_engine = std::make_unique<SandboxEngine>(m_config);
    m_engine->setNetworkHooks(m_hooks.get());
    m_builder = std::make_unique<SandboxEngine>(m_config);
    m_engineContext = new QObject;
    m_builderContext = new QObject;
    m_engineThread.setObjectName(QStringLiteral("engine"));
    m_builderThread.setObjectName(QStringLiteral("image-builder"));
    m_engineContext->moveToThread(&m_engineThread);
    m_builderContext->moveToThread(&m_builderThread);
    connect(&m_engineThread, &QThread::finished, m_engineContext, &QObject::deleteLater);
    connect(&m_builderThread, &QThread::finished, m_builderContext, &QObject::deleteLater);
    m_engineThread.start();
    m_builderThread.start();

    // Start-up (store, libvirt, reconcile, KVM probe) on the engine thread, but before we serve.
    QSemaphore done;
    Status result = ok();
    onEngine([&](SandboxEngine &engine) {
        result = engine.start();
        if (result)
            result = openOwnerStore(); // after reconcile, which may have finished or undone a create
        m_consoles = std::make_unique<ConsoleHub>(m_config.libvirtUri, [this](const QString &sandbox, const QByteArray &data) {
            m_api.postAbout(sandbox, proto::topic::console(sandbox), proto::ConsoleOutput{data}.toJson());
        });
        if (m_egress) // the guest's process reports, to the broker (broker/guestprocess.h)
            m_procs = std::make_unique<ConsoleHub>(
                m_config.libvirtUri, ConsoleHub::Channel{QByteArrayLiteral("org.airlock.proc.0"),
                                                         [egress = m_egress](const QString &sandbox, const QByteArray &data) {
                                                             return egress->guestProcessBytes(sandbox, data);
                                                         }});
        {
            QMutexLocker lock(&m_accelLock);
            m_accel = engine.accel();
        }
        countSandboxes(engine);
        reopenProcessReports(engine); // guests that ran on while airlockd was down
        done.release();
    });
    done.acquire();
    if (!result)
        return result;
    QSemaphore builderDone;
    onBuilder([&](SandboxEngine &builder) {
        builder.openWithoutReconcile();
        builderDone.release();
    });
    builderDone.acquire();
    m_diskWatch.setInterval(kDiskWatchMs);
    connect(&m_diskWatch, &QTimer::timeout, this, [this] { watchDisks(); });
    m_diskWatch.start();
    if (m_hooks) {
        m_sweep.setInterval(2000);
        connect(&m_sweep, &QTimer::timeout, this, [this] {
            onEngine([this](SandboxEngine &e) {
                e.releaseStoppedNetworks();
                discardEphemerals(e);
            });
        });
        m_sweep.start();
    }
    m_checkpoints.setInterval(kCheckpointLookMs);
    connect(&m_checkpoints, &QTimer::timeout, this, [this] {
        if (!m_checkpointsQueued.exchange(true))
            onEngine([this](SandboxEngine &e) { takeDueCheckpoints(e); });
    });
    m_checkpoints.start();
    return ok();
}

// Each due sandbox gets its checkpoint as if someone had asked: the same progress events, and
// the guest's clock set again after its pause.
void SandboxService::takeDueCheckpoints(SandboxEngine &e)
{
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    for (const QString &sandbox : e.checkpointsDue()) {
        if (m_stopping)
            break;
        if (m_checkpointRetryAt.value(sandbox) > nowMs)
            continue;
        m_api.postAbout(sandbox, proto::topic::Snapshot, proto::SnapshotProgress{sandbox, QStringLiteral("creating"), 0}.toJson());
        const Result<QJsonObject> made = e.takeAutomaticCheckpoint(sandbox);
        m_api.postAbout(sandbox, proto::topic::Snapshot,
                        proto::SnapshotProgress{sandbox, made ? QStringLiteral("done") : QStringLiteral("failed"), 100}.toJson());
        if (!made) {
            qCWarning(lcEngine).noquote() << "automatic checkpoint of" << sandbox << "failed:" << made.error().message();
            m_api.postAlert(sandbox, QStringLiteral("checkpoint_failed"),
                            QStringLiteral("the automatic checkpoint of %1 failed (tried again in a minute): %2")
                                .arg(sandbox, made.error().message()));
            m_checkpointRetryAt.insert(sandbox, nowMs + kCheckpointRetryMs);
            continue;
        }
        m_checkpointRetryAt.remove(sandbox);
        afterCheckpoint(e, sandbox, made->value(QLatin1String("id")).toInteger());
    }
    m_checkpointsQueued = false;
}

// A checkpoint was taken (asked for or on the schedule): its screen is kept with it, and the
// guest, paused while its memory was saved, gets its clock set again (on the pool).
void SandboxService::afterCheckpoint(SandboxEngine &e, const QString &sandbox, qint64 id)
{
    e.keepCheckpointScreen(sandbox, id, m_consoles->history(sandbox));
    if (Result<QString> domain = e.domainOf(sandbox, 0); domain)
        setGuestClock(domain.value(), sandbox, [](bool) {});
}

void SandboxService::stop()
{
    if (!m_engine)
        return;
    m_stopping = true;
    m_sweep.stop();
    m_diskWatch.stop();
    m_checkpoints.stop();
    m_pool.waitForDone(kStopTimeoutS * 1000);
    m_execPool.waitForDone(kStopTimeoutS * 1000);
    // The engines must be destroyed on their own threads (their Store connections live there).
    QSemaphore done;
    onEngine([&](SandboxEngine &) {
        m_procs.reset();
        m_consoles.reset();
        m_engine.reset();
        m_ownerStore.reset();
        done.release();
    });
    onBuilder([&](SandboxEngine &) { m_builder.reset(); done.release(); });
    done.acquire(2);
    m_engineThread.quit();
    m_builderThread.quit();
    m_engineThread.wait();
    m_builderThread.wait();
    if (m_ports)
        m_ports->stop(); // the engine is gone: nothing applies ports any more
}

void SandboxService::onEngine(std::function<void(SandboxEngine &)> work)
{
    QMetaObject::invokeMethod(m_engineContext, [this, work = std::move(work)] { work(*m_engine); }, Qt::QueuedConnection);
}

void SandboxService::onBuilder(std::function<void(SandboxEngine &)> work)
{
    QMetaObject::invokeMethod(m_builderContext, [this, work = std::move(work)] { work(*m_builder); }, Qt::QueuedConnection);
}

void SandboxService::inPool(std::function<void()> work) { m_pool.start(std::move(work)); }

void SandboxService::publishState(SandboxEngine &engine, const QString &name, uid_t uid)
{
    countSandboxes(engine);
    Result<proto::SandboxRow> row = rowOf(engine, name, uid);
    if (!row) {
        qCWarning(lcEngine) << "cannot publish the state of sandbox" << name << ":" << row.error().message();
        row = proto::SandboxRow::removed(name); // what describe failing said until now
    }
    if (row->state != proto::SandboxState::Removed && m_egress) // the count sandbox.list shows: a client needs none of its own
        row->pending = m_egress->pendingCount(name);
    const QJsonObject data = row->toJson();
    // Every create, fork and remove passes here: the directory learns of it (here, on the
    // engine thread, before the caller's answer) and the event goes to the sandbox's owner,
    // the one it had until now if it was removed.
    const std::optional<OwnerDirectory::Sandbox> before = m_owners.sandbox(name);
    m_owners.reload(*m_ownerStore);
    const std::optional<OwnerDirectory::Sandbox> now = m_owners.sandbox(name);
    const std::optional<OwnerDirectory::Sandbox> known = now ? now : before;
    const Audience audience = known ? Audience::of(known->owner) : Audience::administrators();
    QMetaObject::invokeMethod(this, [this, data, audience] { m_api.publish(proto::topic::Sandbox, data, audience); },
                              Qt::QueuedConnection);
}

Status SandboxService::openOwnerStore()
{
    Result<Store> store = Store::open(m_config.databasePath());
    if (!store)
        return store.error();
    m_ownerStore = std::make_unique<Store>(std::move(store.value()));
    m_owners.reload(*m_ownerStore);
    return ok();
}

void SandboxService::recordImage(const QString &name, std::optional<uid_t> builder, std::function<void()> then)
{
    onEngine([this, name, builder, then = std::move(then)](SandboxEngine &) {
        if (builder) {
            const Result<qint64> set = m_ownerStore->write(QStringLiteral("UPDATE images SET owner_uid = ? WHERE name = ?"),
                                                           {qint64(*builder), name});
            if (!set)
                qCWarning(lcEngine) << "cannot record who built image" << name << ":" << set.error().message();
        }
        m_owners.reload(*m_ownerStore);
        then();
    });
}

void SandboxService::reopenProcessReports(SandboxEngine &engine)
{
    if (!m_procs)
        return;
    const auto all = engine.list(0);
    if (!all)
        return;
    for (const QJsonValue &v : all.value()) {
        const QString name = v.toObject().value(QLatin1String("name")).toString();
        const QString state = v.toObject().value(QLatin1String("state")).toString();
        if (state != QLatin1String("running") && state != QLatin1String("paused"))
            continue;
        if (auto domain = engine.domainOf(name, 0))
            if (Status st = m_procs->ensure(name, domain.value()); !st)
                qCInfo(lcEngine) << st.error().message();
    }
}

void SandboxService::countSandboxes(SandboxEngine &engine)
{
    if (auto all = engine.list(0)) // uid 0: every sandbox, whoever owns it
        m_sandboxCount = int(all->size());
}

Result<proto::SandboxRow> SandboxService::rowOf(SandboxEngine &engine, const QString &name, uid_t uid)
{
    Result<QJsonObject> d = engine.describe(name, uid);
    if (!d)
        return d.error().kind == ErrorKind::NotFound ? Result<proto::SandboxRow>(proto::SandboxRow::removed(name)) : d.error();
    return fromEngine<proto::SandboxRow>(d.value());
}

void SandboxService::addPending(QList<proto::SandboxRow> &rows) const
{
    for (proto::SandboxRow &row : rows)
        row.pending = m_egress->pendingCount(row.name);
}

// A guest QEMU paused for a full disk goes on by itself once there is room again. One that
// fills the disk again soon after needs twice the room for each further resume, so a guest
// that writes without end is not driven into the same wall at every disk watch.
bool SandboxService::resumeAfterFullDisk(SandboxEngine &e, const QString &name)
{
    const auto domain = e.domainOf(name, 0);
    if (!domain || !e.pausedForFullDisk(domain.value()))
        return false;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (auto it = m_autoResumed.begin(); it != m_autoResumed.end();)
        it = now - it->atMs > kAutoResumeStreakMs ? m_autoResumed.erase(it) : std::next(it);
    const AutoResume last = m_autoResumed.value(name);
    const qint64 need = SandboxEngine::kResumeFreeBytes << qMin(last.streak, kAutoResumeMaxDoublings);
    const qint64 available = e.poolBytesAvailable();
    if (available < need)
        return false;
    if (Status s = e.resume(name, 0); !s) {
        qCWarning(lcEngine) << "cannot resume" << name << "after its full disk:" << s.error().message();
        return false;
    }
    m_autoResumed.insert(name, {now, last.streak + 1});
    const QString told =
        QStringLiteral("resumed: the host disk holding its overlay has room again (%1 MiB free)").arg(available >> 20);
    qCInfo(lcEngine).noquote() << name << told;
    m_api.postAlert(name, QStringLiteral("host_disk"), told);
    publishState(e, name, 0);
    return true;
}

void SandboxService::watchDisks()
{
    onEngine([this](SandboxEngine &e) {
        auto all = e.list(0);
        if (!all)
            return;
        QSet<QString> running;
        QHash<QString, QString> hostPaused;
        for (const QJsonValue &v : all.value()) {
            const QJsonObject o = v.toObject();
            if (o.value(QLatin1String("state")).toString() == QLatin1String("running"))
                running.insert(o.value(QLatin1String("name")).toString());
            if (const QString why = o.value(QLatin1String("paused_reason")).toString(); !why.isEmpty())
                hostPaused.insert(o.value(QLatin1String("name")).toString(), why);
        }
        for (auto it = hostPaused.begin(); it != hostPaused.end();)
            it = resumeAfterFullDisk(e, it.key()) ? hostPaused.erase(it) : std::next(it);
        // QEMU pauses a guest by itself: nobody called, so the change is told from here.
        for (auto it = hostPaused.cbegin(); it != hostPaused.cend(); ++it)
            if (m_hostPaused.value(it.key()) != it.value()) {
                m_api.postAlert(it.key(), QStringLiteral("host_disk"), it.value());
                publishState(e, it.key(), 0);
            }
        for (auto it = m_hostPaused.cbegin(); it != m_hostPaused.cend(); ++it)
            if (!hostPaused.contains(it.key()))
                publishState(e, it.key(), 0);
        m_hostPaused = hostPaused;
        QStringList toAsk;
        {
            QMutexLocker lock(&m_diskLock);
            for (auto it = m_disks.begin(); it != m_disks.end();)
                it = running.contains(it.key()) ? std::next(it) : m_disks.erase(it); // a restart starts afresh
            for (const QString &name : running) {
                DiskReading &d = m_disks[name];
                if (!d.inFlight) {
                    d.inFlight = true;
                    toAsk << name;
                }
            }
        }
        virConnectPtr conn = e.connection();
        for (const QString &name : toAsk) {
            auto found = e.domainOf(name, 0);
            if (!found) {
                QMutexLocker lock(&m_diskLock);
                m_disks[name].inFlight = false;
                continue;
            }
            const QString domain = found.value();
            inPool([this, conn, name, domain] {
                VirDomain dom = lookupDomain(conn, domain);
                // Not booted yet, frozen for a snapshot, or gone: try again next round.
                auto usage = dom ? GuestAgent(dom.get()).diskUsage(QStringLiteral("/"))
                                     : Result<DiskUsage>(Error{QStringLiteral("gone"), {}});
                bool alert = false;
                {
                    QMutexLocker lock(&m_diskLock);
                    auto it = m_disks.find(name);
                    if (it == m_disks.end())
                        return;
                    it->inFlight = false;
                    if (!usage)
                        return;
                    alert = usage->full() && !it->full;
                    it->used = usage->usedBytes;
                    it->total = usage->totalBytes;
                    it->full = usage->full();
                }
                if (alert)
                    m_api.postAlert(name, QStringLiteral("disk_full"),
                                    QStringLiteral("the disk of sandbox %1 is full (%2 of %3 MiB used); free space inside it, "
                                                   "or create a sandbox with a larger --disk")
                                        .arg(name).arg(usage->usedBytes >> 20).arg(usage->totalBytes >> 20));
            });
        }
    });
}

void SandboxService::addDisks(QList<proto::SandboxRow> &rows) const
{
    QMutexLocker lock(&m_diskLock);
    for (proto::SandboxRow &row : rows) {
        const DiskReading d = m_disks.value(row.name);
        row.disk = proto::DiskUsage{d.used, d.total, d.full};
    }
}

void SandboxService::contributeStatus(proto::DaemonStatus &status) const
{
    QMutexLocker lock(&m_accelLock);
    status.accel = m_accel;
    status.sandboxes = m_sandboxCount.load();
}

void SandboxService::registerMethods(ApiServer &api)
{
    registerOwnerLookups(api.policy());
    registerImageMethods(api);
    registerSandboxMethods(api);
    registerSnapshotMethods(api);
    registerConsoleMethods(api);
    registerPortMethods(api);
}

// Who owns a sandbox, an image, a build: what PeerPolicy asks before a call runs.
void SandboxService::registerOwnerLookups(PeerPolicy &policy)
{
    policy.setOwnerLookup(ObjectKind::Sandbox, [this](const QString &name) -> std::optional<uid_t> {
        const std::optional<OwnerDirectory::Sandbox> s = m_owners.sandbox(name);
        return s ? std::optional<uid_t>(s->owner) : std::nullopt;
    });
    policy.setOwnerLookup(ObjectKind::Image, [this](const QString &name) { return m_owners.imageOwner(name); });
    policy.setOwnerLookup(ObjectKind::Build, [this](const QString &name) { return m_builds.startedBy(name); });
}

void SandboxService::registerSandboxMethods(ApiServer &api)
{
    api.registerMethod(proto::method::SandboxCreate, [this](const Call &call) { create(call); });
    api.registerMethod(proto::method::SandboxList, [this](const Call &call) {
        const uid_t uid = call.peer().uid;
        onEngine([this, call, uid](SandboxEngine &e) {
            auto r = e.list(uid);
            Result<QList<proto::SandboxRow>> rows = r ? fromEngine<proto::SandboxRow>(r.value()) : r.error();
            if (!rows)
                return call.fail(rows.error());
            if (m_egress)
                addPending(rows.value());
            addDisks(rows.value());
            call.reply(proto::toJsonArray(rows.value()));
        });
    });
    using namespace proto::method;
    for (const QLatin1String m : {SandboxStart, SandboxKill, SandboxPause, SandboxResume, SandboxRemove}) {
        const QString method = QString(m).section(QLatin1Char('.'), 1); // "start", ...
        api.registerMethod(m, [this, method](const Call &call) { lifecycle(call, method); });
    }
    api.registerMethod(proto::method::SandboxStop, [this](const Call &call) { stopSandbox(call); });
    api.registerMethod(proto::method::SandboxExec, [this](const Call &call) { exec(call); });
    api.registerMethod(proto::method::SandboxFork, [this](const Call &call) { fork(call); });
    api.registerMethod(proto::method::FilePush, [this](const Call &call) { filePush(call); });
    api.registerMethod(proto::method::FilePull, [this](const Call &call) { filePull(call); });
}


void SandboxService::registerSnapshotMethods(ApiServer &api)
{
    api.registerMethod(proto::method::SnapshotCreate, [this](const Call &call) {
        const QString sandbox = stringParam(call, "sandbox");
        const QString label = stringParam(call, "label");
        const bool memory = call.params().value(QLatin1String("memory")).toBool();
        onEngine([this, call, sandbox, label, memory](SandboxEngine &e) {
            m_api.postAbout(sandbox, proto::topic::Snapshot, proto::SnapshotProgress{sandbox, QStringLiteral("creating"), 0}.toJson());
            auto r = e.createSnapshot(sandbox, label, call.peer().uid, memory);
            const QString phase = r ? QStringLiteral("done") : QStringLiteral("failed");
            m_api.postAbout(sandbox, proto::topic::Snapshot, proto::SnapshotProgress{sandbox, phase, 100}.toJson());
            const Result<proto::SnapshotInfo> made = r ? fromEngine<proto::SnapshotInfo>(r.value()) : r.error();
            if (made && memory)
                afterCheckpoint(e, sandbox, made->id);
            made ? call.reply(made->toJson()) : call.fail(made.error());
        });
    });
    api.registerMethod(proto::method::SnapshotSchedule, [this](const Call &call) {
        Result<proto::CheckpointSchedule> asked = proto::CheckpointSchedule::fromJson(call.params());
        if (!asked)
            return call.fail(asked.error());
        onEngine([call, asked = asked.value()](SandboxEngine &e) {
            auto r = e.checkpointSchedule(asked.sandbox, call.peer().uid, asked.everySeconds, asked.keep);
            r ? call.reply(r.value()) : call.fail(r.error());
        });
    });
    api.registerMethod(proto::method::SnapshotList, [this](const Call &call) {
        const QString sandbox = stringParam(call, "sandbox");
        onEngine([call, sandbox](SandboxEngine &e) {
            auto r = e.listSnapshots(sandbox, call.peer().uid);
            const Result<QList<proto::SnapshotInfo>> rows = r ? fromEngine<proto::SnapshotInfo>(r.value()) : r.error();
            rows ? call.reply(proto::toJsonArray(rows.value())) : call.fail(rows.error());
        });
    });
    api.registerMethod(proto::method::SnapshotRestore, [this](const Call &call) {
        const QString sandbox = stringParam(call, "sandbox");
        const qint64 id = call.params().value(QLatin1String("id")).toInteger();
        onEngine([this, call, sandbox, id](SandboxEngine &e) {
            auto r = e.restoreSnapshot(sandbox, id, call.peer().uid);
            if (!r)
                return call.fail(r.error());
            if (r.value() == Restored::Resumed) { // the guest goes on from the checkpoint, its clock behind
                if (m_egress)
                    m_egress->timelineReplaced(sandbox);
                if (const QByteArray screen = e.checkpointScreen(sandbox, id); !screen.isEmpty())
                    m_consoles->startOver(sandbox, screen); // the terminal shows what it showed then
                consoleAfterStart(e, sandbox, call.peer().uid);
                const Result<proto::SandboxRow> row = rowOf(e, sandbox, call.peer().uid);
                Result<QString> domain = e.domainOf(sandbox, call.peer().uid);
                if (!row || !domain)
                    return call.fail(row ? domain.error() : row.error());
                publishState(e, sandbox, call.peer().uid);
                return setGuestClock(domain.value(), sandbox, [call, reply = row->toJson()](bool) { call.reply(reply); });
            }
            if (r.value() == Restored::Restart) { // it was running: start it again on the restored disk
                if (Status s = e.startSandbox(sandbox, call.peer().uid); !s)
                    return call.fail(s.error());
                consoleAfterStart(e, sandbox, call.peer().uid);
                return waitForRow(call, e, sandbox, kDefaultBootTimeoutS);
            }
            publishState(e, sandbox, call.peer().uid);
            replyRow(call, e, sandbox);
        });
    });
    api.registerMethod(proto::method::SnapshotRemove, [this](const Call &call) {
        const QString sandbox = stringParam(call, "sandbox");
        const qint64 id = call.params().value(QLatin1String("id")).toInteger();
        onEngine([call, sandbox, id](SandboxEngine &e) {
            Status s = e.removeSnapshot(sandbox, id, call.peer().uid);
            s ? call.reply(proto::SnapshotRef{sandbox, id}.toJson()) : call.fail(s.error());
        });
    });
}

void SandboxService::fork(const Call &call)
{
    const QString sandbox = stringParam(call, "sandbox");
    const qint64 id = call.params().value(QLatin1String("id")).toInteger();
    const QString newName = stringParam(call, "new_name");
    const bool startIt = call.params().value(QLatin1String("start")).toBool();
    onEngine([this, call, sandbox, id, newName, startIt](SandboxEngine &e) {
        decltype(CreateRequest::lend) lend;
        const QStringList ruleNames = ruleNamesInForce(sandbox); // the fork copies the origin's rules
        if (m_secrets)
            lend = [bridge = m_secrets, sandbox, ruleNames](Store &store, qint64 forkId) {
                return bridge->inherit(store, forkId, sandbox, ruleNames);
            };
        auto r = e.fork(sandbox, id, newName, call.peer().uid, lend);
        if (m_secrets)
            m_secrets->loansCommitted(); // committed or rolled back: the proxy's snapshot follows
        if (!r)
            return call.fail(r.error());
        if (m_inheritRules) {
            if (Status s = m_inheritRules(sandbox, newName); !s) {
                e.remove(newName, call.peer().uid); // a fork that reaches less than its origin is not what was asked
                if (m_secrets)
                    m_secrets->forget(newName);
                return call.fail(Error{QStringLiteral("cannot fork %1").arg(sandbox),
                                       s.error().message() + QStringLiteral("; nothing was created"), s.error().kind});
            }
        }
        publishState(e, newName, call.peer().uid);
        warnUnreadRequests(newName, ruleNames);
        const Result<proto::SandboxCreated> forked = fromEngine<proto::SandboxCreated>(r.value());
        if (!forked)
            return call.fail(forked.error());
        if (!startIt)
            return call.reply(forked->toJson());
        Result<std::optional<GuestNetwork>> started = e.startFork(newName, sandbox, id, call.peer().uid);
        if (!started)
            return call.fail(started.error());
        if (started.value()) // resumed from a checkpoint: its terminal shows what the origin's showed then
            if (const QByteArray screen = e.checkpointScreen(sandbox, id); !screen.isEmpty())
                m_consoles->startOver(newName, screen);
        consoleAfterStart(e, newName, call.peer().uid);
        waitForAgent(call, e.domainOf(newName, call.peer().uid).value(), newName, kDefaultBootTimeoutS, forked->toJson(), false,
                     started.value());
    });
}

void SandboxService::replyRow(const Call &call, SandboxEngine &engine, const QString &name)
{
    const Result<proto::SandboxRow> row = rowOf(engine, name, call.peer().uid);
    row ? call.reply(row->toJson()) : call.fail(row.error());
}

bool SandboxService::discardEphemerals(SandboxEngine &engine, const QString &name)
{
    const Result<QStringList> gone = engine.discardEphemerals();
    if (!gone) {
        qCWarning(lcEngine) << gone.error().message();
        return false;
    }
    for (const QString &sandbox : *gone) {
        if (m_secrets)
            m_secrets->forget(sandbox);
        m_consoles->close(sandbox);
        if (m_procs)
            m_procs->close(sandbox);
        publishState(engine, sandbox, 0);
    }
    return gone->contains(name);
}

void SandboxService::waitForRow(const Call &call, SandboxEngine &engine, const QString &name, int timeoutS)
{
    const Result<proto::SandboxRow> row = rowOf(engine, name, call.peer().uid);
    if (!row)
        return call.fail(row.error());
    waitForAgent(call, engine.domainOf(name, call.peer().uid).value(), name, timeoutS, row->toJson());
}

void SandboxService::setGuestClock(const QString &domain, const QString &name, std::function<void(bool)> then)
{
    virConnectPtr conn = m_engine->connection();
    inPool([this, conn, domain, name, then = std::move(then)] {
        VirDomain dom = lookupDomain(conn, domain);
        QDeadlineTimer deadline(60 * 1000);
        Status set = Error{QStringLiteral("the domain %1 is gone").arg(domain), {}};
        while (dom && !m_stopping.load()) {
            set = GuestAgent(dom.get()).setTimeToNow(5);
            if (set || deadline.hasExpired())
                break;
            QThread::msleep(500);
        }
        if (!set)
            qCWarning(lcEngine) << "cannot set the clock of" << name << ":" << set.error().message();
        then(bool(set));
    });
}

void SandboxService::waitForAgent(const Call &call, const QString &domain, const QString &name, int timeoutS,
                                  const QJsonObject &reply, bool removeOnFailure, const std::optional<GuestNetwork> &resumedFork)
{
    virConnectPtr conn = m_engine->connection();
    const GuestSetup setup = m_secrets ? m_secrets->guestSetup(name) : GuestSetup{}; // read on the engine thread
    inPool([this, call, conn, domain, name, timeoutS, reply, removeOnFailure, setup, resumedFork] {
        auto failed = [this, call, name, removeOnFailure](const QString &why) {
            onEngine([this, call, name, why, removeOnFailure](SandboxEngine &e) {
                e.releaseStoppedNetworks();
                if (removeOnFailure) {
                    e.remove(name, call.peer().uid);
                    if (m_secrets)
                        m_secrets->forget(name);
                }
                publishState(e, name, call.peer().uid);
                call.fail(rpc::Failed, why + (removeOnFailure ? QStringLiteral("; the new sandbox was removed") : QString()));
            });
        };
        VirDomain dom = lookupDomain(conn, domain);
        switch (SandboxEngine::waitForGuestAgent(dom.get(), QDeadlineTimer(qint64(timeoutS) * 1000), m_stopping)) {
        case AgentWait::Answered: {
            if (resumedFork) {
                if (Status s = SandboxEngine::moveGuestToItsNetwork(dom.get(), *resumedFork); !s) {
                    virDomainDestroy(dom.get()); // its guard drops the origin's address: nothing got out
                    return failed(s.error().message() + QStringLiteral("; %1 was stopped").arg(name));
                }
            }
            if (Status s = setUpGuest(dom.get(), name, setup); !s)
                return failed(s.error().message());
            QJsonObject r = reply;
            r.insert(QStringLiteral("state"), QStringLiteral("running"));
            call.reply(r);
            onEngine([this, name, uid = call.peer().uid](SandboxEngine &e) { publishState(e, name, uid); });
            return;
        }
        case AgentWait::ShutOff:
            return failed(QStringLiteral("sandbox %1 stopped while booting; check its console "
                                         "(airlockctl console %1) and its image").arg(name));
        case AgentWait::Cancelled: // the daemon is stopping: the caller still gets an answer
        case AgentWait::TimedOut:
            break;
        }
        if (dom)
            virDomainDestroy(dom.get());
        failed(QStringLiteral("sandbox %1 did not boot: the guest agent did not answer within %2 s; it was "
                              "stopped (state: stopped). Check its console (airlockctl console %1) and its image, "
                              "or give it more time (--boot-timeout)").arg(name).arg(timeoutS));
    });
}

Status SandboxService::setUpGuest(virDomainPtr domain, const QString &name, const GuestSetup &setup)
{
    if (setup.caPem.isEmpty())
        return ok();
    if (Status s = SecretBridge::installTrust(domain, setup.caPem); !s)
        return s;
    // Without its sign-in file the guest only starts signed out: said, never fatal.
    bool written = false;
    if (Status s = SecretBridge::installSignIn(domain, setup, &written); !s)
        m_api.postAlert(name, QStringLiteral("sign-in"),
                        QStringLiteral("%1 starts signed out: %2; sign in inside it").arg(name, s.error().message()));
    else if (written)
        qCInfo(lcEngine) << "sandbox" << name << "starts signed in: its sign-in file" << setup.signInPath << "holds its placeholders";
    if (Status s = SecretBridge::markHostReady(domain); !s) // the console's agent then starts after its 30 s wait
        qCWarning(lcEngine) << "cannot tell" << name << "that its setup is done:" << s.error().message();
    return ok();
}

void SandboxService::installTrustOnceUp(SandboxEngine &engine, const QString &name, uid_t uid, int timeoutS)
{
    const GuestSetup setup = m_secrets ? m_secrets->guestSetup(name) : GuestSetup{};
    auto domain = engine.domainOf(name, uid);
    if (setup.caPem.isEmpty() || !domain)
        return;
    virConnectPtr conn = engine.connection();
    inPool([this, conn, domain = domain.value(), name, timeoutS, setup] {
        VirDomain dom = lookupDomain(conn, domain);
        QString why;
        switch (SandboxEngine::waitForGuestAgent(dom.get(), QDeadlineTimer(qint64(timeoutS) * 1000), m_stopping)) {
        case AgentWait::Answered:
            if (const Status s = setUpGuest(dom.get(), name, setup); !s)
                why = s.error().message();
            else
                return;
            break;
        case AgentWait::ShutOff:
            return; // stopped before it came up: the next start installs the CA
        case AgentWait::Cancelled:
            return;
        case AgentWait::TimedOut:
            why = QStringLiteral("its guest agent did not answer within %1 s").arg(timeoutS);
            break;
        }
        m_api.postAlert(name, QStringLiteral("trust"),
                        QStringLiteral("the sandbox CA could not be put in %1's trust store (%2): TLS to the hosts its "
                                       "secrets are bound to will fail; restart it")
                            .arg(name, why));
    });
}

void SandboxService::consoleAfterStart(SandboxEngine &engine, const QString &name, uid_t uid)
{
    auto domain = engine.domainOf(name, uid);
    if (domain) {
        if (Status s = m_consoles->ensure(name, domain.value()); !s)
            qCWarning(lcEngine) << s.error().message();
        if (m_procs) // without it (an image or domain from before the channel) events show no process
            if (Status s = m_procs->ensure(name, domain.value()); !s)
                qCInfo(lcEngine) << s.error().message();
    }
}

void SandboxService::registerConsoleMethods(ApiServer &api)
{
    // The caller subscribes to "console:<name>" for live output; attach returns the history.
    api.registerMethod(proto::method::ConsoleAttach, [this](const Call &call) {
        const QString sandbox = stringParam(call, "name");
        onEngine([this, call, sandbox](SandboxEngine &e) {
            auto domain = e.domainOf(sandbox, call.peer().uid);
            if (!domain)
                return call.fail(domain.error());
            const QString state = SandboxEngine::stateOf(e.connection(), domain.value());
            const bool running = state == QLatin1String("running") || state == QLatin1String("paused");
            if (running) {
                if (Status s = m_consoles->ensure(sandbox, domain.value()); !s)
                    return call.fail(s.error());
            }
            const Result<proto::SandboxState> known = proto::sandboxStateFromString(state);
            call.reply(proto::ConsoleAttachResult{m_consoles->history(sandbox), proto::topic::console(sandbox),
                                                  known ? known.value() : proto::SandboxState::Unknown}.toJson());
        });
    });
    api.registerMethod(proto::method::ConsoleWrite, [this](const Call &call) {
        const QString sandbox = stringParam(call, "name");
        const QByteArray data = QByteArray::fromBase64(stringParam(call, "data_b64").toLatin1());
        onEngine([this, call, sandbox, data](SandboxEngine &e) {
            auto domain = e.domainOf(sandbox, call.peer().uid);
            if (!domain)
                return call.fail(domain.error());
            Status s = m_consoles->write(sandbox, data);
            s ? call.reply(proto::WrittenResult{qint64(data.size())}.toJson()) : call.fail(s.error());
        });
    });
    // The console is a serial line, which carries no window size: the guest's tty is told
    // through the agent (stty sets it and the kernel sends SIGWINCH to the console's shell).
    api.registerMethod(proto::method::ConsoleResize, [this](const Call &call) {
        const QString sandbox = stringParam(call, "name");
        const int rows = call.params().value(QLatin1String("rows")).toInt();
        const int cols = call.params().value(QLatin1String("cols")).toInt();
        if (rows < 2 || rows > 1000 || cols < 2 || cols > 1000)
            return call.fail(rpc::InvalidParams, QStringLiteral("rows and cols must be 2 to 1000"));
        onEngine([this, call, sandbox, rows, cols](SandboxEngine &e) {
            auto domain = e.domainOf(sandbox, call.peer().uid);
            if (!domain)
                return call.fail(domain.error());
            inPool([call, conn = e.connection(), domain = domain.value(), rows, cols] {
                VirDomain dom = lookupDomain(conn, domain);
                if (!dom)
                    return call.fail(rpc::NotFound, QStringLiteral("the domain %1 is gone").arg(domain));
                auto r = GuestAgent(dom.get()).exec({QStringLiteral("stty"), QStringLiteral("-F"), QStringLiteral("/dev/ttyS0"),
                                                   QStringLiteral("rows"), QString::number(rows), QStringLiteral("cols"),
                                                   QString::number(cols)},
                                                  {}, 10);
                if (!r)
                    return call.fail(r.error());
                if (r->exitCode != 0)
                    return call.fail(rpc::Failed, QStringLiteral("the guest did not take the console size: %1")
                                                      .arg(QString::fromUtf8(r->err).trimmed()));
                call.reply(proto::ConsoleSize{std::nullopt, rows, cols}.toJson());
            });
        });
    });
    api.registerMethod(proto::method::ConsoleDetach, [this](const Call &call) {
        const QString sandbox = stringParam(call, "name");
        onEngine([call, sandbox](SandboxEngine &e) {
            auto domain = e.domainOf(sandbox, call.peer().uid);
            domain ? call.reply(proto::NameParams{sandbox}.toJson()) : call.fail(domain.error());
        });
    });
}

// What sandbox.create asks for, as it is worked out step by step before the engine makes it.
struct SandboxCreatePlan {
    QJsonObject params;
    CreateRequest request;
    QString templateName;
    bool start = false;
    int bootTimeoutS = kDefaultBootTimeoutS;
    QList<SecretLoan> loans;
    QStringList presets;
    std::optional<TemplateSecret> expected; // the secret the template's agent expects and the caller did not name
    std::optional<LoginSpec> login;         // the template's sign-in, captured by the broker
    QString policy, policySource;           // a policy file given with the create
    bool signIn = false;                    // the console signs in (secret login TEMPLATE)
    QList<Rule> rules;                      // the presets' allow rules and the policy file's rules
    QStringList ruleNames;                  // names of the request rules it starts with: its CA covers them
};

namespace {

SandboxCreatePlan readCreate(const Call &call)
{
    SandboxCreatePlan plan;
    plan.params = call.params();
    const QJsonObject &p = plan.params;
    plan.request.name = p.value(QLatin1String("name")).toString();
    plan.request.owner = call.peer().uid;
    plan.templateName = p.value(QLatin1String("template")).toString();
    plan.start = p.value(QLatin1String("start")).toBool();
    plan.request.ephemeral = p.value(QLatin1String("ephemeral")).toBool();
    plan.signIn = p.value(QLatin1String("sign_in")).toBool();
    plan.bootTimeoutS = p.value(QLatin1String("boot_timeout_s")).toInt(kDefaultBootTimeoutS);
    plan.request.checkpointEverySeconds = p.value(QLatin1String("checkpoint_every_s")).toInteger();
    plan.request.checkpointKeep = p.value(QLatin1String("checkpoint_keep")).toInt(SandboxEngine::kDefaultCheckpointKeep);
    for (const QJsonValue &v : p.value(QLatin1String("secrets")).toArray()) {
        const QJsonObject o = v.toObject();
        const QString secret = o.value(QLatin1String("secret")).toString();
        plan.loans.append({secret, o.value(QLatin1String("env")).toString(secret.toUpper())});
    }
    for (const QJsonValue &v : p.value(QLatin1String("presets")).toArray())
        plan.presets << v.toString();
    plan.policy = p.value(QLatin1String("policy")).toString();
    plan.policySource = p.value(QLatin1String("policy_source")).toString(QStringLiteral("(unnamed)")).left(256);
    return plan;
}

// A template gives the defaults (image, size, environment, presets, the secret its agent
// expects); whatever the caller names explicitly wins (applyCallerValues, after this).
Status applyTemplate(SandboxCreatePlan &plan)
{
    if (plan.templateName.isEmpty() && plan.signIn)
        return Error{QStringLiteral("sign_in needs the template whose sign-in to run"), {}, ErrorKind::InvalidParams};
    if (plan.templateName.isEmpty())
        return ok();
    Result<AgentTemplate> t = AgentTemplate::find(plan.templateName);
    if (!t)
        return t.error();
    if (plan.signIn && !t->login)
        return Error{QStringLiteral("template %1 declares no sign-in").arg(t->name),
                     QStringLiteral("lend it an API key instead (airlockctl secret set ...)"), ErrorKind::InvalidParams};
    CreateRequest &r = plan.request;
    r.image = t->image;
    r.cpus = t->cpus;
    r.memoryMib = t->memoryMib;
    r.diskGib = t->diskGib;
    r.env = t->guestEnvironment();
    plan.presets = t->presets + plan.presets;
    plan.login = t->login;
    if (plan.signIn && !t->login->command.isEmpty())
        r.env.insert(QString::fromLatin1(AgentTemplate::kConsoleVariable), t->login->command);
    // The template's policy file, unless the caller names one (the caller's values win).
    if (!t->policyPath.isEmpty() && plan.policy.isEmpty()) {
        Result<PolicyFileText> file = readPolicyFile(t->policyPath);
        if (!file)
            return file.error();
        plan.policy = file->text;
        plan.policySource = file->name;
    }
    bool named = false;
    for (const SecretLoan &l : std::as_const(plan.loans))
        named = named || l.envVar == t->secret.envVar;
    if (t->hasSecret && !named && !plan.signIn) { // with its API key the CLI would not sign in
        plan.expected = t->secret;
        plan.loans.append({t->secret.name, t->secret.envVar});
    }
    return ok();
}

void applyCallerValues(SandboxCreatePlan &plan)
{
    const QJsonObject &p = plan.params;
    CreateRequest &r = plan.request;
    r.image = p.value(QLatin1String("image")).toString(r.image.isEmpty() ? QStringLiteral("tiny") : r.image);
    r.cpus = p.value(QLatin1String("cpus")).toInt(r.cpus);
    r.memoryMib = p.value(QLatin1String("memory_mib")).toInt(r.memoryMib);
    r.diskGib = p.value(QLatin1String("disk_gib")).toInt(r.diskGib);
    const QJsonObject env = p.value(QLatin1String("env")).toObject();
    for (auto it = env.begin(); it != env.end(); ++it)
        r.env.insert(it.key(), it.value().toString());
}

// Inside the engine's create transaction: records the template, lends the secrets and
// writes the presets' rules; `added` gets the rules for the live policy after the commit.
void lendInCreate(SandboxCreatePlan &plan, SecretBridge *bridge, const std::shared_ptr<QList<Rule>> &added)
{
    if (plan.loans.isEmpty() && plan.rules.isEmpty() && plan.templateName.isEmpty() && plan.ruleNames.isEmpty())
        return;
    plan.request.lend = [bridge, loans = plan.loans, owner = plan.request.owner, rules = plan.rules, added, templateName = plan.templateName,
                         login = plan.login, ruleNames = plan.ruleNames](Store &store, qint64 id) -> Result<QMap<QString, QString>> {
        QMap<QString, QString> guestEnv;
        if (!templateName.isEmpty()) {
            Result<qint64> recorded = store.write(QStringLiteral("UPDATE sandboxes SET template = ? WHERE id = ?"), {templateName, id});
            if (!recorded)
                return Error{QStringLiteral("cannot record the template of the sandbox"), recorded.error().why};
        }
        if (bridge && (!loans.isEmpty() || login || !ruleNames.isEmpty())) {
            Result<QMap<QString, QString>> lent = bridge->lend(store, id, loans, login, owner, ruleNames);
            if (!lent)
                return lent.error();
            guestEnv = *lent;
        }
        Policy scratch;
        RuleStore ruleRows(store, scratch);
        for (const Rule &rule : rules) {
            Result<Rule> a = ruleRows.add(rule);
            if (!a)
                return a.error();
            added->append(*a);
        }
        return guestEnv;
    };
}

} // namespace

void SandboxService::create(const Call &call)
{
    onEngine([this, call, plan = readCreate(call)](SandboxEngine &e) mutable {
        if (Status s = planCreate(plan); !s)
            return call.fail(s.error());
        auto added = std::make_shared<QList<Rule>>();
        lendInCreate(plan, m_secrets, added);
        auto created = e.create(plan.request);
        if (!created) {
            if (m_secrets)
                m_secrets->forget(plan.request.name); // a CA issued inside the rolled-back transaction
            return call.fail(created.error());
        }
        if (m_secrets)
            m_secrets->loansCommitted();
        for (const Rule &rule : std::as_const(*added))
            m_policy->add(rule);
        warnUnreadRequests(plan.request.name, plan.ruleNames);
        Result<proto::SandboxCreated> reply = fromEngine<proto::SandboxCreated>(created.value());
        if (reply && !plan.templateName.isEmpty())
            reply->templateName = plan.templateName;
        publishState(e, plan.request.name, plan.request.owner);
        if (!reply)
            return call.fail(reply.error());
        if (!plan.start)
            return call.reply(reply->toJson());
        startCreated(call, e, plan, reply->toJson());
    });
}

// The template, the caller's values, the presets' rules; then what the create needs from
// the broker and the vault, checked before anything is made.
Status SandboxService::planCreate(SandboxCreatePlan &plan) const
{
    if (Status s = SandboxEngine::checkCheckpointSchedule(plan.request.checkpointEverySeconds, plan.request.checkpointKeep); !s)
        return s;
    if (plan.request.ephemeral && plan.request.checkpointEverySeconds)
        return Error{QStringLiteral("an ephemeral sandbox keeps no checkpoints"), QStringLiteral("leave out --ephemeral or --checkpoint-every"),
                     ErrorKind::InvalidParams};
    if (Status s = applyTemplate(plan); !s)
        return s;
    applyCallerValues(plan);
    Result<QList<Rule>> rules = rulesOfPresets(plan.presets, plan.request.name, plan.request.owner);
    if (!rules)
        return rules.error();
    plan.rules = rules.value();
    if (!plan.policy.isEmpty()) {
        Result<PolicyFile> file = parsePolicyFile(plan.policy.toUtf8(), plan.policySource);
        if (!file)
            return file.error();
        for (const PolicyEntry &e : file->rules)
            plan.rules.append(e.importedRule(plan.request.name, plan.request.owner, plan.policySource));
    }
    plan.ruleNames = Policy::requestRuleNames(plan.rules) + ruleNamesInForce(plan.request.name);
    plan.ruleNames.removeDuplicates();
    if (!plan.rules.isEmpty() && !m_policy)
        return Error{QStringLiteral("this daemon runs without the egress broker; create the sandbox without presets or a template"),
                     {}, ErrorKind::Unavailable};
    if ((!plan.loans.isEmpty() || plan.login) && !m_secrets)
        return Error{QStringLiteral("this daemon runs without a vault; create the sandbox without --secret or a template that signs in"),
                     {}, ErrorKind::Unavailable};
    if (plan.expected) {
        Status s = m_secrets->checkBinding(*plan.expected, plan.templateName, plan.request.owner);
        // A template that signs in works without its API key: the CLI signs in inside instead.
        if (!s && plan.login && s.error().kind == ErrorKind::NotFound)
            plan.loans.removeIf([&](const SecretLoan &l) { return l.secret == plan.expected->name && l.envVar == plan.expected->envVar; });
        else if (!s)
            return s;
    }
    if (!plan.loans.isEmpty()) // lent inside the engine's create transaction (lendInCreate)
        return m_secrets->check(plan.loans, plan.request.env, plan.request.owner);
    return ok();
}

QStringList SandboxService::ruleNamesInForce(const QString &sandbox) const
{
    return m_policy ? m_policy->requestRuleNames(sandbox, QDateTime::currentDateTimeUtc()) : QStringList();
}

// Request rules name hosts the sandbox has no CA for (the vault was not unlocked when it was
// made): their TLS connections are decided whole. Said once, where the person looks.
void SandboxService::warnUnreadRequests(const QString &name, const QStringList &ruleNames)
{
    if (ruleNames.isEmpty() || !m_secrets || !m_secrets->caPem(name).isEmpty())
        return;
    const QString told = QStringLiteral("%1 has no CA of its own (the Airlock vault was not unlocked when it was made), so "
                                        "the requests its rules name on %2 cannot be read over TLS: those connections are "
                                        "decided whole. Unlock the vault and fork or recreate it to decide them request by request")
                             .arg(name, ruleNames.join(QStringLiteral(", ")));
    qCWarning(lcEngine).noquote() << told;
    m_api.postAlert(name, QStringLiteral("requests_unread"), told);
}

// create --start is one step for the caller: a sandbox that cannot boot is not kept.
void SandboxService::startCreated(const Call &call, SandboxEngine &e, const SandboxCreatePlan &plan, const QJsonObject &reply)
{
    const QString &name = plan.request.name;
    const uid_t owner = plan.request.owner;
    if (Status s = e.startSandbox(name, owner); !s) {
        e.remove(name, owner);
        if (m_secrets)
            m_secrets->forget(name);
        publishState(e, name, owner);
        return call.fail(Error{QStringLiteral("sandbox %1 did not start and was removed").arg(name), s.error().message()});
    }
    consoleAfterStart(e, name, owner);
    waitForAgent(call, e.domainOf(name, owner).value(), name, plan.bootTimeoutS, reply, true);
}

Result<QList<Rule>> SandboxService::rulesOfPresets(const QStringList &names, const QString &sandbox, uid_t owner)
{
    QList<Rule> rules;
    if (names.isEmpty())
        return rules;
    Result<QList<Preset>> all = loadPresets(presetsDirectory());
    if (!all)
        return all.error();
    QStringList known;
    for (const Preset &preset : *all)
        known << preset.name;
    QSet<QString> seen;
    for (const QString &text : names) {
        if (seen.contains(text))
            continue;
        seen.insert(text);
        const Result<PresetUse> use = parsePresetUse(text);
        if (!use)
            return use.error();
        const qsizetype i = known.indexOf(use->name);
        if (i < 0)
            return Error{QStringLiteral("no egress preset named \"%1\"").arg(use->name),
                         QStringLiteral("the presets are: %1").arg(known.join(QStringLiteral(", "))), ErrorKind::NotFound};
        const Result<Preset> preset = all->at(i).filled(use->values);
        if (!preset)
            return preset.error();
        rules += preset->toRules(sandbox, owner);
    }
    return rules;
}

namespace {

// The engine's template (the file under resources/templates) as template.list's row: the
// wire shape lives in the protocol, which the engine does not link.
proto::TemplateInfo templateInfo(const AgentTemplate &t)
{
    proto::TemplateInfo info{t.name, t.description, t.image, t.cpus, t.memoryMib, t.diskGib,
                             t.presets, t.optInPresets, t.console, t.env, std::nullopt, {}, t.policy};
    if (t.login)
        info.login = t.login->toJson();
    if (t.hasSecret)
        info.secret = proto::TemplateSecret{t.secret.name, t.secret.envVar, t.secret.hosts, t.secret.header};
    return info;
}

} // namespace

void SandboxService::listTemplates(const Call &call)
{
    inPool([call] {
        Result<QList<AgentTemplate>> all = AgentTemplate::loadAll(AgentTemplate::directory());
        if (!all)
            return call.fail(all.error());
        QList<proto::TemplateInfo> out;
        for (const AgentTemplate &t : *all)
            out.append(templateInfo(t));
        call.reply(proto::toJsonArray(out));
    });
}

// The egress presets this daemon's broker applies (sandbox.create `presets`), so a client on
// another host offers this host's presets, not its own files.
void SandboxService::listPresets(const Call &call)
{
    inPool([call] {
        Result<QList<Preset>> all = loadPresets(presetsDirectory());
        if (!all)
            return call.fail(all.error());
        QList<proto::PresetInfo> out;
        for (const Preset &p : *all) {
            proto::PresetInfo info{p.name, p.description, {}, p.parameters};
            for (const PresetRule &r : p.rules)
                info.rules.append({r.host, r.port, r.why, r.request.text()});
            out.append(info);
        }
        call.reply(proto::toJsonArray(out));
    });
}

void SandboxService::lifecycle(const Call &call, const QString &method)
{
    const QString sandbox = stringParam(call, "name");
    const uid_t uid = call.peer().uid;
    const bool wait = call.params().value(QLatin1String("wait")).toBool(true);
    const int bootTimeout = call.params().value(QLatin1String("boot_timeout_s")).toInt(kDefaultBootTimeoutS);
    onEngine([this, call, method, sandbox, uid, wait, bootTimeout](SandboxEngine &e) {
        Status s = ok();
        if (method == QLatin1String("start")) s = e.startSandbox(sandbox, uid);
        else if (method == QLatin1String("kill")) s = e.kill(sandbox, uid);
        else if (method == QLatin1String("pause")) s = e.pause(sandbox, uid);
        else if (method == QLatin1String("resume")) s = e.resume(sandbox, uid);
        else if (method == QLatin1String("remove")) s = e.remove(sandbox, uid);
        if (!s)
            return call.fail(s.error());
        if (method == QLatin1String("start"))
            consoleAfterStart(e, sandbox, uid);
        if (method == QLatin1String("remove") && m_secrets)
            m_secrets->forget(sandbox); // its CA and decrypted secrets leave memory
        if (method == QLatin1String("remove"))
            m_consoles->close(sandbox);
        if (method == QLatin1String("remove") && m_procs)
            m_procs->close(sandbox);
        if (method == QLatin1String("kill") && discardEphemerals(e, sandbox))
            return call.reply(proto::SandboxRow::removed(sandbox).toJson());
        if (method == QLatin1String("start") && wait)
            return waitForRow(call, e, sandbox, bootTimeout);
        if (method == QLatin1String("start"))
            installTrustOnceUp(e, sandbox, uid, bootTimeout); // the caller did not wait; the guest still needs its CA
        publishState(e, sandbox, uid);
        replyRow(call, e, sandbox);
    });
}

void SandboxService::stopSandbox(const Call &call)
{
    const QString sandbox = stringParam(call, "name");
    const uid_t uid = call.peer().uid;
    const int timeoutS = call.params().value(QLatin1String("timeout_s")).toInt(kStopTimeoutS);
    onEngine([this, call, sandbox, uid, timeoutS](SandboxEngine &e) {
        auto domain = e.domainOf(sandbox, uid);
        if (!domain)
            return call.fail(domain.error());
        const QString current = SandboxEngine::stateOf(e.connection(), domain.value());
        if (current == QLatin1String("stopped"))
            return call.fail(rpc::Conflict, QStringLiteral("sandbox %1 is not running").arg(sandbox));
        virConnectPtr conn = e.connection();
        inPool([this, call, conn, domain = domain.value(), sandbox, uid, timeoutS] {
            if (Status s = SandboxEngine::shutdown(conn, sandbox, domain, timeoutS); !s)
                return call.fail(s.error());
            onEngine([this, call, sandbox, uid](SandboxEngine &engine) {
                engine.releaseStoppedNetworks();
                if (discardEphemerals(engine, sandbox))
                    return call.reply(proto::SandboxRow::removed(sandbox).toJson());
                publishState(engine, sandbox, uid);
                replyRow(call, engine, sandbox);
            });
        });
    });
}

void SandboxService::exec(const Call &call)
{
    const QString sandbox = stringParam(call, "name");
    QStringList argv;
    for (const QJsonValue &v : call.params().value(QLatin1String("argv")).toArray())
        argv << v.toString();
    if (argv.isEmpty())
        return call.fail(rpc::InvalidParams, QStringLiteral("sandbox.exec needs argv: the command and its arguments"));
    const QByteArray input = QByteArray::fromBase64(stringParam(call, "stdin_b64").toLatin1());
    const int timeoutS = call.params().value(QLatin1String("timeout_s")).toInt(0);
    // Commands run on a pool of their own, bounded per user: a long one never holds the
    // sandbox pool's boot waits, stops and copies, and past the bound the caller hears why.
    const uid_t owner = call.peer().uid;
    if (const QString busy = m_execSlots.take(owner); !busy.isEmpty())
        return call.fail(rpc::Unavailable, QStringLiteral("cannot run the command in %1: %2").arg(sandbox, busy));
    onEngine([this, call, sandbox, argv, input, timeoutS, owner](SandboxEngine &e) {
        auto domain = e.domainOf(sandbox, call.peer().uid);
        if (!domain) {
            m_execSlots.give(owner);
            return call.fail(domain.error());
        }
        if (const QString state = SandboxEngine::stateOf(e.connection(), domain.value()); state != QLatin1String("running")) {
            m_execSlots.give(owner);
            // QEMU pauses a guest whose disk write found the host's disk full.
            return call.fail(rpc::Conflict, state == QLatin1String("paused")
                                                ? QStringLiteral("sandbox %1 is paused; resume it (airlockctl resume %1), after freeing "
                                                                 "space if the host's disk is full").arg(sandbox)
                                                : QStringLiteral("sandbox %1 is not running; start it first (airlockctl start %1)").arg(sandbox));
        }
        virConnectPtr conn = e.connection();
        m_execPool.start([this, call, conn, domain = domain.value(), argv, input, timeoutS, owner] {
            VirDomain dom = lookupDomain(conn, domain);
            auto r = GuestAgent(dom.get()).exec(argv, input, timeoutS);
            m_execSlots.give(owner);
            if (!r)
                return call.fail(r.error());
            call.reply(proto::ExecResult{r->exitCode, r->out, r->err, r->timedOut}.toJson());
        });
    });
}

void SandboxService::onGuestFile(const Call &call, std::function<void(GuestAgent &, const QString &path)> work)
{
    const QString sandbox = stringParam(call, "name");
    const QString path = stringParam(call, "path");
    if (!path.startsWith(QLatin1Char('/')))
        return call.fail(rpc::InvalidParams, QStringLiteral("the guest path must be absolute (NAME:/path)"));
    onEngine([this, call, sandbox, path, work = std::move(work)](SandboxEngine &e) {
        auto domain = e.domainOf(sandbox, call.peer().uid);
        if (!domain)
            return call.fail(domain.error());
        virConnectPtr conn = e.connection();
        inPool([conn, domain = domain.value(), path, work] {
            VirDomain dom = lookupDomain(conn, domain);
            GuestAgent agent(dom.get());
            work(agent, path);
        });
    });
}

void SandboxService::filePush(const Call &call)
{
    const qint64 offset = call.params().value(QLatin1String("offset")).toInteger(0);
    const QByteArray data = QByteArray::fromBase64(stringParam(call, "data_b64").toLatin1());
    onGuestFile(call, [call, offset, data](GuestAgent &agent, const QString &path) {
        auto handle = agent.openFile(path, offset == 0 ? QStringLiteral("w") : QStringLiteral("a"));
        if (!handle)
            return call.fail(handle.error());
        Status s = agent.write(handle.value(), data);
        Status closed = agent.closeFile(handle.value());
        if (!s)
            return call.fail(s.error());
        if (!closed)
            return call.fail(closed.error());
        crashPoint("push:written"); // a workspace import's bundle is half in the guest
        call.reply(proto::WrittenResult{qint64(data.size())}.toJson());
    });
}

void SandboxService::filePull(const Call &call)
{
    const qint64 offset = call.params().value(QLatin1String("offset")).toInteger(0);
    const qint64 length = qBound(qint64(1), call.params().value(QLatin1String("length")).toInteger(kMaxChunk), kMaxChunk * 8);
    onGuestFile(call, [call, offset, length](GuestAgent &agent, const QString &path) {
        auto handle = agent.openFile(path, QStringLiteral("r"));
        if (!handle)
            return call.fail(handle.error());
        QByteArray data;
        bool eof = false;
        Status s = offset > 0 ? agent.seek(handle.value(), offset) : ok();
        while (s && !eof && data.size() < length) {
            auto chunk = agent.read(handle.value(), int(qMin<qint64>(length - data.size(), GuestAgent::kChunk)), &eof);
            if (!chunk) {
                s = chunk.error();
                break;
            }
            data += chunk.value();
            if (chunk->isEmpty())
                eof = true;
        }
        agent.closeFile(handle.value());
        if (!s)
            return call.fail(s.error());
        call.reply(proto::FilePullResult{data, eof}.toJson());
    });
}

} // namespace airlock
