#pragma once
#include "daemon/buildcancels.h"
#include "daemon/imageuploads.h"
#include "daemon/execslots.h"
#include "daemon/ownerdirectory.h"
#include "daemon/service.h"
#include "core/config.h"
#include "core/result.h"
#include "saveddefinition.h"
#include "policy.h"
#include "protocol/images.h"
#include "protocol/sandbox.h"

#include <QHash>
#include <QJsonArray>
#include <QMutex>
#include <QObject>
#include <QString>
#include <QThread>
#include <QThreadPool>
#include <QTimer>
#include <atomic>
#include <functional>
#include <optional>
#include <libvirt/libvirt.h>
#include <memory>

namespace airlock {

class ApiServer;
class Call;
class PeerPolicy;
class EgressControl;
class NetworkHooks;
class PortForwarder;
class SandboxEngine;
class SecretBridge;
class ConsoleHub;
class Store;
class GuestAgent;
struct SandboxCreatePlan;
struct GuestSetup;

// image.*, sandbox.*, file.*: the engine on a worker thread of its own. Quick libvirt work
// runs on that thread in order; waits (boot, shutdown, guest-exec, file transfer) run on a
// small pool so one long exec never stalls the others. Image builds get their own thread
// and engine so a download does not hold up sandboxes either.
class SandboxService : public QObject, public Service {
    Q_OBJECT
public:
    // `egress` guards each sandbox's network before its guest runs (fail closed); without
    // it sandboxes run unguarded (engine-only tests).
    SandboxService(const DaemonConfig &config, ApiServer &api, EgressControl *egress = nullptr);
    ~SandboxService() override;

    QString name() const override { return QStringLiteral("sandboxes"); }
    Status start() override;
    void stop() override;
    void registerMethods(ApiServer &api) override;
    void contributeStatus(proto::DaemonStatus &status) const override;
    // Lends secrets at create and installs the sandbox CA in booted guests; set before start().
    void setSecretBridge(SecretBridge *bridge) { m_secrets = bridge; }
    // Where a template's egress presets become rules (the rule service's policy); set before start().
    void setRulePolicy(Policy *policy) { m_policy = policy; }
    // Copies a fork's origin's sandbox rules to the fork (blocking; called on the engine thread).
    using RuleInheritance = std::function<Status(const QString &origin, const QString &fork)>;
    void setRuleInheritance(RuleInheritance inherit) { m_inheritRules = std::move(inherit); }

private:
    // Runs `work` on the engine's thread.
    void onEngine(std::function<void(SandboxEngine &)> work);
    void onBuilder(std::function<void(SandboxEngine &)> work);
    void inPool(std::function<void()> work);
    // On the engine thread: reloads the owner directory and publishes the sandbox's state to its owner.
    void publishState(SandboxEngine &engine, const QString &name, uid_t uid);
    // On the engine thread: the Store the owner directory is read from (never the API thread's).
    Status openOwnerStore();
    // From any thread: on the engine thread, records who built an image (nothing for a
    // removal or a cached build), reloads the owner directory, then runs `then`.
    void recordImage(const QString &name, std::optional<uid_t> builder, std::function<void()> then);
    // Keeps `status.sandboxes` current without touching the store on the API thread.
    // Reads the process reports of sandboxes already running at start (broker/guestprocess.h).
    void reopenProcessReports(SandboxEngine &engine);
    void countSandboxes(SandboxEngine &engine);
    // The sandbox as describe finds it; one it no longer finds is removed.
    static Result<proto::SandboxRow> rowOf(SandboxEngine &engine, const QString &name, uid_t uid);
    // The caller's answer: the sandbox's row as it is now.
    void replyRow(const Call &call, SandboxEngine &engine, const QString &name);
    // Removes the ephemeral sandboxes that stopped (their secrets and console go too) and
    // tells their owners; true when `name` was one of them.
    bool discardEphemerals(SandboxEngine &engine, const QString &name = {});
    // The row, sent once the guest agent answers (waitForAgent).
    void waitForRow(const Call &call, SandboxEngine &engine, const QString &name, int timeoutS);
    // sandbox.list rows with the egress broker's count of held requests.
    void addPending(QList<proto::SandboxRow> &rows) const;
    // Asks each running guest how full its root filesystem is; raises a "disk_full" alert
    // once when it fills and adds disk_used_bytes/disk_total_bytes/disk_full to sandbox.list.
    void watchDisks();
    // Resumes `name` when QEMU paused it for a full disk and the disk has room again.
    bool resumeAfterFullDisk(SandboxEngine &e, const QString &name);
    void addDisks(QList<proto::SandboxRow> &rows) const;
    // `resumedFork`: a fork resumed from a checkpoint, moved to its own network first.
    void waitForAgent(const Call &call, const QString &domain, const QString &name, int timeoutS, const QJsonObject &reply,
                      bool removeOnFailure = false, const std::optional<GuestNetwork> &resumedFork = std::nullopt);
    // On a pool thread: sets a guest's clock to the host's (a checkpoint's guest is behind
    // after the pause of its save or restore), retrying while its agent is slow to answer
    // (up to 60 s), then runs `then` with whether it was set.
    void setGuestClock(const QString &domain, const QString &name, std::function<void(bool)> then);
    void takeDueCheckpoints(SandboxEngine &e);
    void afterCheckpoint(SandboxEngine &e, const QString &sandbox, qint64 id);

