#pragma once
#include "core/config.h"
#include "core/result.h"
#include "store/store.h"
#include "libvirtconnection.h"
#include "networkhooks.h"
#include "saveddefinition.h"
#include "sandboxspec.h"
#include "storagepool.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QSet>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <sys/types.h>

namespace airlock {

struct ImageRecipe;

// How a wait for a guest's agent ended (SandboxEngine::waitForGuestAgent).
enum class AgentWait { Answered, ShutOff, TimedOut, Cancelled };

// What a restore left behind: the sandbox stopped (it was), to be started again on the
// restored disk (a disk-only snapshot of a running one), or running from the checkpoint.
enum class Restored { Stopped, Restart, Resumed };

// What a create asks for (sandbox.create's params, validated).
struct CreateRequest {
    QString name;
    QString image = QStringLiteral("tiny");
    int cpus = 1;
    int memoryMib = 256;
    int diskGib = 2;
    QMap<QString, QString> env;
    uid_t owner = 0;
    qint64 baseLayer = 0; // fork: the frozen layer the new disk builds on (0: the image)
    bool ephemeral = false; // removed, disk and all, once it stops (ephemeral.cpp)
    qint64 checkpointEverySeconds = 0; // automatic checkpoints while it runs (0: none)
    int checkpointKeep = 0;            // how many automatic ones retention keeps
    // Called inside create's transaction once the sandbox row exists (the engine's store, the
    // new id): lends the sandbox its secrets and returns variables to add to the guest's
    // environment. A failure undoes the whole create.
    std::function<Result<QMap<QString, QString>>(Store &store, qint64 sandboxId)> lend;
};

// Images, sandboxes and their libvirt objects. Lives on ONE worker thread (its Store and
// its libvirt calls are blocking); the daemon's services hand it work and answer from there.
// Every multi-step change is recorded in `operations` first so reconcile() can finish or
// undo it after a crash.
class SandboxEngine {
public:
    explicit SandboxEngine(DaemonConfig config);
    ~SandboxEngine();

    // Opens the store and libvirt, makes sure the pool exists, reconciles.
    Status start();
    // The same without reconcile or probing: a second engine (the image builder's thread).
    Status openWithoutReconcile();
    // Picks up the result of a KVM probe another engine ran.
    void reloadAccel();
    QString accel() const { return m_accel; }
    virConnectPtr connection() const { return m_libvirt.get(); }

    // Images.
    using Progress = std::function<void(int percent, const QString &message)>;
    Result<QJsonObject> buildImage(const QString &recipe, const QString &name, const Progress &progress,
                                   const std::function<bool()> &cancelled);
    // A person's OCI image (an oci-archive or docker-archive file here) as the image `name`.
    Result<QJsonObject> importImage(const QString &archive, const QString &format, const QString &reference, const QString &name,
                                    const Progress &progress, const std::function<bool()> &cancelled);
    Result<QJsonArray> listImages();
    // An error naming the rule unless `name` may name an image.
    static Status checkImageName(const QString &name);
    Status removeImage(const QString &name);

    // Sandboxes.
    Result<QJsonObject> create(const CreateRequest &request);
    Result<QJsonArray> list(uid_t uid);
    Result<QJsonObject> describe(const QString &name, uid_t uid);
    Status startSandbox(const QString &name, uid_t uid);
    Status kill(const QString &name, uid_t uid);
    Status pause(const QString &name, uid_t uid);
    Status resume(const QString &name, uid_t uid);
    Status remove(const QString &name, uid_t uid);
    // On a pool thread (sandboxpower.cpp): the connection is thread-safe and these touch
    // neither the store nor the engine's state.
    // Pings the guest agent until it answers, the domain shuts off, the deadline passes or
    // `stopping` is set.
    static AgentWait waitForGuestAgent(virDomainPtr dom, QDeadlineTimer deadline, const std::atomic<bool> &stopping);
    // Asks the guest to shut down (guest agent, else ACPI) and waits up to timeoutS; a guest
    // that is still up then, or could not be asked (paused), is powered off.
    static Status shutdown(virConnectPtr conn, const QString &sandbox, const QString &domain, int timeoutS);
    // The libvirt domain name of a sandbox the caller may act on (for exec/cp/stop on a pool thread).
    Result<QString> domainOf(const QString &name, uid_t uid);

