#include "daemon/egressservice.h"
#include "protocol/names.h"
#include "daemon/egresswire.h"
#include "core/registrabledomain.h"
#include "api/apiserver.h"
#include "api/jsonrpc.h"
#include "api/peerpolicy.h"
#include "core/logging.h"
#include "store/store.h"

#include <QCryptographicHash>
#include <QHash>
#include <QJsonArray>
#include <sys/resource.h>

namespace airlock {

namespace {

constexpr int kMaxHoldTimeoutS = 24 * 3600;

int settingInt(Store &store, const char *key, int fallback, int low, int high)
{
    const Result<QString> text = store.setting(QString::fromLatin1(key));
    bool ok = false;
    const int v = text ? text->toInt(&ok) : 0;
    return ok && v >= low && v <= high ? v : fallback;
}

QString dropReason(const DroppedPacket &p)
{
    if (p.kind == QLatin1String("spoof"))
        return QStringLiteral("spoofed source %1: a guest may send only from its own IP and MAC").arg(p.src);
    if (p.kind == QLatin1String("hostport"))
        return QStringLiteral("host port %1 is not reachable from a sandbox").arg(p.dport);
    static const QHash<QString, QString> fixed{
        {QStringLiteral("ipv6"), QStringLiteral("IPv6 is not offered to sandboxes")},
        {QStringLiteral("icmp"), QStringLiteral("ICMP is dropped")},
        {QStringLiteral("udp"), QStringLiteral("UDP other than DNS is dropped")},
        {QStringLiteral("ipopt"), QStringLiteral("packets with IP options are dropped")},
        {QStringLiteral("forward"), QStringLiteral("the host never forwards a sandbox's packets")},
    };
    return fixed.value(p.kind, QStringLiteral("only TCP and DNS leave a sandbox"));
}

} // namespace

EgressService::EgressService(const DaemonConfig &config, Store &store, ApiServer &api, Policy &policy, RuleJobs rules)
    : m_config(config), m_store(store), m_api(api), m_policy(policy), m_rules(std::move(rules)), m_upstream(config.upstreamHostsFile)
{
}

EgressService::~EgressService() { stop(); }

Status EgressService::start()
{
    m_ports.proxy = quint16(settingInt(m_store, "egress.proxy_port", 15001, 1, 65535));
    m_ports.dns = quint16(settingInt(m_store, "egress.dns_port", 15053, 1, 65535));
    m_holdTimeoutS = settingInt(m_store, "egress.hold_timeout_s", 120, 0, kMaxHoldTimeoutS);

    // Thousands of guest connections need thousands of descriptors.
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &files);
    }

    EventLog::Limits eventLimits;
    eventLimits.retention.days = m_config.eventRetentionDays;
    eventLimits.retention.maxBytes = qint64(m_config.eventRetentionMib) * 1024 * 1024;
    m_events.setLimits(eventLimits);
    if (Status s = m_events.start(m_config.databasePath(), [this](const std::vector<EgressEvent> &batch) { publish(batch); }); !s)
        return s;
    DnsResolver::Limits dnsLimits;
    dnsLimits.queriesPerSecond = settingInt(m_store, "egress.dns_qps", dnsLimits.queriesPerSecond, 1, 10000000);
    dnsLimits.burst = 2 * dnsLimits.queriesPerSecond;
    m_dns = std::make_unique<DnsResolver>(m_names, m_events, m_ports.dns, dnsLimits);
    TransparentProxy::Limits limits;
    limits.holdTimeoutMs = m_holdTimeoutS.load() * 1000;
    limits.maxFlows = settingInt(m_store, "egress.max_flows", limits.maxFlows, 1, 1000000);
    limits.maxPending = settingInt(m_store, "egress.max_pending", limits.maxPending, 1, 100000);
    limits.headerTimeoutMs = settingInt(m_store, "egress.header_timeout_s", limits.headerTimeoutMs / 1000, 1, 3600) * 1000;
    m_proxy = std::make_unique<TransparentProxy>(m_names, m_events, m_upstream, m_ports.proxy,
                                                 [this](const FlowTarget &t) { return decideFlow(t); }, limits);
    m_proxy->setHandoff(m_handoff);
    m_proxy->setAddressDecider([this](const FlowTarget &t) { return decideAddress(t); });
    m_proxy->setRequestDecider([this](const QString &sandbox, const QString &host, quint16 port, const RequestFacts &request) {
        return decideRequest(sandbox, host, port, request);
    });
    m_proxy->setGuestProcesses(&m_guestProcesses);
    m_dns->start();
    m_proxy->start();

    // Without nftables nothing can be enforced: the service runs (egress.list works), but no
    // sandbox may come up (sandboxUp fails closed).
    // Table and log group are this daemon's own: another airlockd in the same network
    // namespace (another data dir) must never replace our rules or take our log.
    const QString tableName = QStringLiteral("airlock_") +
        QString::fromLatin1(QCryptographicHash::hash(m_config.dataDir.toUtf8(), QCryptographicHash::Sha1).toHex().left(8));
    quint16 logGroup = NftRuleset::kDefaultLogGroup;
    m_logLoop.start(QStringLiteral("egress-drops"));
    Status logging = ok();
    for (int i = 0; i < 64; ++i) {
        const quint16 group = quint16(NftRuleset::kDefaultLogGroup + i);
        m_logLoop.call([&] { logging = m_dropped.start(m_logLoop, group, [this](const DroppedPacket &p) { onDropped(p); }); });
        if (logging) {
            logGroup = group;
            break;
        }
    }
    if (!logging)
        qCWarning(lcBroker) << "dropped packets will not be recorded:" << logging.error().message();
    m_nft = std::make_unique<NftRuleset>(m_ports, logGroup, tableName);
    Status table = m_nft->present() ? ok() : m_nft->apply({});
    if (table) {
        m_enforcing = true;
    } else {
        m_unavailable = table.error().message();
        qCWarning(lcBroker) << "egress enforcement unavailable; sandboxes cannot start:" << m_unavailable;
    }
    qCInfo(lcBroker) << "egress: nftables table" << tableName << "nflog group" << logGroup;
    qCInfo(lcBroker) << "egress broker: proxy port" << m_ports.proxy << "dns port" << m_ports.dns << "hold" << m_holdTimeoutS.load() << "s (0: until answered)";
    return ok();
}