    // Once the guest's agent answers (pool thread): the sandbox CA in its trust store, which
    // fails the caller, then the sign-in file, which only raises an alert.
    Status setUpGuest(virDomainPtr domain, const QString &name, const GuestSetup &setup);
    // For a start nobody waits for: sets the guest up (above) once its agent answers, or
    // raises an alert saying why it could not.
    void installTrustOnceUp(SandboxEngine &engine, const QString &name, uid_t uid, int timeoutS);

    // Opens the console stream right after a start, so the boot is in its history.
    void consoleAfterStart(SandboxEngine &engine, const QString &name, uid_t uid);
    void registerOwnerLookups(PeerPolicy &policy);
    void registerImageMethods(ApiServer &api);
    void registerSandboxMethods(ApiServer &api);
    void registerSnapshotMethods(ApiServer &api);
    void registerConsoleMethods(ApiServer &api);
    void registerPortMethods(ApiServer &api); // sandboxports.cpp
    // sandboximages.cpp
    void buildImage(const Call &call);
    void importImage(const Call &call);
    using Cancelled = std::function<bool()>;
    using ImageJob = std::function<Result<QJsonObject>(SandboxEngine &, const std::function<void(int, const QString &)> &, const Cancelled &)>;
    // Runs `job` on the builder thread as the build of `imageName` (one at a time per name), with
    // progress events to the caller and its result recorded as the caller's image; `refused`
    // runs when another build of that name is already going.
    void runImageJob(const Call &call, const QString &imageName, ImageJob job, std::function<void()> refused = {});
    static Result<QList<proto::ImageInfo>> imagesOf(SandboxEngine &engine);
    static Result<proto::ImageInfo> builtImage(SandboxEngine &builder, const QJsonObject &result);
    void fork(const Call &call);
    void listPresets(const Call &call);
    void create(const Call &call);
    Status planCreate(SandboxCreatePlan &plan) const;
    // The names of the live request rules, global and `sandbox`'s (Policy::requestRuleNames).
    QStringList ruleNamesInForce(const QString &sandbox) const;
    void warnUnreadRequests(const QString &name, const QStringList &ruleNames);
    void startCreated(const Call &call, SandboxEngine &engine, const SandboxCreatePlan &plan, const QJsonObject &reply);
    // The egress presets `names` as allow rules of `sandbox`; NotFound lists the presets.
    static Result<QList<Rule>> rulesOfPresets(const QStringList &names, const QString &sandbox, uid_t owner);
    void listTemplates(const Call &call);
    void lifecycle(const Call &call, const QString &method);
    void stopSandbox(const Call &call);
    void exec(const Call &call);
    // file.push and file.pull: the guest path checked, the sandbox's domain found on the
    // engine thread, then `work` with its guest agent on the pool.
    void onGuestFile(const Call &call, std::function<void(GuestAgent &, const QString &path)> work);
    void filePush(const Call &call);
    void filePull(const Call &call);

    DaemonConfig m_config;
    OwnerDirectory m_owners;
    std::unique_ptr<Store> m_ownerStore; // opened, used and closed on m_engineThread
    ApiServer &m_api;
    QThread m_engineThread;
    QThread m_builderThread;
    QObject *m_engineContext = nullptr;  // lives on m_engineThread
    QObject *m_builderContext = nullptr; // lives on m_builderThread
    std::unique_ptr<SandboxEngine> m_engine;
    std::unique_ptr<SandboxEngine> m_builder;
    std::unique_ptr<ConsoleHub> m_consoles;
    std::unique_ptr<ConsoleHub> m_procs; // the process-report channels (org.airlock.proc.0)
    QThreadPool m_pool;
    ExecSlots m_execSlots;  // before m_execPool: its threads give slots back until it is gone
    QThreadPool m_execPool; // sandbox.exec only, ExecSlots::kThreads threads
    mutable QMutex m_accelLock;
    QString m_accel = QStringLiteral("tcg");
    std::atomic<bool> m_stopping{false};
    BuildCancels m_builds; // image.cancel
    ImageUploads m_uploads; // image.import's archives until they are imported
    std::atomic<int> m_sandboxCount{0};
    EgressControl *m_egress = nullptr;
    SecretBridge *m_secrets = nullptr;
    Policy *m_policy = nullptr;
    RuleInheritance m_inheritRules;
    std::unique_ptr<PortForwarder> m_ports; // exposed guest ports; before m_hooks, which uses it
    std::unique_ptr<NetworkHooks> m_hooks;
    QTimer m_sweep; // notices guests that stopped on their own
    QTimer m_diskWatch;
    QTimer m_checkpoints;                       // asks the engine which sandboxes' automatic checkpoint is due
    std::atomic<bool> m_checkpointsQueued{false}; // one look at a time on the engine thread
    QHash<QString, qint64> m_checkpointRetryAt;   // engine thread: after a failure, not before this (ms since the epoch)
    struct DiskReading {
        qint64 used = 0, total = 0;
        bool full = false;
        bool inFlight = false;
    };
    mutable QMutex m_diskLock;
    QHash<QString, DiskReading> m_disks; // by sandbox name
    // Sandboxes QEMU paused for their host disk, with the reason last told (engine thread only).
    QHash<QString, QString> m_hostPaused;
    // The last automatic resume after a full disk, per sandbox (engine thread only).
    struct AutoResume {
        qint64 atMs = 0;
        int streak = 0; // automatic resumes, each within kAutoResumeStreakMs of the one before
    };
    QHash<QString, AutoResume> m_autoResumed;
};

} // namespace airlock