    // Snapshots: a tree of layers (tables layers and snapshots; snapshots.cpp).
    // `memory`: a checkpoint of a running sandbox, its RAM and device state saved with the disk.
    Result<QJsonObject> createSnapshot(const QString &sandbox, const QString &label, uid_t uid, bool memory = false,
                                       bool automatic = false);
    // Automatic checkpoints (engine/autocheckpoints.cpp): a sandbox's schedule, changed when
    // `everySeconds` is given; which running sandboxes are due; one checkpoint taken on the
    // schedule, the oldest automatic ones past `keep` removed after it.
    Result<QJsonObject> checkpointSchedule(const QString &sandbox, uid_t uid, std::optional<qint64> everySeconds, std::optional<int> keep);
    static constexpr int kDefaultCheckpointKeep = 12; // when a schedule names no number to keep
    static Status checkCheckpointSchedule(qint64 everySeconds, int keep);
    QStringList checkpointsDue();
    Result<QJsonObject> takeAutomaticCheckpoint(const QString &sandbox);
    Result<QJsonArray> listSnapshots(const QString &sandbox, uid_t uid);
    // Replaces the top layer with a new one above the snapshot. A checkpoint resumes the guest
    // where it was (the caller sets its clock); a disk-only snapshot of a running sandbox
    // leaves it to the caller to start it again.
    Result<Restored> restoreSnapshot(const QString &sandbox, qint64 id, uid_t uid);
    // The console's output up to a checkpoint, kept beside its memory file: a restore that
    // resumes the guest shows the screen as it was (empty when none was kept).
    void keepCheckpointScreen(const QString &sandbox, qint64 id, const QByteArray &screen);
    QByteArray checkpointScreen(const QString &sandbox, qint64 id);
    Status removeSnapshot(const QString &sandbox, qint64 id, uid_t uid);
    // `lend` as in CreateRequest (the fork borrows what its origin borrows).
    Result<QJsonObject> fork(const QString &sandbox, qint64 id, const QString &newName, uid_t uid,
                             const decltype(CreateRequest::lend) &lend = {});
    // Starts a fork made of `origin`'s snapshot `id` (liveforks.cpp). Of a checkpoint, the
    // copy resumes from its memory, still with the origin's MAC and address and its link
    // down: the caller hands the returned network to moveGuestToItsNetwork. Of a disk-only
    // snapshot it boots (startSandbox) and nothing is returned.
    Result<std::optional<GuestNetwork>> startFork(const QString &fork, const QString &origin, qint64 id, uid_t uid);
    // On a pool thread: the resumed fork's guest takes its own MAC, address, route, resolver
    // and name (guest agent), then its link comes up and its clock is set.
    static Status moveGuestToItsNetwork(virDomainPtr dom, const GuestNetwork &network);

    Status reconcile();
    int sandboxCount();

    // Ephemeral sandboxes (ephemeral.cpp). Removes those whose domain is off (all of them
    // with `evenRunning`, after a restart) and returns their names.
    Result<QStringList> discardEphemerals(bool evenRunning = false);
    // Conflict, saying why, when `name` is ephemeral: `what` it cannot do ("keep snapshots").
    Status refuseIfEphemeral(const QString &name, const QString &what);
    // stopped, missing or crashed: the guest is off (unknown is not).
    static bool hasStopped(const QString &state);

    // Network guarding (networkhooks.h, sandboxnetworks.cpp): set before start().
    void setNetworkHooks(NetworkHooks *hooks) { m_hooks = hooks; }
    Result<SandboxNet> networkOf(const QString &name);
    // Tells the hooks about guests that stopped on their own (poweroff, crash, a timed-out boot).
    void releaseStoppedNetworks();

