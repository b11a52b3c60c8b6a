#include "transparentproxy.h"
#include "flowhandoff.h"
#include "clienthello.h"
#include "core/logging.h"
#include "eventlog.h"
#include "gatewaysocket.h"
#include "hostpattern.h"
#include "httphead.h"
#include "httpstreamcheck.h"
#include "placeholder.h"
#include "syntheticnames.h"
#include "tlshandshakewatch.h"
#include "upstreamresolver.h"

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <linux/netfilter_ipv4.h>
#include <mutex>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace airlock {

using Clock = std::chrono::steady_clock;

struct TransparentProxy::Alive {
    std::mutex mutex;
    EpollLoop *loop = nullptr;
    // False when the loop stopped (the work is dropped).
    bool post(std::function<void()> work)
    {
        std::lock_guard lock(mutex);
        if (loop)
            loop->post(std::move(work));
        return loop != nullptr;
    }
};

namespace {

constexpr int kPipeChunk = 1 << 19; // pipe size asked for (the kernel may give less)
constexpr size_t kScanChunk = 1 << 16; // a scanned (plain HTTP) upload moves in reads of this size

} // namespace

// Guest bytes read into user space that may go upstream now: what the checker cleared (the
// rest, a head or record not complete yet, waits), or all of them when only scanned.
qsizetype TransparentProxy::upSendable(const Flow &f)
{
    const qint64 sent = f.upRead - f.upPending.size();
    return f.check ? qsizetype(f.check->cleared() - sent) : f.upPending.size();
}

