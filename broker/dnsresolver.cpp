#include "dnsresolver.h"
#include "upstreamaddress.h"
#include "core/logging.h"
#include "dnsmessage.h"
#include "eventlog.h"
#include "gatewaysocket.h"
#include "syntheticnames.h"

#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace airlock {

namespace {

using Clock = std::chrono::steady_clock;

} // namespace

DnsResolver::DnsResolver(SyntheticNames &names, EventLog &events, quint16 port, Limits limits)
    : m_names(names), m_events(events), m_port(port), m_limits(limits)
{
}

DnsResolver::~DnsResolver() { stop(); }

void DnsResolver::start()
{
    if (!m_loop.running())
        m_loop.start(QStringLiteral("egress-dns"), [this] { tick(); }, 1000);
}

void DnsResolver::stop()
{
    if (!m_loop.running())
        return;
    m_loop.call([this] {
        const QStringList names = m_sandboxes.keys();
        for (const QString &n : names)
            detach(n);
    });
    m_loop.stop();
}

Status DnsResolver::attach(const SandboxNet &net)
{
    Status result = ok();
    m_loop.call([&] {
        if (m_sandboxes.contains(net.name))
            detach(net.name);
        QString why;
        Sandbox s;
        s.net = net;
        s.bucket.tokens = m_limits.burst;
        s.bucket.last = Clock::now();
        s.udp = gatewaySocket(SOCK_DGRAM, net.gatewayIp, m_port, 0, &why);
        if (s.udp >= 0)
            s.tcp = gatewaySocket(SOCK_STREAM, net.gatewayIp, m_port, 64, &why);
        if (s.udp < 0 || s.tcp < 0) {
            if (s.udp >= 0)
                ::close(s.udp);
            result = Error{QStringLiteral("cannot start the DNS resolver for sandbox %1").arg(net.name),
                           QStringLiteral("binding %1:%2 failed: %3").arg(ipv4ToString(net.gatewayIp)).arg(m_port).arg(why)};
            return;
        }
        const QString name = net.name;
        m_loop.add(s.udp, EPOLLIN, [this, name](uint32_t) { onUdp(name); });
        m_loop.add(s.tcp, EPOLLIN, [this, name](uint32_t) { onTcpAccept(name); });
        m_sandboxes.insert(name, s);
    });
    return result;
}

void DnsResolver::detach(const QString &sandbox)
{
    m_loop.call([&] {
        const auto it = m_sandboxes.find(sandbox);
        if (it == m_sandboxes.end())
            return;
        m_loop.remove(it->udp);
        m_loop.remove(it->tcp);
        ::close(it->udp);
        ::close(it->tcp);
        m_sandboxes.erase(it);
        QList<int> clients;
        for (auto c = m_tcpClients.cbegin(); c != m_tcpClients.cend(); ++c)
            if (c->sandbox == sandbox)
                clients.append(c.key());
        for (int fd : clients)
            closeTcp(fd);
    });
}

bool DnsResolver::admit(Sandbox &s)
{
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - s.bucket.last).count();
    s.bucket.last = now;
    s.bucket.tokens = std::min<double>(m_limits.burst, s.bucket.tokens + elapsed * m_limits.queriesPerSecond);
    if (s.bucket.tokens < 1) {
        ++s.bucket.droppedSinceReport;
        return false;
    }
    s.bucket.tokens -= 1;
    return true;
}

void DnsResolver::record(const Sandbox &s, const QString &name, const QString &ip, Decision decision,
                         const QString &reason)
{
    EgressEvent e;
    e.id = m_events.nextId();
    e.sandbox = s.net.name;
    e.time = QDateTime::currentDateTimeUtc();
    e.proto = QStringLiteral("dns");
    e.host = name;
    e.ip = ip;
    e.port = 53;
    e.decision = decision;
    e.reason = reason;
    m_events.record(e);
}

QByteArray DnsResolver::answer(Sandbox &s, const QByteArray &message, const QString &via)
{
    const dns::ParseResult parsed = dns::parseQuery(message);
    if (!parsed.ok) {
        record(s, QString(), QString(), Decision::Denied,
               QStringLiteral("malformed DNS query (%1) over %2").arg(parsed.error, via));
        return parsed.idValid ? dns::formErr(parsed.id, parsed.flags) : QByteArray();
    }
    const dns::Query &q = parsed.query;
    const QString &name = q.name;
    const auto now = Clock::now();
    bool longLabel = false;
    for (const QString &label : name.split(QLatin1Char('.')))
        longLabel = longLabel || label.size() > m_limits.maxLabel;
    if (longLabel || name.size() > m_limits.maxName) {
        record(s, name.left(255), QString(), Decision::Denied,
               QStringLiteral("name too long (label > %1 or name > %2 characters): looks like DNS tunnelling")
                   .arg(m_limits.maxLabel).arg(m_limits.maxName));
        return dns::answerRcode(q, dns::Refused);
    }
    if (q.qclass != dns::IN || (q.qtype != dns::A && q.qtype != dns::AAAA) || name.isEmpty()) {
        record(s, name, QString(), Decision::Denied,
               QStringLiteral("DNS type %1 is refused: sandboxes get A answers only").arg(q.qtype));
        return dns::answerRcode(q, dns::Refused);
    }
    // A numeric name (2130706433, 0x7f.1) or a single label gets no synthetic address: upstream
    // it would mean the host's loopback or LAN, never a public host.
    if (const QString refused = refusedName(name); !refused.isEmpty()) {
        record(s, name, QString(), Decision::Denied, refused);
        return dns::answerRcode(q, dns::Refused);
    }
    if (q.qtype == dns::AAAA) {
        ++m_answered;
        return dns::answerEmpty(q); // IPv6 is dropped anyway; an empty answer makes clients use A
    }
    const std::optional<quint32> ip = m_names.addressFor(s.net.name, name);
    if (!ip) {
        record(s, name, QString(), Decision::Denied,
               QStringLiteral("the sandbox resolved more than %1 names").arg(SyntheticNames::kMaxNamesPerSandbox));
        return dns::answerRcode(q, dns::Refused);
    }
    // One event per name and minute: repeats are answered, not re-logged.
    auto logged = s.lastLogged.find(name);
    if (logged == s.lastLogged.end() || now - *logged > std::chrono::seconds(60)) {
        if (s.lastLogged.size() > 4096)
            s.lastLogged.clear();
        s.lastLogged.insert(name, now);
        record(s, name, ipv4ToString(*ip), Decision::Allowed, QStringLiteral("synthetic address"));
    }
    ++m_answered;
    return dns::answerA(q, *ip, quint32(m_limits.ttl));
}