void EgressService::stop()
{
    // The nftables table stays: while airlockd is down guests reach nothing (fail closed).
    if (m_logLoop.running()) {
        m_logLoop.call([this] { m_dropped.stop(); });
        m_logLoop.stop();
    }
    if (m_proxy)
        m_proxy->stop();
    if (m_dns)
        m_dns->stop();
    m_events.stop();
}

Status EgressService::sandboxUp(const SandboxNet &net)
{
    if (!m_enforcing)
        return Error{QStringLiteral("cannot protect sandbox %1's network").arg(net.name),
                     m_unavailable + QStringLiteral("; the sandbox was not started")};
    QList<SandboxNet> next;
    {
        std::lock_guard lock(m_mutex);
        next = m_sandboxes;
    }
    next.erase(std::remove_if(next.begin(), next.end(), [&](const SandboxNet &s) { return s.name == net.name || s.bridge == net.bridge; }),
               next.end());
    // Listeners first: when the rules redirect to them they already answer. Without them
    // the sandbox's chains drop everything (a running guest is never left without chains).
    m_events.setSandboxId(net.name, net.sandboxId); // its events are keyed by this sandbox from its first one
    Status listening = attachListeners(net);
    SandboxNet entry = net;
    entry.dropAll = !listening;
    next.append(entry);
    if (Status s = m_nft->apply(next); !s) {
        m_proxy->detach(net.name);
        m_dns->detach(net.name);
        return s;
    }
    {
        std::lock_guard lock(m_mutex);
        m_sandboxes = next;
    }
    if (!listening) {
        qCWarning(lcBroker) << "every packet of" << net.name << "is dropped:" << listening.error().message();
        return listening;
    }
    qCInfo(lcBroker) << "egress enforced for" << net.name << "on" << net.bridge << "guest" << ipv4ToString(net.guestIp);
    return ok();
}

