#pragma once
// The egress broker as a daemon service: the nftables table, the resolver, the
// transparent proxy, the dropped-packet log and the event log; API methods egress.list and
// egress.decide; events on topics "egress" and "pending".
//
// Settings (store `settings` table, read at start):
//   egress.hold_timeout_s  how long an unanswered ask holds its flow (default 120; 0: until
//                          answered; egress.configure changes it while running)
//   egress.proxy_port      transparent proxy port on each sandbox's gateway address (15001)
//   egress.dns_port        resolver port on each sandbox's gateway address (15053)
//   egress.dns_qps         DNS queries per second per sandbox (1000, burst twice that)
//   egress.max_flows       open TCP flows per sandbox (512)
//   egress.max_pending     distinct pending requests per sandbox (64)
//   egress.header_timeout_s  seconds a guest has to send its first request bytes (10)
#include "daemon/service.h"
#include "core/config.h"
#include "dnsresolver.h"
#include "droppedpacketlog.h"
#include "egresscontrol.h"
#include "flowhandoff.h"
#include "guestprocess.h"
#include "epollloop.h"
#include "eventlog.h"
#include "nftruleset.h"
#include "policy.h"
#include "rulestore.h"
#include "syntheticnames.h"
#include "transparentproxy.h"
#include "upstreamresolver.h"

#include <QObject>
#include <QPointer>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

namespace airlock {

class ApiServer;
class Call;
class Store;

class EgressService : public Service, public EgressControl {
public:
    // Runs a job with the RuleStore on the thread that owns the rules table (the rule
    // service's worker, RuleService::runOnStore); callable from any thread.
    using RuleJobs = std::function<void(std::function<void(RuleStore &)>)>;
    // `policy`: the rule service's, which decides every flow; rules made here (egress.decide,
    // a consumed once-rule) go through `rules`, never onto the main thread's Store.
    EgressService(const DaemonConfig &config, Store &store, ApiServer &api, Policy &policy, RuleJobs rules);
    ~EgressService() override;

    QString name() const override { return QStringLiteral("egress"); }
    Status start() override;
    void stop() override;
    void registerMethods(ApiServer &api) override;
    void contributeStatus(proto::DaemonStatus &status) const override;

    Status sandboxUp(const SandboxNet &net) override;
    void sandboxDown(const QString &name) override;
    Status reconcile(const QList<SandboxNet> &running) override;
    int pendingCount(const QString &name) override;
    void timelineReplaced(const QString &name) override;
    std::chrono::milliseconds guestProcessBytes(const QString &sandbox, const QByteArray &bytes) override;
    GuestProcessTable &guestProcesses() { return m_guestProcesses; }

    BrokerPorts ports() const { return m_ports; }
    QString nftTable() const { return m_nft ? m_nft->table() : QString(); }
    EventLog &eventLog() { return m_events; }
    TransparentProxy &proxy() { return *m_proxy; }
    // Flows to hosts a borrowed secret is bound to go there (the vault's interceptor); set
    // before start().
    void setFlowHandoff(FlowHandoff *handoff) { m_handoff = handoff; }
    // One request of a flow decided per request (FlowVerdict::perRequest), by the policy; any
    // thread (the interceptor's workers, the proxy's loop).
    RequestVerdict decideRequest(const QString &sandbox, const QString &host, quint16 port, const RequestFacts &request) const;
    // A request no rule answers becomes a pending item (RequestAsking::ask); any thread.
    qint64 askRequest(const HeldRequest &request, std::function<void(RequestVerdict)> answer);
    void leaveRequest(qint64 eventId);

private:
    // The resolver's and the proxy's listeners on the sandbox's gateway, both or neither.
    Status attachListeners(const SandboxNet &net);
    void list(const Call &call);
    void decide(const Call &call);
    void configure(const Call &call);
    // egress.decide's last step: releases the held flows of event `id` on the proxy's loop,
    // then answers `call` from there.
    void release(const Call &call, qint64 id, EgressEvent item, bool allow, qint64 ruleId, const QString &reason,
                 bool rawTcp);
    // Removes the session (until-stop) rules of `stopped`, or of all but `running`, on the rule thread.
    void endSessions(const QStringList &stopped, const QStringList &running);
    void onDropped(const DroppedPacket &packet);
    void publish(const std::vector<EgressEvent> &events);
    // The rule patterns an egress.decide "match" (host | domain | ip) stands for.
    static Result<QStringList> decisionPatterns(const EgressEvent &item, const QString &match);
    // The request part of the rules a decision on `item` makes: none for a connection; for a
    // held request its method and exact path, or its git service and repository; `path`
    // (a pattern that matches the request) or `whole_host` instead when the call gives one.
    static Result<RequestRule> decisionRequest(const EgressEvent &item, const QJsonObject &params);
    FlowVerdict decideFlow(const FlowTarget &target);
    FlowVerdict decideAddress(const FlowTarget &resolved);

    DaemonConfig m_config;
    Store &m_store;
    ApiServer &m_api;
    QObject m_context;            // lives on the main thread: target of hops from workers
    Policy &m_policy;
    FlowHandoff *m_handoff = nullptr;
    RuleJobs m_rules;
    BrokerPorts m_ports;
    std::atomic<int> m_holdTimeoutS{120}; // 0: held until answered; egress.configure sets it from the rules thread
    SyntheticNames m_names;
    GuestProcessTable m_guestProcesses; // what the guests report about their sockets
    EventLog m_events;
    UpstreamResolver m_upstream;
    std::unique_ptr<NftRuleset> m_nft;
    std::unique_ptr<DnsResolver> m_dns;
    std::unique_ptr<TransparentProxy> m_proxy;
    EpollLoop m_logLoop;
    DroppedPacketLog m_dropped;
    bool m_enforcing = false;
    QString m_unavailable;        // why enforcement is off
    mutable std::mutex m_mutex;   // m_sandboxes is read by the dropped-packet thread
    QList<SandboxNet> m_sandboxes;
};

} // namespace airlock
