#include "droppedpacketlog.h"
#include "core/logging.h"
#include "epollloop.h"

#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

extern "C" {
#include <libnetfilter_log/libnetfilter_log.h>
}

namespace airlock {

DroppedPacketLog::~DroppedPacketLog() { stop(); }

Status DroppedPacketLog::start(EpollLoop &loop, quint16 group, Listener listener)
{
    const QString what = QStringLiteral("cannot read dropped packets (nflog group %1)").arg(group);
    m_listener = std::move(listener);
    m_handle = nflog_open();
    if (!m_handle)
        return Error{what, QStringLiteral("nfnetlink_log is unavailable (%1); airlockd needs root or CAP_NET_ADMIN")
                               .arg(QString::fromLocal8Bit(strerror(errno)))};
    nflog_unbind_pf(m_handle, AF_INET); // harmless on modern kernels; required on old ones
    nflog_bind_pf(m_handle, AF_INET);
    nflog_bind_pf(m_handle, AF_INET6);
    m_group = nflog_bind_group(m_handle, group);
    if (!m_group) {
        stop();
        return Error{what, QStringLiteral("the group is taken by another program (%1)").arg(QString::fromLocal8Bit(strerror(errno)))};
    }
    nflog_set_mode(m_group, NFULNL_COPY_PACKET, 128); // headers are enough
    nflog_set_timeout(m_group, 0);
    nflog_callback_register(m_group, &DroppedPacketLog::onPacket, this);
    m_fd = nflog_fd(m_handle);
    m_loop = &loop;
    loop.add(m_fd, EPOLLIN, [this](uint32_t) {
        char buffer[65536];
        for (;;) {
            const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, MSG_DONTWAIT);
            if (n <= 0) {
                if (n < 0 && errno == ENOBUFS) {
                    qCWarning(lcBroker) << "dropped-packet log overran; some drops were not recorded";
                    continue;
                }
                return;
            }
            nflog_handle_packet(m_handle, buffer, int(n));
        }
    });
    return ok();
}

void DroppedPacketLog::stop()
{
    if (m_loop && m_fd >= 0)
        m_loop->remove(m_fd);
    m_loop = nullptr;
    if (m_group)
        nflog_unbind_group(m_group);
    m_group = nullptr;
    if (m_handle)
        nflog_close(m_handle);
    m_handle = nullptr;
    m_fd = -1;
}

int DroppedPacketLog::onPacket(nflog_g_handle *, nfgenmsg *, nflog_data *data, void *self)
{
    auto *log = static_cast<DroppedPacketLog *>(self);
    char *payload = nullptr;
    const int length = nflog_get_payload(data, &payload);
    const char *prefix = nflog_get_prefix(data);
    const DroppedPacket p = describe(QString::fromLatin1(prefix ? prefix : ""),
                                     reinterpret_cast<const unsigned char *>(payload), length);
    if (log->m_listener && !p.bridge.isEmpty())
        log->m_listener(p);
    return 0;
}

DroppedPacket DroppedPacketLog::describe(const QString &prefix, const unsigned char *payload, int length)
{
    DroppedPacket p;
    const QStringList parts = prefix.split(QLatin1Char(':'));
    if (parts.size() != 3 || parts.at(0) != QLatin1String("alk"))
        return p;
    p.kind = parts.at(1);
    p.bridge = parts.at(2);
    if (!payload || length < 1)
        return p;
    const int version = payload[0] >> 4;
    auto portAt = [&](int offset) { return offset + 4 <= length ? (payload[offset + 2] << 8) | payload[offset + 3] : 0; };
    if (version == 4 && length >= 20) {
        char buf[INET_ADDRSTRLEN];
        p.src = QString::fromLatin1(inet_ntop(AF_INET, payload + 12, buf, sizeof buf));
        p.dst = QString::fromLatin1(inet_ntop(AF_INET, payload + 16, buf, sizeof buf));
        const int ihl = (payload[0] & 0x0f) * 4;
        switch (payload[9]) {
        case IPPROTO_TCP: p.proto = QStringLiteral("tcp"); p.dport = portAt(ihl); break;
        case IPPROTO_UDP: p.proto = QStringLiteral("udp"); p.dport = portAt(ihl); break;
        case IPPROTO_ICMP: p.proto = QStringLiteral("icmp"); break;
        default: p.proto = QStringLiteral("ip/%1").arg(payload[9]); break;
        }
    } else if (length >= 28 && payload[2] == 0x08 && payload[3] == 0x00 && payload[4] == 6 && payload[5] == 4) {
        // ARP for IPv4 over Ethernet: sender address at 14, target at 24.
        char buf[INET_ADDRSTRLEN];
        p.src = QString::fromLatin1(inet_ntop(AF_INET, payload + 14, buf, sizeof buf));
        p.dst = QString::fromLatin1(inet_ntop(AF_INET, payload + 24, buf, sizeof buf));
        p.proto = QStringLiteral("arp");
    } else if (version == 6 && length >= 40) {
        char buf[INET6_ADDRSTRLEN];
        p.src = QString::fromLatin1(inet_ntop(AF_INET6, payload + 8, buf, sizeof buf));
        p.dst = QString::fromLatin1(inet_ntop(AF_INET6, payload + 24, buf, sizeof buf));
        p.proto = QStringLiteral("ipv6");
        if (payload[6] == IPPROTO_TCP || payload[6] == IPPROTO_UDP)
            p.dport = portAt(40);
    }
    return p;
}

} // namespace airlock