Status EgressService::attachListeners(const SandboxNet &net)
{
    if (Status s = m_dns->attach(net); !s)
        return s;
    if (Status s = m_proxy->attach(net); !s) {
        m_dns->detach(net.name);
        return s;
    }
    return ok();
}

std::chrono::milliseconds EgressService::guestProcessBytes(const QString &sandbox, const QByteArray &bytes)
{
    return m_guestProcesses.feed(sandbox, bytes);
}

void EgressService::sandboxDown(const QString &name)
{
    QList<SandboxNet> next;
    {
        std::lock_guard lock(m_mutex);
        next = m_sandboxes;
    }
    next.erase(std::remove_if(next.begin(), next.end(), [&](const SandboxNet &s) { return s.name == name; }), next.end());
    if (m_enforcing) {
        if (Status s = m_nft->apply(next); !s)
            qCWarning(lcBroker) << "cannot remove the rules of" << name << ":" << s.error().message();
    }
    if (m_proxy)
        m_proxy->detach(name);
    if (m_dns)
        m_dns->detach(name);
    m_names.forget(name);
    m_guestProcesses.forget(name);
    endSessions({name}, {});
    std::lock_guard lock(m_mutex);
    m_sandboxes = next;
}

void EgressService::endSessions(const QStringList &stopped, const QStringList &running)
{
    m_rules([stopped, running](RuleStore &rules) {
        if (Result<int> n = rules.endSessions(stopped, running); !n)
            qCWarning(lcBroker) << "cannot remove the session rules of stopped sandboxes:" << n.error().message();
        else if (*n)
            qCInfo(lcBroker) << "removed" << *n << "session rule(s) of stopped sandboxes";
    });
}

Status EgressService::reconcile(const QList<SandboxNet> &running)
{
    if (!m_enforcing)
        return running.isEmpty() ? ok() : Status(Error{QStringLiteral("cannot protect the running sandboxes"), m_unavailable});
    QList<SandboxNet> previous;
    {
        std::lock_guard lock(m_mutex);
        previous = m_sandboxes;
    }
    for (const SandboxNet &s : previous) {
        m_proxy->detach(s.name);
        m_dns->detach(s.name);
    }
    // Every running guest gets chains; one whose listeners cannot attach gets drop-only ones.
    QList<SandboxNet> guarded;
    int dropped = 0;
    for (const SandboxNet &s : running) {
        m_events.setSandboxId(s.name, s.sandboxId);
        SandboxNet entry = s;
        if (Status a = attachListeners(s); !a) {
            qCWarning(lcBroker) << "every packet of" << s.name << "is dropped:" << a.error().message();
            entry.dropAll = true;
            ++dropped;
        }
        guarded.append(entry);
    }
    Status applied = m_nft->apply(guarded);
    QStringList runningNames;
    for (const SandboxNet &s : running)
        runningNames.append(s.name);
    endSessions({}, runningNames); // a guest that stopped while airlockd was down ended its session
    std::lock_guard lock(m_mutex);
    m_sandboxes = guarded;
    if (!applied)
        return applied;
    if (dropped > 0)
        return Error{QStringLiteral("some sandboxes could not be protected"),
                     QStringLiteral("their packets are dropped; see the airlockd log")};
    return ok();
}

void EgressService::timelineReplaced(const QString &name)
{
    m_guestProcesses.forget(name); // the resumed guest reports its own sockets again
    if (!m_proxy)
        return;
    const int denied = m_proxy->endTimeline(name, QStringLiteral("the sandbox went back to a checkpoint; ask again from the "
                                                                  "guest that runs now"));
    qCInfo(lcBroker) << name << "went back to a checkpoint:" << denied << "pending request(s) of the old timeline denied";
}

