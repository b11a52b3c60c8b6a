#pragma once
// policy.export / policy.learn / policy.import: egress rules to and from policy files
// (broker/policyfile.h). Every rules-table access runs on the rule service's thread; learn
// asks the event writer for the attempts page by page in callbacks, waiting on nothing.
#include "daemon/service.h"
#include "protocol/policies.h"

#include <functional>

namespace airlock {

class Call;
struct EgressEvent;
class EventLog;
class PeerPolicy;
class RuleStore;

class PolicyService : public Service {
public:
    using RuleJobs = std::function<void(std::function<void(RuleStore &)>)>;

    // `events` may be null (a daemon without the egress broker): learn then says so.
    PolicyService(const PeerPolicy &peers, RuleJobs rules, EventLog *events)
        : m_peers(peers), m_rules(std::move(rules)), m_events(events) {}

    QString name() const override { return QStringLiteral("policies"); }
    void registerMethods(ApiServer &api) override;

private:
    void exportPolicy(const Call &call);
    void learn(const Call &call);
    void readAttempts(const Call &call, const QString &sandbox, PolicyFileFormat format, qint64 before, QList<EgressEvent> events,
                      int page);
    void importPolicy(const Call &call);

    const PeerPolicy &m_peers;
    RuleJobs m_rules;
    EventLog *m_events;
};

} // namespace airlock