namespace {

void closeFd(int &fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

QString blockedPage(const QString &host, int port, const QString &sandbox, qint64 eventId, qint64 rule,
                    const QString &reason)
{
    // The policy's reasons already start with "rule N: ": the rule is named once.
    const QString who = rule ? QStringLiteral("rule %1").arg(rule) : QStringLiteral("no rule");
    const QString why = reason.startsWith(who + QLatin1Char(':')) ? reason : who + QStringLiteral(": ") + reason;
    return QStringLiteral("Airlock blocked %1:%2 for sandbox %3 (%4).\n"
                          "Allow it in the Airlock app or with `airlockctl egress allow %5`.\n")
        .arg(host).arg(port).arg(sandbox, why).arg(eventId);
}

// What a name flow's rule must allow for bytes the broker cannot verify to pass.
QString needsRawTcp(const QString &why, const FlowTarget &t)
{
    return QStringLiteral("%1; only a rule that allows raw TCP to %2:%3 lets that through").arg(why, t.host).arg(t.port);
}

} // namespace

TransparentProxy::TransparentProxy(SyntheticNames &names, EventLog &events, UpstreamResolver &upstream, quint16 port,
                                   Decider decider, Limits limits)
    : m_names(names), m_events(events), m_upstream(upstream), m_port(port), m_decider(std::move(decider)),
      m_limits(limits), m_alive(std::make_shared<Alive>())
{
}

TransparentProxy::~TransparentProxy() { stop(); }

void TransparentProxy::start()
{
    if (m_loop.running())
        return;
    m_loop.start(QStringLiteral("egress-proxy"), [this] { tick(); }, 50);
    std::lock_guard lock(m_alive->mutex);
    m_alive->loop = &m_loop;
}

void TransparentProxy::stop()
{
    if (!m_loop.running())
        return;
    {
        std::lock_guard lock(m_alive->mutex);
        m_alive->loop = nullptr;
    }
    m_loop.call([this] {
        // Whoever waits for an answer gets one: denied (a held request's worker stops waiting).
        const QStringList keys = m_pending.keys();
        for (const QString &key : keys)
            if (auto item = m_pending.find(key); item != m_pending.end())
                release(*item, false, 0, QStringLiteral("airlockd is stopping"), false);
        const QStringList names = m_sandboxes.keys();
        for (const QString &n : names)
            detach(n);
    });
    m_loop.stop();
}

namespace {

std::chrono::steady_clock::time_point holdDeadline(std::chrono::steady_clock::time_point since, int holdTimeoutMs)
{
    return holdTimeoutMs > 0 ? since + std::chrono::milliseconds(holdTimeoutMs) : std::chrono::steady_clock::time_point::max();
}

} // namespace

void TransparentProxy::setHoldTimeoutMs(int ms)
{
    m_loop.call([&] {
        m_limits.holdTimeoutMs = ms;
        for (PendingItem &p : m_pending)
            p.deadline = holdDeadline(p.since, ms);
    });
}

Status TransparentProxy::attach(const SandboxNet &net)
{
    Status result = ok();
    m_loop.call([&] {
        if (m_sandboxes.contains(net.name))
            detach(net.name);
        QString why;
        const int fd = gatewaySocket(SOCK_STREAM, net.gatewayIp, m_port, 512, &why);
        if (fd < 0) {
            result = Error{QStringLiteral("cannot start the egress proxy for sandbox %1").arg(net.name),
                           QStringLiteral("binding %1:%2 failed: %3").arg(ipv4ToString(net.gatewayIp)).arg(m_port).arg(why)};
            return;
        }
        Sandbox s;
        s.net = net;
        s.listener = fd;
        const QString name = net.name;
        m_loop.add(fd, EPOLLIN, [this, name](uint32_t) { onAccept(name); });
        m_sandboxes.insert(name, s);
    });
    return result;
}

void TransparentProxy::detach(const QString &sandbox)
{
    m_loop.call([&] {
        const auto it = m_sandboxes.find(sandbox);
        if (it == m_sandboxes.end())
            return;
        m_loop.remove(it->listener);
        ::close(it->listener);
        endFlowsOf(sandbox, QStringLiteral("the sandbox stopped"));
        m_sandboxes.remove(sandbox);
    });
}

int TransparentProxy::endTimeline(const QString &sandbox, const QString &reason)
{
    int denied = 0;
    m_loop.call([&] { denied = endFlowsOf(sandbox, reason); });
    return denied;
}

int TransparentProxy::endFlowsOf(const QString &sandbox, const QString &reason)
{
    int denied = 0;
    const QStringList keys = m_pending.keys();
    for (const QString &key : keys)
        if (auto item = m_pending.find(key); item != m_pending.end() && item->event.sandbox == sandbox) {
            release(*item, false, 0, reason, false);
            ++denied;
        }
    std::vector<quint64> ids;
    for (const auto &[id, f] : m_flows)
        if (f->target.sandbox == sandbox)
            ids.push_back(id);
    for (quint64 id : ids)
        if (Flow *f = flow(id))
            fail(*f, reason);
    if (m_handoff)
        m_handoff->endFlowsOf(sandbox); // the intercepted ones, which the interceptor serves
    return denied;
}

TransparentProxy::Flow *TransparentProxy::flow(quint64 id)
{
    const auto it = m_flows.find(id);
    return it == m_flows.end() ? nullptr : it->second.get();
}

bool TransparentProxy::forbiddenDestination(quint32 ip) const
{
    // The host's own services and other sandboxes are never a destination.
    if ((ip >> 24) == 127 || (ip >> 24) == 0 || (ip >> 28) >= 0xE)
        return true;
    for (const Sandbox &s : m_sandboxes)
        if (ip == s.net.gatewayIp || ip == s.net.guestIp)
            return true;
    return false;
}

void TransparentProxy::onAccept(const QString &sandbox)
{
    auto it = m_sandboxes.find(sandbox);
    if (it == m_sandboxes.end())
        return;
    for (int budget = 0; budget < 128; ++budget) {
        sockaddr_in peer{};
        socklen_t peerLength = sizeof peer;
        const int fd = ::accept4(it->listener, reinterpret_cast<sockaddr *>(&peer), &peerLength, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        sockaddr_in original{};
        socklen_t originalLength = sizeof original;
        const bool redirected = ::getsockopt(fd, SOL_IP, SO_ORIGINAL_DST, &original, &originalLength) == 0;
        if (ntohl(peer.sin_addr.s_addr) != it->net.guestIp || !redirected) {
            ::close(fd); // not the guest, or not through the redirect: nothing to decide
            continue;
        }
        const int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        auto f = std::make_unique<Flow>();
        f->id = m_nextFlow++;
        f->client = fd;
        f->started = Clock::now();
        f->deadline = f->started + std::chrono::milliseconds(m_limits.firstBytesMs);
        f->target.sandbox = sandbox;
        f->target.ip = ntohl(original.sin_addr.s_addr);
        f->target.port = ntohs(original.sin_port);
        if (SyntheticNames::inPool(f->target.ip))
            f->target.host = m_names.nameFor(sandbox, f->target.ip);
        f->event.id = m_events.nextId();
        f->event.sandbox = sandbox;
        f->event.time = QDateTime::currentDateTimeUtc();
        f->event.proto = QStringLiteral("tcp");
        f->event.host = f->target.host;
        f->event.ip = ipv4ToString(f->target.ip);
        f->event.port = f->target.port;
        f->guestPort = ntohs(peer.sin_port);
        attribute(*f);
        ++m_totalFlows;
        const quint64 id = f->id;
        Flow &ref = *f;
        m_flows.emplace(id, std::move(f));
        m_openFlows = qint64(m_flows.size());
        ++it->flows;
        if (it->flows + it->handedOff->load() > m_limits.maxFlows) {
            deny(ref, QStringLiteral("the sandbox has %1 connections open, its limit").arg(m_limits.maxFlows));
            continue;
        }
        if (forbiddenDestination(ref.target.ip)) {
            deny(ref, QStringLiteral("host services and other sandboxes are never reachable"));
            continue;
        }
        m_loop.add(fd, EPOLLIN | EPOLLRDHUP, [this, id](uint32_t events) { onClient(id, events); });
    }
}

void TransparentProxy::readHead(Flow &f)
{
    char buffer[4096];
    while (f.head.size() < tls::kMaxPeek) {
        const ssize_t n = ::recv(f.client, buffer, std::min<size_t>(sizeof buffer, size_t(tls::kMaxPeek - f.head.size())), MSG_DONTWAIT);
        if (n > 0) {
            f.head.append(buffer, int(n));
            continue;
        }
        if (n == 0)
            f.clientEof = true;
        break;
    }
}

bool TransparentProxy::analyzeHead(Flow &f, bool final)
{
    const tls::ClientHello hello = tls::parseClientHello(f.head);
    switch (hello.status) {
    case tls::ClientHello::Status::Complete:
        f.event.proto = QStringLiteral("tls");
        f.event.sni = hello.sni;
        return f.target.host.isEmpty() || analyzeChecked(f, final, true);
    case tls::ClientHello::Status::Invalid:
        f.event.proto = QStringLiteral("tls");
        deny(f, QStringLiteral("malformed TLS ClientHello: %1").arg(hello.error));
        return false;
    case tls::ClientHello::Status::NeedMore:
        if (final || f.head.size() >= tls::kMaxPeek) {
            deny(f, QStringLiteral("incomplete TLS ClientHello"));
            return false;
        }
        return false;
    case tls::ClientHello::Status::NotTls:
        break;
    }
    return f.target.host.isEmpty() ? analyzeRawIpHttp(f, final) : analyzeChecked(f, final, false);
}

// A flow to a name: its checker reads the first bytes (and later every other byte).
bool TransparentProxy::analyzeChecked(Flow &f, bool final, bool tls)
{
    if (!f.check) {
        if (tls)
            f.check = std::make_unique<TlsHandshakeWatch>(f.target.host);
        else
            f.check = std::make_unique<HttpStreamCheck>(f.target.host, f.target.port);
    }
    const bool fine = f.check->client(QByteArrayView(f.head).sliced(f.checkFed));
    f.checkFed = f.head.size();
    if (auto *http = dynamic_cast<HttpStreamCheck *>(f.check.get())) {
        if (http->looksHttp())
            f.event.proto = QStringLiteral("http");
        if (const std::optional<http::RequestHead> &first = http->first()) {
            f.http = true; // a head was read: a refusal gets a page
            f.event.method = QString::fromLatin1(first->method);
            f.event.path = QString::fromLatin1(first->target.left(512));
        }
        if (fine && !http->looksHttp() && !http->unverified().isEmpty()) {
            f.unverified = needsRawTcp(http->unverified(), f.target);
            f.check.reset(); // neither TLS nor HTTP: relayed as is, if at all
            return true;
        }
        if (fine && !http->first()) {
            if (final || f.head.size() >= tls::kMaxPeek) {
                deny(f, QStringLiteral("incomplete HTTP request head"));
                return false;
            }
            return false;
        }
    }
    if (!fine) {
        deny(f, f.check->error());
        return false;
    }
    if (!f.check->unverified().isEmpty())
        f.unverified = needsRawTcp(f.check->unverified(), f.target);
    return !placeholderInHead(f);
}

// A raw IP is decided on the IP: its first request head is only read for the record.
bool TransparentProxy::analyzeRawIpHttp(Flow &f, bool final)
{
    if (http::looksLikeRequest(f.head) == http::Looks::No)
        return true; // some other protocol: decided on the target alone
    const http::HeadResult head = http::parseRequestHead(f.head);
    if (head.status == http::HeadResult::Status::NeedMore) {
        if (final || f.head.size() >= tls::kMaxPeek) {
            deny(f, QStringLiteral("incomplete HTTP request head"));
            return false;
        }
        return false;
    }
    f.event.proto = QStringLiteral("http");
    if (head.status == http::HeadResult::Status::Invalid) {
        deny(f, QStringLiteral("malformed HTTP request: %1").arg(head.error));
        return false;
    }
    f.http = true;
    f.event.method = QString::fromLatin1(head.head.method);
    f.event.path = QString::fromLatin1(head.head.target.left(512));
    f.event.host = QString(); // a raw IP stays a raw IP whatever Host says
    return !placeholderInHead(f);
}

// Plain HTTP is relayed, never intercepted: a placeholder in it would leave as is. True
// when one is there (the flow is denied).
bool TransparentProxy::placeholderInHead(Flow &f)
{
    if (!m_handoff || !f.http)
        return false;
    const std::optional<QString> secret = m_handoff->placeholderIn(f.target.sandbox, f.head);
    if (!secret)
        return false;
    const QString host = f.target.host.isEmpty() ? ipv4ToString(f.target.ip) : f.target.host;
    m_handoff->exfiltration(f.target.sandbox, host, *secret);
    deny(f, QStringLiteral("the request carries the placeholder of secret %1, which is not lent to plain HTTP to %2 "
                           "(exfiltration blocked)").arg(*secret, host));
    return true;
}

void TransparentProxy::onClient(quint64 id, uint32_t events)
{
    Flow *f = flow(id);
    if (!f)
        return;
    switch (f->state) {
    case State::Peeking: {
        readHead(*f);
        if (f->head.isEmpty() && !f->clientEof)
            return;
        if (analyzeHead(*f, f->clientEof)) {
            f->inspected = true;
            proceed(*f);
        }
        return;
    }
    case State::Held:
    case State::Resolving:
    case State::Connecting:
        if (events & (uint32_t(EPOLLHUP | EPOLLERR) | (f->state == State::Held ? uint32_t(EPOLLRDHUP) : 0u))) {
            // The guest gave up waiting: the flow leaves its pending item.
            f->event.reason = QStringLiteral("the guest closed the connection before a decision");
            finish(*f, false);
        }
        return;
    case State::Relaying:
        if (!f->inspected && !f->target.host.isEmpty()) {
            f->inspected = true; // a server-speaks-first name flow: raw TCP, as its rule allows
        } else if (!f->inspected) {
            // A server-speaks-first raw-IP flow: the guest's first bytes are still read.
            readHead(*f);
            if (!f->head.isEmpty() || f->clientEof) {
                if (!analyzeHead(*f, f->clientEof))
                    return; // denied, or the head is not complete yet
                f->inspected = true;
            }
        }
        pump(*f); // the upstream -> guest direction runs meanwhile
        return;
    case State::Closing: {
        char sink[4096];
        ssize_t n;
        while ((n = ::recv(f->client, sink, sizeof sink, MSG_DONTWAIT)) > 0) {
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            finish(*f, false);
        return;
    }
    }
}

void TransparentProxy::proceed(Flow &f)
{
    if (!f.verdict)
        f.verdict = m_decider(f.target); // once: a rule allowed once is consumed once
    const FlowVerdict v = *f.verdict;
    f.rawTcp = v.rawTcp;
    f.event.rule = v.rule;
    f.event.reason = v.reason;
    switch (v.decision) {
    case Decision::Allowed:
        allow(f);
        return;
    case Decision::Denied:
    case Decision::Dropped: // no decider says it; anything but Allowed and Pending closes
        deny(f, v.reason, v.rule);
        return;
    case Decision::Pending:
        hold(f);
        return;
    }
}

TransparentProxy::PendingItem *TransparentProxy::pendingItem(const QString &key, qint64 firstEventId)
{
    auto item = m_pending.find(key);
    if (item != m_pending.end())
        return &*item;
    const QString sandbox = key.section(QLatin1Char('|'), 0, 0);
    int ofSandbox = 0;
    for (const PendingItem &p : std::as_const(m_pending))
        ofSandbox += p.event.sandbox == sandbox;
    if (ofSandbox >= m_limits.maxPending)
        return nullptr;
    PendingItem p;
    p.id = firstEventId;
    p.key = key;
    p.since = Clock::now();
    p.deadline = holdDeadline(p.since, m_limits.holdTimeoutMs);
    return &*m_pending.insert(key, p);
}

QString TransparentProxy::waitingReason(const PendingItem &item, qint64 eventId) const
{
    if (item.id != eventId)
        return QStringLiteral("joined pending request %1").arg(item.id);
    return m_limits.holdTimeoutMs > 0 ? QStringLiteral("waiting for a decision (denied after %1 s)").arg(m_limits.holdTimeoutMs / 1000)
                                      : QStringLiteral("waiting for a decision (held until answered)");
}

QString TransparentProxy::pendingLimitReason() const
{
    return QStringLiteral("the sandbox already waits for %1 decisions, its limit").arg(m_limits.maxPending);
}

void TransparentProxy::hold(Flow &f)
{
    const QString key = f.target.sandbox + QLatin1Char('|') + (f.target.host.isEmpty() ? ipv4ToString(f.target.ip) : f.target.host) +
                        QLatin1Char('|') + QString::number(f.target.port);
    PendingItem *item = pendingItem(key, f.event.id);
    if (!item) {
        deny(f, pendingLimitReason());
        return;
    }
    f.state = State::Held;
    f.pendingId = item->id;
    f.event.decision = Decision::Pending;
    f.event.pendingItem = item->id;
    f.event.reason = waitingReason(*item, f.event.id);
    item->flows.append(f.id);
    if (item->flows.size() + item->requests.size() == 1)
        item->event = f.event;
    m_pendingByEvent.insert(f.event.id, key);
    m_board.hold(item->id, item->event, f.event.id);
    m_loop.modify(f.client, EPOLLRDHUP); // hold: read nothing more until decided
    record(f);
}

void TransparentProxy::holdRequest(EgressEvent event, RequestAnswer reply)
{
    auto answerOnce = std::make_shared<RequestAnswer>(std::move(reply));
    const bool posted = m_alive->post([this, event = std::move(event), answerOnce]() mutable {
        RequestAnswer answer = std::move(*answerOnce);
        // The path without its query: the same request asked again joins the same item.
        const QString key = event.sandbox + QLatin1Char('|') + event.host + QLatin1Char('|') + QString::number(event.port) +
                            QLatin1Char('|') + event.method + QLatin1Char(' ') + event.path.section(QLatin1Char('?'), 0, 0);
        PendingItem *item = pendingItem(key, event.id);
        if (!item) {
            event.decision = Decision::Denied;
            event.reason = pendingLimitReason();
            m_events.record(event);
            answer(RequestVerdict{Decision::Denied, 0, event.reason});
            return;
        }
        event.decision = Decision::Pending;
        event.pendingItem = item->id;
        event.reason = waitingReason(*item, event.id);
        item->requests.append({event.id, std::move(answer)});
        if (item->flows.size() + item->requests.size() == 1)
            item->event = event;
        m_pendingByEvent.insert(event.id, key);
        m_board.hold(item->id, item->event, event.id);
        m_events.record(event);
    });
    if (!posted) // stopping: nobody would ever answer it
        (*answerOnce)(RequestVerdict{Decision::Denied, 0, QStringLiteral("airlockd is stopping")});
}

void TransparentProxy::leaveRequest(qint64 eventId)
{
    m_alive->post([this, eventId] {
        const QString key = m_pendingByEvent.take(eventId);
        m_board.leave(eventId);
        auto item = m_pending.find(key);
        if (item == m_pending.end())
            return;
        item->requests.removeIf([eventId](const auto &r) { return r.first == eventId; });
        if (item->flows.isEmpty() && item->requests.isEmpty()) {
            m_board.remove(item->id);
            m_pending.erase(item); // nobody waits any more: the item goes away
        }
    });
}

void TransparentProxy::release(PendingItem &item, bool allowIt, qint64 rule, const QString &reason, bool rawTcp)
{
    const QList<quint64> flows = item.flows;
    const QList<std::pair<qint64, RequestAnswer>> requests = item.requests;
    const QString key = item.key;
    for (quint64 id : flows)
        if (Flow *f = flow(id))
            m_pendingByEvent.remove(f->event.id);
    for (const auto &[eventId, answer] : requests)
        m_pendingByEvent.remove(eventId);
    m_board.remove(item.id);
    m_pending.remove(key);
    for (const auto &[eventId, answer] : requests)
        answer(RequestVerdict{allowIt ? Decision::Allowed : Decision::Denied, rule, reason});
    for (quint64 id : flows) {
        Flow *f = flow(id);
        if (!f)
            continue;
        f->pendingId = 0;
        f->event.pendingItem = 0;
        f->event.rule = rule;
        f->event.reason = reason;
        f->verdict = FlowVerdict{allowIt ? Decision::Allowed : Decision::Denied, rule, reason, rawTcp};
        f->rawTcp = rawTcp;
        if (allowIt) {
            allow(*f);
        } else {
            deny(*f, reason, rule);
        }
    }
}

void TransparentProxy::allow(Flow &f)
{
    // The guest's resolver never hands out such names; a flow that still carries one is refused
    // before any lookup (getaddrinfo would turn 2130706433 into 127.0.0.1 without asking anyone).
    if (const QString refused = f.target.host.isEmpty() ? QString() : refusedName(f.target.host); !refused.isEmpty()) {
        deny(f, refused);
        return;
    }
    // Policy decided first; only then does a bound secret turn the relay into interception.
    // A flow whose first bytes had not come yet (a slow guest past firstBytesMs) goes there too:
    // relaying it blindly would let TLS to a bound host bypass interception.
    f.handoff = m_handoff && (f.event.proto == QLatin1String("tls") || f.head.isEmpty()) && !f.target.host.isEmpty() &&
                m_handoff->wants(f.target.sandbox, f.target.host, f.verdict && f.verdict->perRequest);
    if (!f.handoff && !f.target.host.isEmpty() && !f.rawTcp) {
        // A name flow carries only what its checker can verify.
        if (f.head.isEmpty()) {
            awaitFirstBytes(f);
            return;
        }
        if (!f.unverified.isEmpty()) {
            deny(f, f.unverified, f.event.rule);
            return;
        }
    }
    if (f.verdict && f.verdict->perRequest && !admitPerRequest(f))
        return;
    f.event.decision = Decision::Allowed;
    if (f.handoff) {
        const bool byRules = f.verdict && f.verdict->perRequest;
        f.event.reason = f.event.reason.isEmpty() ? QStringLiteral("intercepted: a borrowed secret is bound to this host")
                         : byRules ? f.event.reason + QStringLiteral("; intercepted (the sandbox's CA speaks for this host)")
                                   : f.event.reason + QStringLiteral("; intercepted (a secret is bound to this host)");
    }
    f.state = State::Resolving;
    f.deadline = Clock::now() + std::chrono::milliseconds(m_limits.connectTimeoutMs);
    m_loop.modify(f.client, 0); // nothing is read until the upstream answers (HUP/ERR still come)
    record(f);
    const quint64 id = f.id;
    if (f.target.host.isEmpty()) {
        connectUpstream(id, f.target.ip, QString());
        return;
    }
    if (const std::optional<quint32> listed = m_upstream.fromHostsFile(f.target.host)) {
        connectUpstream(id, *listed, QString()); // no thread hop for an override
        return;
    }
    std::weak_ptr<Alive> alive = m_alive;
    m_upstream.resolve(f.target.host, [this, alive, id](quint32 ip, const QString &why) {
        if (auto a = alive.lock())
            a->post([this, id, ip, why] { connectUpstream(id, ip, why); });
    }, f.target.sandbox);
}

// A flow decided request by request: TLS only through the interceptor (which asks for each
// request itself), plain HTTP through its checker, which asks the RequestDecider about every
// head: the first one here, before anything is connected.
bool TransparentProxy::admitPerRequest(Flow &f)
{
    if (f.handoff)
        return true;
    auto *http = dynamic_cast<HttpStreamCheck *>(f.check.get());
    if (!http || !http->first() || !m_requestDecider) {
        // Unreadable here: decided as a connection instead (asked, if no rule answers).
        FlowVerdict unread = f.verdict->unread ? *f.verdict->unread : FlowVerdict{Decision::Denied, 0, QStringLiteral("requests cannot be read"), false, false, {}};
        f.verdict = unread;
        proceed(f);
        return false;
    }
    const FlowTarget target = f.target;
    const auto decide = [this, target](const http::RequestHead &head) {
        return m_requestDecider(target.sandbox, target.host, target.port, requestFacts(head.method, head.target));
    };
    const RequestVerdict first = decide(*http->first());
    f.event.rule = first.rule;
    f.event.reason = first.reason;
    if (first.decision != Decision::Allowed) {
        deny(f, first.reason, first.rule);
        return false;
    }
    http->setRequestCheck([decide](const http::RequestHead &head) {
        const RequestVerdict v = decide(head);
        return v.decision == Decision::Allowed ? QString() : v.reason;
    });
    return true;
}

// Allowed, but the guest has sent nothing yet (a slow client, or a protocol where the
// server speaks first): the flow waits for bytes to check until headerTimeoutMs rather than
// being relayed unchecked.
void TransparentProxy::awaitFirstBytes(Flow &f)
{
    f.state = State::Peeking;
    f.deadline = f.started + std::chrono::milliseconds(m_limits.headerTimeoutMs);
    m_loop.modify(f.client, EPOLLIN | EPOLLRDHUP);
}

void TransparentProxy::connectUpstream(quint64 id, quint32 ip, const QString &why)
{
    Flow *f = flow(id);
    if (!f || f->state != State::Resolving)
        return;
    if (!ip) {
        fail(*f, QStringLiteral("cannot resolve %1 upstream: %2").arg(f->target.host, why));
        return;
    }
    if (ip == f->target.ip && SyntheticNames::inPool(ip)) {
        fail(*f, QStringLiteral("%1 has no real address").arg(ipv4ToString(ip)));
        return;
    }
    if (!mayDial(*f, ip))
        return;
    if (f->handoff) {
        // The interceptor connects and verifies upstream itself, on its own thread.
        const int fd = f->client;
        m_loop.remove(fd);
        f->client = -1;
        // The flow keeps its slot in the sandbox's limit until the interceptor says it ended.
        const auto s = m_sandboxes.constFind(f->target.sandbox);
        const auto slots = s != m_sandboxes.constEnd() ? s->handedOff : std::make_shared<std::atomic<int>>(0);
        slots->fetch_add(1);
        // The table outlives the interceptor's connections (the vault's service stops first).
        GuestProcessLookup whoAsks = [table = m_guestProcesses, sandbox = f->target.sandbox, guestPort = f->guestPort,
                                      ip = f->target.ip, port = f->target.port] {
            return table ? table->find(sandbox, false, guestPort, ip, port) : std::nullopt;
        };
        m_handoff->take(fd, f->target.sandbox, f->target.host, f->head, QHostAddress(ip), f->target.port,
                        f->verdict && f->verdict->perRequest, std::move(whoAsks), [slots] { slots->fetch_sub(1); });
        finish(*f, false);
        return;
    }
    f->upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(f->upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(f->target.port);
    sa.sin_addr.s_addr = htonl(ip);
    if (::connect(f->upstream, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 && errno != EINPROGRESS) {
        fail(*f, QStringLiteral("cannot connect to %1:%2: %3").arg(ipv4ToString(ip)).arg(f->target.port).arg(QString::fromLocal8Bit(strerror(errno))));
        return;
    }
    f->state = State::Connecting;
    m_loop.add(f->upstream, EPOLLOUT | EPOLLIN | EPOLLRDHUP, [this, id](uint32_t events) { onUpstream(id, events); });
}

bool TransparentProxy::mayDial(Flow &f, quint32 ip)
{
    FlowTarget real = f.target;
    real.ip = ip;
    const FlowVerdict byAddress = m_addressDecider ? m_addressDecider(real) : FlowVerdict{};
    const QString what = f.target.host.isEmpty() ? ipv4ToString(ip) : QStringLiteral("%1 (%2)").arg(f.target.host, ipv4ToString(ip));
    if (byAddress.decision == Decision::Denied) {
        deny(f, QStringLiteral("%1: %2").arg(what, byAddress.reason), byAddress.rule);
        return false;
    }
    const QHostAddress address(ip);
    const QString why = m_addresses.why(address);
    if (why.isEmpty())
        return true;
    bool never = UpstreamAddressCheck::neverDialled(address);
    for (const Sandbox &s : std::as_const(m_sandboxes))
        never = never || ip == s.net.gatewayIp || ip == s.net.guestIp;
    if (byAddress.decision == Decision::Allowed && !never) {
        f.event.reason += QStringLiteral("; %1 opened by %2").arg(what, byAddress.reason);
        return true;
    }
    const QString how = never ? QStringLiteral("no rule opens it")
                              : QStringLiteral("only an address rule for it (airlockctl rule add --host %1 ...) opens it").arg(ipv4ToString(ip));
    deny(f, QStringLiteral("%1 is not dialled: %2; %3").arg(what, why, how));
    return false;
}

void TransparentProxy::onUpstream(quint64 id, uint32_t events)
{
    Flow *f = flow(id);
    if (!f)
        return;
    if (f->state == State::Connecting) {
        int error = 0;
        socklen_t length = sizeof error;
        ::getsockopt(f->upstream, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error) {
            fail(*f, QStringLiteral("upstream %1:%2 refused or unreachable: %3").arg(f->event.ip).arg(f->target.port)
                         .arg(QString::fromLocal8Bit(strerror(error))));
            return;
        }
        if (!(events & EPOLLOUT))
            return;
        startRelay(*f);
        return;
    }
    if (f->state == State::Relaying)
        pump(*f);
}

void TransparentProxy::startRelay(Flow &f)
{
    int up[2], down[2];
    if (::pipe2(up, O_NONBLOCK | O_CLOEXEC) != 0) {
        fail(f, QStringLiteral("out of pipes"));
        return;
    }
    if (::pipe2(down, O_NONBLOCK | O_CLOEXEC) != 0) {
        ::close(up[0]);
        ::close(up[1]);
        fail(f, QStringLiteral("out of pipes"));
        return;
    }
    f.up.r = up[0];
    f.up.w = up[1];
    f.down.r = down[0];
    f.down.w = down[1];
    for (Pipe *p : {&f.up, &f.down}) {
        const int size = ::fcntl(p->w, F_SETPIPE_SZ, kPipeChunk);
        p->capacity = size_t(size > 0 ? size : ::fcntl(p->w, F_GETPIPE_SZ));
    }
    f.state = State::Relaying;
    f.scanUp = f.http && m_handoff;
    if (f.check || f.scanUp) {
        // Through user space, from the first byte: the checker saw the head, and it decides
        // how much of it (and of what follows) may go.
        f.userUp = true;
        f.upPending = f.head;
        f.upRead = f.head.size();
        f.headSent = f.head.size();
        f.scanTail = f.head.right(kMaxSecretForm);
    }
    f.userDown = f.check && f.check->wantsServer();
    pump(f);
}

bool TransparentProxy::refuseLater(Flow &f, const QString &reason)
{
    f.event.decision = Decision::Denied;
    f.event.reason = reason;
    return false;
}

// Scans and checks guest bytes just read; false when the flow must end (the reason is set).
bool TransparentProxy::takeUp(Flow &f, QByteArrayView fresh)
{
    if (f.scanUp) {
        // The new bytes, and the seam with the previous read (a placeholder may straddle it):
        // no copy of the whole read.
        const QByteArray seam = f.scanTail + fresh.first(std::min<qsizetype>(fresh.size(), kMaxSecretForm));
        std::optional<QString> secret = m_handoff->placeholderIn(f.target.sandbox, fresh);
        if (!secret)
            secret = m_handoff->placeholderIn(f.target.sandbox, seam);
        if (secret) {
            const QString host = f.target.host.isEmpty() ? ipv4ToString(f.target.ip) : f.target.host;
            m_handoff->exfiltration(f.target.sandbox, host, *secret);
            return refuseLater(f, QStringLiteral("later bytes on the connection (a request or a body) carry the placeholder of secret "
                                                 "%1, which is not lent to plain HTTP to %2 (exfiltration blocked)").arg(*secret, host));
        }
        f.scanTail = fresh.size() >= kMaxSecretForm ? fresh.last(kMaxSecretForm).toByteArray() : seam.right(kMaxSecretForm);
    }
    if (f.check) {
        if (!f.check->client(fresh))
            return refuseLater(f, QStringLiteral("later bytes on the connection: %1").arg(f.check->error()));
        if (!f.rawTcp && !f.check->unverified().isEmpty())
            return refuseLater(f, QStringLiteral("later bytes on the connection: %1").arg(needsRawTcp(f.check->unverified(), f.target)));
    }
    return true;
}

// One direction through user space: sends the first `ready()` bytes of `pending`, reads
// while `mayRead` (each read goes to `take` first: false ends the flow), and at the end
// shuts the receiver down; what was never ready (a request cut off by the close) never goes.
bool TransparentProxy::pumpUser(int from, int to, QByteArray &pending, Pipe &p, qint64 &counter, qint64 &read,
                                const std::function<qsizetype()> &ready, bool mayRead,
                                const std::function<bool(QByteArrayView)> &take)
{
    for (;;) {
        bool moved = false;
        if (const qsizetype n = ready(); n > 0) {
            const ssize_t sent = ::send(to, pending.constData(), size_t(n), MSG_DONTWAIT | MSG_NOSIGNAL);
            if (sent > 0) {
                pending.remove(0, sent);
                counter += sent;
                moved = true;
            } else if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                return false;
            }
        }
        if (p.eof && ready() == 0) {
            pending.clear();
            if (!p.done) {
                ::shutdown(to, SHUT_WR);
                p.done = true;
            }
            break;
        }
        if (mayRead && !p.eof && pending.size() < qsizetype(kScanChunk)) {
            char buffer[kScanChunk];
            const ssize_t n = ::recv(from, buffer, sizeof buffer, MSG_DONTWAIT);
            if (n > 0) {
                if (!take(QByteArrayView(buffer, n)))
                    return false;
                pending.append(buffer, n);
                read += n;
                moved = true;
            } else if (n == 0) {
                p.eof = true;
                moved = true;
            } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
                return false;
            }
        }
        if (!moved)
            break;
    }
    return true;
}

bool TransparentProxy::pumpUp(Flow &f, bool mayRead)
{
    return pumpUser(f.client, f.upstream, f.upPending, f.up, f.event.bytesUp, f.upRead, [&] { return upSendable(f); }, mayRead,
                    [&](QByteArrayView fresh) { return takeUp(f, fresh); });
}

bool TransparentProxy::pumpDown(Flow &f)
{
    qint64 read = 0;
    return pumpUser(f.upstream, f.client, f.downPending, f.down, f.event.bytesDown, read, [&] { return f.downPending.size(); },
                    f.check && f.check->wantsServer(), [&](QByteArrayView fresh) {
                        return f.check->server(fresh) || refuseLater(f, f.check->error());
                    });
}

// Where the checker needs no more bytes and user space holds none, splicing resumes.
void TransparentProxy::settle(Flow &f)
{
    if (f.userDown && f.downPending.isEmpty() && !(f.check && f.check->wantsServer()))
        f.userDown = false;
    if (f.check && f.check->settled() && f.upPending.isEmpty()) {
        f.check.reset();
        f.userUp = f.scanUp;
    }
}

// Moves what can move in both directions without blocking; the kernel copies the bytes
// (socket -> pipe -> socket), user space never touches them.
void TransparentProxy::pump(Flow &f)
{
    // Reads while the pipe has room and writes while the receiver takes bytes, so reading
    // and writing overlap instead of alternating.
    auto direction = [&](int from, int to, Pipe &p, qint64 &counter, bool mayRead) -> bool {
        for (;;) {
            bool moved = false;
            if (p.buffered > 0) {
                const ssize_t n = ::splice(p.r, nullptr, to, nullptr, p.buffered, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                if (n > 0) {
                    p.buffered -= size_t(n);
                    counter += n;
                    moved = true;
                } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                    return false; // the receiver is gone
                }
            }
            if (p.eof && p.buffered == 0) {
                if (!p.done) {
                    ::shutdown(to, SHUT_WR);
                    p.done = true;
                }
                return true;
            }
            if (mayRead && !p.eof && p.buffered < p.capacity) {
                const ssize_t n = ::splice(from, nullptr, p.w, nullptr, p.capacity - p.buffered, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                if (n > 0) {
                    p.buffered += size_t(n);
                    moved = true;
                } else if (n == 0) {
                    p.eof = true;
                    moved = true;
                } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
                    return false;
                }
            }
            if (!moved)
                return true;
        }
    };
    // Bytes peeked before the decision go first.
    while (f.headSent < f.head.size()) {
        const ssize_t n = ::send(f.upstream, f.head.constData() + f.headSent, size_t(f.head.size() - f.headSent),
                                 MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) {
            f.headSent += n;
            f.event.bytesUp += n;
            continue;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            break;
        fail(f, QStringLiteral("upstream closed while sending the request"));
        return;
    }
    const bool headDone = f.headSent >= f.head.size();
    if (f.clientEof && headDone)
        f.up.eof = true;
    settle(f);
    bool healthy = f.userUp ? pumpUp(f, headDone && f.inspected)
                            : direction(f.client, f.upstream, f.up, f.event.bytesUp, headDone && f.inspected);
    healthy = (f.userDown ? pumpDown(f) : direction(f.upstream, f.client, f.down, f.event.bytesDown, true)) && healthy;
    settle(f);
    if (!healthy || (f.up.done && f.down.done)) {
        finish(f, !healthy);
        return;
    }
    updateInterest(f);
}

void TransparentProxy::updateInterest(Flow &f)
{
    const bool headDone = f.headSent >= f.head.size();
    // Through user space a side waits only for what pumpUp/pumpDown would do now: bytes held
    // for the checker (an incomplete head) are not ready to write.
    const bool upRoom = f.userUp ? f.upPending.size() < qsizetype(kScanChunk) : f.up.buffered < f.up.capacity;
    const bool upReady = f.userUp ? upSendable(f) > 0 : f.up.buffered > 0;
    const bool downRoom = f.userDown ? f.downPending.size() < qsizetype(kScanChunk) && f.check && f.check->wantsServer()
                                     : f.down.buffered < f.down.capacity;
    const bool downReady = f.userDown ? !f.downPending.isEmpty() : f.down.buffered > 0;
    uint32_t client = EPOLLRDHUP;
    uint32_t upstream = EPOLLRDHUP;
    if (upRoom && !f.up.eof)
        client |= EPOLLIN;
    if (downReady)
        client |= EPOLLOUT;
    if (downRoom && !f.down.eof)
        upstream |= EPOLLIN;
    if (upReady || !headDone)
        upstream |= EPOLLOUT;
    m_loop.modify(f.client, client);
    m_loop.modify(f.upstream, upstream);
}

void TransparentProxy::deny(Flow &f, const QString &reason, qint64 rule)
{
    f.event.decision = Decision::Denied;
    f.event.reason = reason;
    f.event.rule = rule;
    if (f.http && f.state != State::Relaying) {
        // A page the person can read in the agent's output, instead of a mystery failure.
        const QString host = f.target.host.isEmpty() ? ipv4ToString(f.target.ip) : f.target.host;
        const QByteArray body = blockedPage(host, f.target.port, f.target.sandbox, f.event.id, rule, reason).toUtf8();
        const QByteArray response = "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n"
                                    "Connection: close\r\nX-Airlock-Event: " + QByteArray::number(f.event.id) +
                                    "\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
        ::send(f.client, response.constData(), size_t(response.size()), MSG_DONTWAIT | MSG_NOSIGNAL);
        ::shutdown(f.client, SHUT_WR);
        record(f);
        // Drain what the guest still sends, so closing does not reset away the page.
        f.state = State::Closing;
        f.deadline = Clock::now() + std::chrono::seconds(2);
        m_loop.remove(f.client);
        const quint64 id = f.id;
        m_loop.add(f.client, EPOLLIN | EPOLLRDHUP, [this, id](uint32_t events) { onClient(id, events); });
        return;
    }
    finish(f, true);
}

void TransparentProxy::fail(Flow &f, const QString &reason)
{
    // An allowed flow that could not be completed keeps its decision; the reason says why.
    if (f.event.decision == Decision::Pending)
        f.event.decision = Decision::Denied;
    f.event.reason = f.event.reason.isEmpty() ? reason : f.event.reason + QStringLiteral("; ") + reason;
    finish(f, true);
}

void TransparentProxy::record(Flow &f)
{
    f.event.durationMs = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - f.started).count();
    m_events.record(f.event);
}

void TransparentProxy::finish(Flow &f, bool reset)
{
    if (f.event.decision == Decision::Pending) {
        // Nothing was let through: an attempt that ended undecided is on record as denied.
        f.event.decision = Decision::Denied;
        if (f.event.reason.isEmpty())
            f.event.reason = QStringLiteral("closed before a decision");
    }
    attribute(f); // a report that came after the last tick still labels the final record
    record(f);
    if (f.pendingId) {
        const QString key = m_pendingByEvent.take(f.event.id);
        m_board.leave(f.event.id);
        auto item = m_pending.find(key);
        if (item != m_pending.end()) {
            item->flows.removeAll(f.id);
            if (item->flows.isEmpty() && item->requests.isEmpty()) {
                m_board.remove(item->id);
                m_pending.erase(item); // nobody waits any more: the item goes away
            }
        }
    }
    if (reset && f.client >= 0) {
        const linger hard{1, 0};
        ::setsockopt(f.client, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    }
    if (f.client >= 0)
        m_loop.remove(f.client);
    if (f.upstream >= 0)
        m_loop.remove(f.upstream);
    closeFd(f.client);
    closeFd(f.upstream);
    closeFd(f.up.r);
    closeFd(f.up.w);
    closeFd(f.down.r);
    closeFd(f.down.w);
    const auto s = m_sandboxes.find(f.target.sandbox);
    if (s != m_sandboxes.end())
        --s->flows;
    m_flows.erase(f.id); // f is gone after this line
    m_openFlows = qint64(m_flows.size());
}

bool TransparentProxy::attribute(Flow &f)
{
    if (!m_guestProcesses || f.event.guestProcess)
        return false;
    f.event.guestProcess = m_guestProcesses->find(f.target.sandbox, false, f.guestPort, f.target.ip, f.target.port);
    return f.event.guestProcess.has_value();
}

void TransparentProxy::attributeLate(Clock::time_point now)
{
    // The helper polls every 20 ms, so its report often comes after the flow was held or
    // allowed; a flow without one is looked up again for its first few seconds.
    constexpr auto kLookFor = std::chrono::seconds(3);
    if (!m_guestProcesses)
        return;
    for (const auto &[id, f] : m_flows) {
        if (f->event.guestProcess || now - f->started > kLookFor || !attribute(*f))
            continue;
        if (f->state == State::Peeking)
            continue; // not recorded yet: its first record carries it
        if (f->pendingId) {
            const auto key = m_pendingByEvent.constFind(f->event.id);
            if (key != m_pendingByEvent.cend()) {
                auto item = m_pending.find(*key);
                if (item != m_pending.end() && !item->event.guestProcess && item->id == f->event.id) {
                    item->event.guestProcess = f->event.guestProcess;
                    m_board.update(item->id, item->event);
                }
            }
        }
        record(*f);
    }
}

void TransparentProxy::tick()
{
    const auto now = Clock::now();
    attributeLate(now);
    // Unanswered asks are denied: fail closed.
    QList<QString> expired;
    for (const PendingItem &p : std::as_const(m_pending))
        if (now >= p.deadline)
            expired.append(p.key);
    for (const QString &key : expired) {
        auto item = m_pending.find(key);
        if (item != m_pending.end())
            release(*item, false, 0, QStringLiteral("nobody decided within %1 s").arg(m_limits.holdTimeoutMs / 1000), false);
    }
    std::vector<quint64> peeking, stale, closing;
    // Long flows show their traffic while it runs, not only when they end.
    if (now - m_lastProgress >= std::chrono::seconds(2)) {
        m_lastProgress = now;
        for (const auto &[id, f] : m_flows)
            if (f->state == State::Relaying)
                record(*f);
    }
    for (const auto &[id, f] : m_flows) {
        if (f->state == State::Peeking && now >= f->deadline)
            peeking.push_back(id);
        else if ((f->state == State::Resolving || f->state == State::Connecting) && now >= f->deadline)
            stale.push_back(id);
        else if (f->state == State::Closing && now >= f->deadline)
            closing.push_back(id);
    }
    for (quint64 id : peeking) {
        Flow *f = flow(id);
        if (!f)
            continue;
        if (f->head.isEmpty()) {
            // Nothing sent yet: maybe the server speaks first (ssh, smtp). Decide on the
            // target: a raw IP or a raw-TCP rule relays it (a raw IP's first bytes are still
            // read once they come); any other name flow waits for bytes to check.
            if (now - f->started >= std::chrono::milliseconds(m_limits.headerTimeoutMs)) {
                const QString nothing = QStringLiteral("the guest sent nothing for %1 s").arg(m_limits.headerTimeoutMs / 1000);
                deny(*f, f->target.host.isEmpty() ? nothing
                                                  : needsRawTcp(nothing + QStringLiteral(" (a protocol where the server speaks "
                                                                                         "first cannot be checked)"), f->target));
            } else if (!f->verdict) {
                f->deadline = f->started + std::chrono::milliseconds(m_limits.headerTimeoutMs);
                proceed(*f);
            }
        } else if (now - f->started >= std::chrono::milliseconds(m_limits.headerTimeoutMs)) {
            deny(*f, QStringLiteral("the request head was not complete within %1 s").arg(m_limits.headerTimeoutMs / 1000));
        }
    }
    for (quint64 id : stale)
        if (Flow *f = flow(id))
            fail(*f, QStringLiteral("upstream did not answer within %1 s").arg(m_limits.connectTimeoutMs / 1000));
    for (quint64 id : closing)
        if (Flow *f = flow(id))
            finish(*f, false);
}

QList<EgressEvent> TransparentProxy::pending(const QString &sandbox) const { return m_board.items(sandbox); }

std::optional<EgressEvent> TransparentProxy::findPending(qint64 id) const { return m_board.find(id); }

void TransparentProxy::decide(qint64 id, bool allowIt, qint64 rule, const QString &reason, bool rawTcp,
                              std::function<void(bool found)> done)
{
    m_loop.post([this, id, allowIt, rule, reason, rawTcp, done = std::move(done)] {
        bool found = false;
        const auto key = m_pendingByEvent.constFind(id);
        if (key != m_pendingByEvent.constEnd()) {
            if (auto item = m_pending.find(*key); item != m_pending.end()) {
                found = true;
                release(*item, allowIt, rule, reason, rawTcp);
            }
        }
        done(found);
    });
}

TransparentProxy::Stats TransparentProxy::stats() const
{
    return Stats{m_totalFlows.load(), m_openFlows.load(), m_board.size()};
}

} // namespace airlock