int EgressService::pendingCount(const QString &name)
{
    return m_proxy && !name.isEmpty() ? int(m_proxy->pending(name).size()) : 0;
}

namespace {

FlowVerdict flowVerdict(const Ruling &d)
{
    FlowVerdict v;
    v.rule = d.ruleId;
    v.reason = d.reason;
    v.rawTcp = d.rawTcp;
    v.decision = d.decision;
    return v;
}

} // namespace

FlowVerdict EgressService::decideFlow(const FlowTarget &t)
{
    // Runs on the proxy's thread; the Policy is thread-safe.
    Target target;
    target.sandbox = t.sandbox;
    target.host = t.host;
    // A flow to a name dialled a synthetic address: address rules are about real addresses,
    // which decideAddress() sees once the name is allowed and resolved.
    if (t.host.isEmpty())
        target.ip = QHostAddress(t.ip);
    target.port = t.port;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const Ruling d = m_policy.decideAndConsume(target, now);
    if (d.once && d.ruleId) {
        // The row goes on the rule service's thread, which owns the rules table.
        const qint64 id = d.ruleId;
        m_rules([id](RuleStore &rules) { rules.consumed(id); });
    }
    FlowVerdict v = flowVerdict(d);
    const Policy::RequestRules requests = m_policy.requestRules(target, d, now);
    if (requests == Policy::RequestRules::None)
        return v;
    // Where its requests cannot be read, the connection is decided as one: as the rules of
    // connections say (or asked), but never let through whole while a request rule denies.
    FlowVerdict unread = v;
    if (requests == Policy::RequestRules::Deny)
        unread = FlowVerdict{Decision::Denied, 0,
                             QStringLiteral("rules deny some requests to %1, and Airlock reads the requests of a TLS connection only "
                                            "on hosts the sandbox's CA covers (made at create from its secrets and the request "
                                            "rules then in force, with the vault unlocked): fork or recreate the sandbox with the "
                                            "vault unlocked, or write the rule for the whole host").arg(t.host), false, false, {}};
    // The connection may open; nothing of a request leaves before a rule allows it.
    FlowVerdict perRequest{Decision::Allowed, 0,
                           QStringLiteral("requests decided one by one (rules name methods, paths or git services on %1)").arg(t.host),
                           false, true, std::make_shared<const FlowVerdict>(unread)};
    return perRequest;
}

qint64 EgressService::askRequest(const HeldRequest &request, std::function<void(RequestVerdict)> answer)
{
    EgressEvent e = EgressEvent::interceptedRequest(m_events.nextId(), request.sandbox, request.host, request.port,
                                                    QString::fromLatin1(request.method), QString::fromLatin1(request.target));
    e.request = true;
    e.guestProcess = request.process;
    if (!m_proxy) {
        answer(RequestVerdict{Decision::Denied, 0, QStringLiteral("egress enforcement is off: %1").arg(m_unavailable)});
        return e.id;
    }
    m_proxy->holdRequest(e, [answer = std::move(answer)](const RequestVerdict &v) { answer(v); });
    return e.id;
}

void EgressService::leaveRequest(qint64 eventId)
{
    if (m_proxy)
        m_proxy->leaveRequest(eventId);
}

RequestVerdict EgressService::decideRequest(const QString &sandbox, const QString &host, quint16 port, const RequestFacts &request) const
{
    const Ruling r = m_policy.decideRequest(Target{sandbox, host, QHostAddress(), port}, request, QDateTime::currentDateTimeUtc());
    return {r.decision, r.ruleId, r.decision == Decision::Pending ? r.reason + QStringLiteral("; add a rule for it (airlockctl rule add "
                                                                                            "--method/--path or --git)")
                                                                  : r.reason};
}

