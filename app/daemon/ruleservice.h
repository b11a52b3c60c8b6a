#pragma once
// rule.list / rule.add / rule.remove, and the owner of the egress Policy.
//
// The Policy is thread-safe and may be read by the data plane from any thread (policy()).
// The rules table is written on this service's own worker thread, which holds its own Store
// connection (QtSql connections are per thread), so no SQLite I/O runs on the daemon's main
// thread. Other services queue store work with runOnStore().
#include "daemon/service.h"
#include "policy.h"

#include <QObject>
#include <QThread>
#include <functional>
#include <memory>

namespace airlock {

class Call;
class Daemon;
class RuleStore;
class RuleWorker;

class RuleService : public Service {
public:
    explicit RuleService(Daemon &daemon);
    ~RuleService() override;

    QString name() const override { return QStringLiteral("rules"); }
    Status start() override;
    void stop() override;
    void registerMethods(ApiServer &api) override;

    Policy &policy() { return m_policy; }
    // Runs `job` on the worker thread with the RuleStore (e.g. RuleStore::consumed after
    // Policy::decideAndConsume, or addAll() for egress.decide). Any thread; dropped after stop().
    void runOnStore(std::function<void(RuleStore &)> job);

    // A rule as rule.list / rule.add return it (airlockctl rule ls and the Settings tab read these names).
    static QJsonObject toJson(const Rule &rule);

private:
    void list(const Call &call);
    void add(const Call &call);
    void remove(const Call &call);

    Daemon &m_daemon;
    Policy m_policy;
    QThread m_thread;
    RuleWorker *m_worker = nullptr; // lives on m_thread
};

} // namespace airlock