    // Guest ports the host reaches on its loopback (exposedports.cpp). `hostPort` 0 picks
    // one: the guest's own number when it is free and not privileged, else any free one.
    // A running sandbox's listener is open before the row is kept; nothing is kept when
    // it cannot be. Only the sandbox's owner (or root) may change or see them.
    Result<ExposedPort> exposePort(const QString &name, uid_t uid, quint16 guestPort, quint16 hostPort);
    Status unexposePort(const QString &name, uid_t uid, quint16 guestPort);
    struct SandboxPorts {
        QString sandbox;
        bool guarded = false; // its guest may run: the listeners are open
        QList<ExposedPort> ports;
    };
    // Every sandbox of `uid` with exposed ports, or only `name` (even without any).
    Result<QList<SandboxPorts>> listExposedPorts(const QString &name, uid_t uid);

    static bool validName(const QString &name);
    // Domain state as the CLI shows it: running, paused, stopped, ... ; "missing" only when
    // libvirt answers that no such domain exists, "unknown" when it cannot answer.
    static QString stateOf(virConnectPtr conn, const QString &domainName);
    // Free space below which a guest QEMU paused for a full disk is not resumed: it would
    // stop again at its next write.
    static constexpr qint64 kResumeFreeBytes = 16 * 1024 * 1024;
    // Why QEMU paused `domainName` on its own ("" when it did not: paused by a user, or not
    // paused): an I/O error on the host disk holding its overlay, a full one above all.
    QString pausedReason(const QString &sandbox, const QString &domainName);
    // Whether QEMU paused `domainName` because a write found the host disk full (not for
    // another I/O error, and not a pause a user asked for).
    bool pausedForFullDisk(const QString &domainName);
    // Free bytes on the disk holding the sandboxes' overlays (-1 when it cannot be read).
    qint64 poolBytesAvailable() const;

private:
    struct ImageFiles {
        QString kernel, initrd, root;
    };
    Result<ImageFiles> checkImage(const QString &image);
    // buildImage's and importImage's steps.
    Result<QJsonObject> makeImage(const ImageRecipe &recipe, const QString &name, const Progress &progress,
                                  const std::function<bool()> &cancelled);
    struct ImageVolumes {
        QString kernel, initrd, root;
    };
    Result<std::optional<QJsonObject>> cachedImage(const QString &name, const QString &digest, const ImageVolumes &vols);
    Status moveRecipeOutputs(const QString &scratch, const ImageVolumes &vols);
    Status recordImage(const QString &name, const QString &recipe, const QString &digest, const ImageVolumes &vols,
                       qint64 size, qint64 opId, QStringList *oldVolumes);
    // create's steps (sandboxengine.cpp), in order.
    struct CreatePlan {
        SandboxSpec spec;
        QString backingPath;                            // the image's root disk or the fork's base layer
        QString backingFormat = QStringLiteral("raw");  // qcow2 for a base layer
        QString volume;                                 // the new top layer
    };
    static Status validateCreate(const CreateRequest &request);
    Result<CreatePlan> planCreate(const CreateRequest &request);
    Status defineSandboxNetwork(SandboxSpec &spec);
    Status defineDomain(const SandboxSpec &spec, bool inPlace);
    Status recordSandbox(const CreateRequest &request, SandboxSpec &spec, const QString &volume, qint64 opId);
    Status lendSecrets(const CreateRequest &request, SandboxSpec &spec, QJsonObject &envJson, qint64 id);
    Status ensureLibvirt();
    Status openStore();
    QString poolDirectory() const;
    QString objectName(const QString &sandbox) const; // airlock-<instance>-<name>
    QString volumePrefix() const { return m_instance + QStringLiteral("-"); }
    void probeAccel();
    Status rollbackObjects(const QJsonObject &state);
    Result<qint64> beginOperation(const QString &kind, const QString &subject, const QJsonObject &state);
    void endOperation(qint64 id);
    Status requireSandbox(const QString &name, uid_t uid, qint64 *id = nullptr);
    Status setPaused(const QString &name, uid_t uid, bool paused); // pause() and resume()
    Result<QString> layerVolume(qint64 layer);
    Status pointDomainDisk(const QString &domain, const QString &oldPath, const QString &newPath);
    Status switchToLayer(const QString &sandbox, bool running, const QString &oldPath, const QString &newPath,
                         const QString &memoryPath = {});
    QString checkpointDir() const; // <dataDir>/checkpoints: the memory files of checkpoints
    Result<QString> checkpointMemoryPath(const QString &sandbox, qint64 id, uid_t uid);
    QString checkpointScreenPath(const QString &sandbox, qint64 id);
    Status resumeCheckpoint(const QString &sandbox, const QString &memoryPath, const QString &newPath);
    Result<GuestNetwork> resumeLiveFork(const QString &fork, const QString &memoryPath);
    Status restoreGuarded(const QString &sandbox, const QString &savedPath, const QByteArray &dxml);
    void stopHalfResumedForks();
    void collectCheckpoints(); // deletes memory files no snapshot or unfinished operation names
    void collectLayers(); // deletes layers nobody owns or builds on
    Result<qint64> recordSnapshot(qint64 sid, qint64 top, const QString &newVolume, const QString &label, qint64 opId,
                                  qint64 *parentOut, const QString &memoryFile = {}, qint64 memoryBytes = 0, bool automatic = false);
    Status recordRestore(qint64 sid, qint64 frozen, qint64 oldTop, const QString &newVolume, qint64 opId);
    static QString withoutBackingChain(QString domainXml);
    Status forgetBackingChain(const QString &domain);
    // Snapshot `id` of `sandbox` (which `uid` may use): `sql` selects its row by (id, sandbox id).
    Result<QSqlRecord> snapshotOf(const QString &sandbox, qint64 id, uid_t uid, const QString &sql, qint64 *sid);
    Status mergeSnapshotLayer(const QString &sandbox, qint64 sid, qint64 snapshotId, qint64 layer);
    Result<QVariant> mergeBase(const QString &sandbox, qint64 sid, qint64 layer, QString *basePath, QString *baseFormat);
    Status rebaseLayer(const QString &childPath, const QString &basePath, const QString &baseFormat);
    Status recordMerge(qint64 snapshotId, qint64 layer, qint64 child, const QVariant &grandparent, qint64 opId);
    static QJsonObject mergeState(qint64 snapshotId, qint64 layer, qint64 child, const QString &childPath, const QString &basePath,
                                  const QString &baseFormat, const QStringList &domains);
    enum class LiveMerge { PullIntoTop, CommitIntoLayer };
    Status mergeLayerLive(const QString &sandbox, qint64 sid, qint64 snapshotId, qint64 layer, qint64 child, LiveMerge how);
    Status finishLiveMerge(virDomainPtr dom, qint64 opId, const QJsonObject &state, const QVariant &grandparent);
    Status recordCommit(qint64 snapshotId, qint64 layer, qint64 child, qint64 opId);
    Status recordMergeRows(qint64 snapshotId, qint64 opId, const QList<std::pair<const char *, QVariantList>> &changes);
    Status forgetSnapshotRow(qint64 id);
    void reconcileMerge(qint64 opId, const QJsonObject &state);
    Status reconcileOperations();
    Status forgetRemovedRows(const QString &name);
    void reconcileImageBuild(const QString &name, const QJsonObject &state);
    Status removeOrphans();
    void reconcileLayerOperation(qint64 opId, const QString &kind, const QString &sandbox, const QJsonObject &state);
    Status guardNetwork(const QString &name);
    Status activateNetwork(const QString &name);
    void releaseNetwork(const QString &name);
    Status reconcileNetworks();
    Result<QList<ExposedPort>> exposedPortsOf(qint64 sandboxId);
    // The hooks learn a guarded sandbox's new port list; not guarded: nothing to tell.
    Status applyExposedPorts(const QString &name, const QList<ExposedPort> &ports);

    DaemonConfig m_config;
    Store m_store;
    LibvirtConnection m_libvirt;
    std::unique_ptr<StoragePool> m_pool;
    quint64 m_poolGeneration = 0; // m_libvirt.generation() the pool was made on
    QString m_instance;
    QString m_accel = QStringLiteral("tcg");
    bool m_accelProbed = false;
    quint32 m_subnetBase = 0;
    int m_subnetCount = 0;
    QHash<QString, qint64> m_startedAt; // name -> msecs since epoch
    NetworkHooks *m_hooks = nullptr;
    QSet<QString> m_guarded; // sandboxes whose network the hooks were told is up
};

} // namespace airlock