FlowVerdict EgressService::decideAddress(const FlowTarget &t)
{
    return flowVerdict(m_policy.decideAddress(Target{t.sandbox, QString(), QHostAddress(t.ip), t.port},
                                               QDateTime::currentDateTimeUtc()));
}

void EgressService::onDropped(const DroppedPacket &p)
{
    QString sandbox;
    {
        std::lock_guard lock(m_mutex);
        for (const SandboxNet &s : std::as_const(m_sandboxes))
            if (s.bridge == p.bridge)
                sandbox = s.name;
    }
    if (sandbox.isEmpty())
        return;
    EgressEvent e;
    e.id = m_events.nextId();
    e.sandbox = sandbox;
    e.time = QDateTime::currentDateTimeUtc();
    e.proto = p.kind == QLatin1String("ipv6") ? QStringLiteral("ipv6") : p.proto;
    e.ip = p.dst;
    e.port = p.dport;
    e.decision = Decision::Denied;
    e.reason = dropReason(p);
    m_events.record(e);
}

void EgressService::publish(const std::vector<EgressEvent> &events)
{
    // Called on the event writer's thread once per batch: one hop to the main thread.
    // A flow that joined an existing pending item is an attempt ("egress"), not a new
    // question for the person ("pending").
    struct Published {
        QJsonObject event;
        QString sandbox;
        bool question;
    };
    QList<Published> objects;
    objects.reserve(qsizetype(events.size()));
    for (const EgressEvent &e : events)
        objects.append({toProtocol(e).toJson(), e.sandbox, e.decision == Decision::Pending && e.pendingItem == e.id});
    QMetaObject::invokeMethod(&m_context, [this, objects] {
        // Each event only to its sandbox's owner (and root), whose it is now.
        for (const Published &p : objects) {
            const Audience owner = m_api.policy().audienceOfSandbox(p.sandbox);
            m_api.publish(proto::topic::Egress, p.event, owner);
            if (p.question)
                m_api.publish(proto::topic::Pending, p.event, owner);
        }
    }, Qt::QueuedConnection);
}

Result<RequestRule> EgressService::decisionRequest(const EgressEvent &item, const QJsonObject &params)
{
    const QJsonValue path = params.value(QLatin1String("path"));
    const QJsonValue wholeHost = params.value(QLatin1String("whole_host"));
    const auto invalid = [](const QString &why) { return Error{QStringLiteral("cannot decide the request"), why, ErrorKind::InvalidParams}; };
    if ((!path.isUndefined() && !path.isString()) || (!wholeHost.isUndefined() && !wholeHost.isBool()))
        return invalid(QStringLiteral("\"path\" must be a path pattern and \"whole_host\" true or false"));
    if (!item.request) {
        if (!path.isUndefined() || wholeHost.toBool(false))
            return invalid(QStringLiteral("\"path\" and \"whole_host\" belong to a pending request (one with a method and "
                                          "path); this one is a connection"));
        return RequestRule{};
    }
    if (wholeHost.toBool(false)) {
        if (!path.isUndefined())
            return invalid(QStringLiteral("give \"path\" or \"whole_host\", not both"));
        return RequestRule{}; // a rule of connections to the host: every request on it
    }
    const RequestFacts facts = requestFacts(item.method.toLatin1(), item.path.toLatin1());
    if (path.isString()) {
        const Result<RequestPattern> pattern = RequestPattern::parse(RequestRule{item.method, path.toString(), {}, {}});
        if (!pattern)
            return pattern.error();
        if (!pattern->matches(facts, true))
            return invalid(QStringLiteral("'%1' does not match this request's path %2").arg(path.toString(), QString::fromLatin1(facts.path)));
        return pattern->rule();
    }
    if (facts.git.service != GitService::None)
        return RequestRule{{}, {}, QString::fromLatin1(gitServiceName(facts.git.service)), QString::fromLatin1(facts.git.repo)};
    if (facts.ambiguous)
        return invalid(QStringLiteral("this request's path (%1) can be read as another one, so no rule names it exactly; decide it "
                                      "once, or give a path pattern (--path) or the whole host (--whole-host)").arg(item.path.left(200)));
    return RequestRule{item.method, QString::fromLatin1(facts.path), {}, {}};
}