void DnsResolver::onUdp(const QString &sandbox)
{
    const auto it = m_sandboxes.find(sandbox);
    if (it == m_sandboxes.end())
        return;
    Sandbox &s = *it;
    char buffer[4096];
    for (int budget = 0; budget < 256; ++budget) {
        sockaddr_in from{};
        socklen_t fromLength = sizeof from;
        const ssize_t n = ::recvfrom(s.udp, buffer, sizeof buffer, MSG_DONTWAIT, reinterpret_cast<sockaddr *>(&from), &fromLength);
        if (n < 0)
            return;
        if (ntohl(from.sin_addr.s_addr) != s.net.guestIp)
            continue; // nftables lets only the guest's address in; anything else is not ours to answer
        if (!admit(s))
            continue;
        const QByteArray reply = answer(s, QByteArray(buffer, int(n)), QStringLiteral("udp"));
        if (reply.isEmpty())
            continue;
        // Over UDP an answer is capped at 512 bytes without EDNS; ours are far smaller.
        ::sendto(s.udp, reply.constData(), size_t(reply.size()), MSG_DONTWAIT, reinterpret_cast<sockaddr *>(&from), fromLength);
    }
}

void DnsResolver::onTcpAccept(const QString &sandbox)
{
    const auto it = m_sandboxes.find(sandbox);
    if (it == m_sandboxes.end())
        return;
    for (;;) {
        sockaddr_in from{};
        socklen_t fromLength = sizeof from;
        const int fd = ::accept4(it->tcp, reinterpret_cast<sockaddr *>(&from), &fromLength, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (ntohl(from.sin_addr.s_addr) != it->net.guestIp || it->tcpConnections >= m_limits.maxTcpConnections) {
            ::close(fd);
            continue;
        }
        ++it->tcpConnections;
        m_tcpClients.insert(fd, TcpClient{sandbox, {}, Clock::now()});
        m_loop.add(fd, EPOLLIN | EPOLLRDHUP, [this, fd](uint32_t) { onTcpData(fd); });
    }
}

void DnsResolver::onTcpData(int fd)
{
    const auto client = m_tcpClients.find(fd);
    if (client == m_tcpClients.end())
        return;
    const auto sandbox = m_sandboxes.find(client->sandbox);
    if (sandbox == m_sandboxes.end()) {
        closeTcp(fd);
        return;
    }
    char buffer[4096];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n <= 0) {
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            closeTcp(fd);
        return;
    }
    client->lastActive = Clock::now();
    client->buffer.append(buffer, int(n));
    // Each message is prefixed by its 16-bit length (RFC 1035 4.2.2).
    while (client->buffer.size() >= 2) {
        const int length = (quint8(client->buffer.at(0)) << 8) | quint8(client->buffer.at(1));
        if (client->buffer.size() < 2 + length)
            break;
        const QByteArray message = client->buffer.mid(2, length);
        client->buffer.remove(0, 2 + length);
        if (!admit(*sandbox))
            continue;
        const QByteArray reply = answer(*sandbox, message, QStringLiteral("tcp"));
        if (reply.isEmpty())
            continue;
        QByteArray framed;
        framed.append(char(reply.size() >> 8)).append(char(reply.size() & 0xff)).append(reply);
        if (::send(fd, framed.constData(), size_t(framed.size()), MSG_DONTWAIT | MSG_NOSIGNAL) != framed.size()) {
            closeTcp(fd); // a client that does not read its answers loses its connection
            return;
        }
    }
}

void DnsResolver::closeTcp(int fd)
{
    const auto client = m_tcpClients.find(fd);
    if (client == m_tcpClients.end())
        return;
    const auto sandbox = m_sandboxes.find(client->sandbox);
    if (sandbox != m_sandboxes.end())
        --sandbox->tcpConnections;
    m_tcpClients.erase(client);
    m_loop.remove(fd);
    ::close(fd);
}

void DnsResolver::tick()
{
    const auto now = Clock::now();
    QList<int> idle;
    for (auto c = m_tcpClients.cbegin(); c != m_tcpClients.cend(); ++c)
        if (now - c->lastActive > std::chrono::milliseconds(m_limits.tcpIdleMs))
            idle.append(c.key());
    for (int fd : idle)
        closeTcp(fd);
    for (Sandbox &s : m_sandboxes) {
        if (s.bucket.droppedSinceReport > 0) {
            record(s, QString(), QString(), Decision::Denied,
                   QStringLiteral("%1 DNS queries dropped: over the limit of %2 per second")
                       .arg(s.bucket.droppedSinceReport).arg(m_limits.queriesPerSecond));
            s.bucket.droppedSinceReport = 0;
        }
    }
}

} // namespace airlock