Result<QStringList> EgressService::decisionPatterns(const EgressEvent &item, const QString &match)
{
    if (item.host.isEmpty())
        return QStringList{item.ip}; // a raw IP: the address the guest dialled is the real one
    if (match == QLatin1String("host"))
        return QStringList{item.host};
    if (match == QLatin1String("domain")) {
        const QStringList patterns = domainRulePatterns(item.host);
        return patterns.isEmpty() ? QStringList{item.host} : patterns;
    }
    // The name is resolved only once allowed, so its real address is not known yet, and
    // the synthetic one the guest dialled means another name after a restart.
    return Error{QStringLiteral("the real address of %1 is not known before it is allowed").arg(item.host),
                 QStringLiteral("choose --match host or domain; to allow by address, add an address rule for the real "
                                "address (airlockctl rule add --host ADDRESS ...)"),
                 ErrorKind::InvalidParams};
}


void EgressService::registerMethods(ApiServer &api)
{
    // A held request is its sandbox's owner's; one of a sandbox nobody knows is root's.
    api.policy().setOwnerLookup(ObjectKind::PendingRequest, [this](const QString &key) -> std::optional<uid_t> {
        const std::optional<EgressEvent> item = m_proxy ? m_proxy->findPending(key.toLongLong()) : std::nullopt;
        if (!item)
            return std::nullopt;
        return m_api.policy().ownerOf(ObjectKind::Sandbox, item->sandbox).value_or(0);
    });
    api.registerMethod(proto::method::EgressList, [this](const Call &call) { list(call); });
    api.registerMethod(proto::method::EgressDecide, [this](const Call &call) { decide(call); });
    api.registerMethod(proto::method::EgressConfigure, [this](const Call &call) { configure(call); });
}

// How long an unanswered ask holds its flow, for every sandbox: kept in the settings (on the
// rules thread), then the proxy's held items get their new deadline.
void EgressService::configure(const Call &call)
{
    Result<proto::EgressConfigureParams> p = proto::EgressConfigureParams::fromJson(call.params());
    if (!p)
        return call.fail(p.error());
    if (p->holdTimeoutS < 0 || p->holdTimeoutS > kMaxHoldTimeoutS)
        return call.fail(rpc::InvalidParams, QStringLiteral("hold_timeout_s must be 0 (held until answered) to %1 seconds").arg(kMaxHoldTimeoutS));
    if (!m_proxy)
        return call.fail(Error{QStringLiteral("cannot change the hold timeout"), QStringLiteral("the egress broker is not running"),
                               ErrorKind::Unavailable});
    const int seconds = p->holdTimeoutS;
    m_rules([this, call, seconds](RuleStore &rules) {
        if (Status s = rules.store().setSetting(QStringLiteral("egress.hold_timeout_s"), QString::number(seconds)); !s)
            return call.fail(Error{QStringLiteral("cannot keep the hold timeout"), s.error().why});
        m_proxy->setHoldTimeoutMs(seconds * 1000);
        m_holdTimeoutS = seconds;
        call.reply(proto::EgressConfigureParams{seconds}.toJson());
    });
}

void EgressService::list(const Call &call)
{
    const QJsonObject p = call.params();
    const QJsonValue sandbox = p.value(QLatin1String("sandbox"));
    const QJsonValue limit = p.value(QLatin1String("limit"));
    const QJsonValue before = p.value(QLatin1String("before_id"));
    if (!(sandbox.isUndefined() || sandbox.isNull() || sandbox.isString()) || !(limit.isUndefined() || limit.isDouble()) ||
        !(before.isUndefined() || before.isDouble()) || !(p.value(QLatin1String("pending")).isUndefined() || p.value(QLatin1String("pending")).isBool())) {
        call.fail(rpc::InvalidParams, QStringLiteral("egress.list takes {sandbox?: string, pending?: bool, limit?: number, before_id?: number}"));
        return;
    }
    if (limit.isDouble() && (limit.toInt() < 1 || limit.toInt() > EventLog::kMaxLimit)) {
        call.fail(rpc::InvalidParams, QStringLiteral("limit must be between 1 and %1").arg(EventLog::kMaxLimit));
        return;
    }
    const QString name = sandbox.toString();
    if (p.value(QLatin1String("pending")).toBool()) {
        QJsonArray rows;
        for (const EgressEvent &e : m_proxy->pending(name))
            if (m_api.policy().mayActOnSandbox(call.peer().uid, e.sandbox))
                rows.append(toProtocol(e).toJson());
        call.reply(rows);
        return;
    }
    EventQuery q;
    q.sandbox = name;
    q.limit = limit.isDouble() ? limit.toInt() : 100;
    q.beforeId = before.isDouble() ? qint64(before.toDouble()) : 0;
    if (!PeerPolicy::actsOnEverything(call.peer().uid))
        q.ownerUid = call.peer().uid;
    // Answered from the writer thread, after what is queued has been written.
    m_events.query(q, [call](Result<QList<EgressEvent>> rows) {
        if (rows)
            call.reply(egressEventsToJson(rows.value()));
        else
            call.fail(rows.error());
    });
}

void EgressService::decide(const Call &call)
{
    const QJsonObject p = call.params();
    const QString action = p.value(QLatin1String("action")).toString();
    const QString scope = p.value(QLatin1String("scope")).toString(QStringLiteral("once"));
    const QString match = p.value(QLatin1String("match")).toString(QStringLiteral("host"));
    const QJsonValue forS = p.value(QLatin1String("for_s"));
    if (!p.value(QLatin1String("id")).isDouble()) {
        call.fail(rpc::InvalidParams, QStringLiteral("\"id\" must be the number of a pending request (see `airlockctl egress ls --pending`)"));
        return;
    }
    const qint64 id = qint64(p.value(QLatin1String("id")).toDouble());
    if (action != QLatin1String("allow") && action != QLatin1String("deny")) {
        call.fail(rpc::InvalidParams, QStringLiteral("\"action\" must be allow or deny"));
        return;
    }
    if (scope != QLatin1String("once") && scope != QLatin1String("sandbox") && scope != QLatin1String("global")) {
        call.fail(rpc::InvalidParams, QStringLiteral("\"scope\" must be once, sandbox or global"));
        return;
    }
    if (match != QLatin1String("host") && match != QLatin1String("domain") && match != QLatin1String("ip")) {
        call.fail(rpc::InvalidParams, QStringLiteral("\"match\" must be host, domain or ip"));
        return;
    }
    if (!(forS.isUndefined() || forS.isNull() || (forS.isDouble() && forS.toDouble() >= 1))) {
        call.fail(rpc::InvalidParams, QStringLiteral("\"for_s\" must be a number of seconds >= 1"));
        return;
    }
    const QJsonValue untilStop = p.value(QLatin1String("until_stop"));
    if (!(untilStop.isUndefined() || untilStop.isBool())
        || (untilStop.toBool() && (scope != QLatin1String("sandbox") || forS.isDouble()))) {
        call.fail(rpc::InvalidParams, QStringLiteral("\"until_stop\" must be true or false, and makes a rule of this sandbox "
                                                     "(scope sandbox) that lasts until it stops: not with for_s"));
        return;
    }
    const QJsonValue rawTcp = p.value(QLatin1String("raw_tcp"));
    if (!(rawTcp.isUndefined() || rawTcp.isBool()) || (rawTcp.toBool() && scope == QLatin1String("once"))) {
        call.fail(rpc::InvalidParams, QStringLiteral("\"raw_tcp\" must be true or false, and belongs to a lasting rule "
                                                     "(scope sandbox or global), not to a once decision"));
        return;
    }
    const std::optional<EgressEvent> item = m_proxy->findPending(id);
    if (!item) {
        call.fail(rpc::NotFound, QStringLiteral("no pending request %1: it was already decided, timed out or its "
                                                "connection closed; see `airlockctl egress ls --pending`").arg(id));
        return;
    }
    const bool allowIt = action == QLatin1String("allow");
    if (scope == QLatin1String("once")) {
        const QString reason = QStringLiteral("%1 once by uid %2").arg(allowIt ? QStringLiteral("allowed") : QStringLiteral("denied"))
                                   .arg(call.peer().uid);
        return release(call, id, *item, allowIt, 0, reason, false);
    }
    Result<QStringList> patterns = decisionPatterns(*item, match);
    if (!patterns)
        return call.fail(patterns.error());
    const Result<RequestRule> request = decisionRequest(*item, p);
    if (!request)
        return call.fail(request.error());
    QList<Rule> rules;
    for (const QString &pattern : *patterns) {
        Rule rule;
        rule.sandbox = scope == QLatin1String("sandbox") ? item->sandbox : QString();
        rule.owner = call.peer().uid;
        rule.allow = allowIt;
        rule.port = item->port;
        rule.pattern = pattern;
        rule.rawTcp = rawTcp.toBool(false);
        rule.untilStop = untilStop.toBool(false);
        rule.request = *request;
        rule.origin = QStringLiteral("decided on attempt %1").arg(id);
        if (forS.isDouble())
            rule.expires = QDateTime::currentDateTimeUtc().addSecs(qint64(forS.toDouble()));
        rules.append(rule);
    }
    // The rule is written on the rule service's thread; the answer comes from there.
    const QString lifetime = untilStop.toBool(false) ? QStringLiteral(", until it stops") : QString();
    const QString what = request->isEmpty() ? QString() : QLatin1Char(' ') + request->text();
    const QString summary = QStringLiteral("%1 %2%3 (%4%5)").arg(action, patterns->join(QStringLiteral(" + ")), what, scope, lifetime);
    const bool raw = allowIt && rawTcp.toBool(false);
    m_rules([this, call, id, item = *item, allowIt, rules, summary, raw](RuleStore &store) {
        Result<QList<Rule>> added = store.addAll(rules);
        if (!added)
            return call.fail(added.error());
        const qint64 ruleId = added->constFirst().id;
        release(call, id, item, allowIt, ruleId, QStringLiteral("rule %1: %2").arg(ruleId).arg(summary), raw);
    });
}

void EgressService::release(const Call &call, qint64 id, EgressEvent item, bool allowIt, qint64 ruleId,
                            const QString &reason, bool rawTcp)
{
    // The held flows are released under the rule just made, raw TCP included.
    m_proxy->decide(id, allowIt, ruleId, reason, rawTcp, [call, id, item, allowIt, ruleId, reason](bool found) mutable {
        if (!found)
            return call.fail(rpc::NotFound, QStringLiteral("request %1 was decided or timed out meanwhile").arg(id));
        item.decision = allowIt ? Decision::Allowed : Decision::Denied;
        item.rule = ruleId;
        item.reason = reason;
        call.reply(toProtocol(item).toJson());
    });
}

void EgressService::contributeStatus(proto::DaemonStatus &status) const
{
    std::lock_guard lock(m_mutex);
    // Events are lost while the event log cannot write (a full disk); decisions go on.
    status.egress = proto::EgressStatus{m_enforcing, m_nft ? m_nft->table() : QString(), int(m_ports.proxy), int(m_ports.dns),
                                        int(m_sandboxes.size()), m_holdTimeoutS.load(), m_events.notStored(), m_events.storeError()};
}

} // namespace airlock
