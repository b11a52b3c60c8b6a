#pragma once
// Reads the packets the airlock table dropped (nftables `log group`, via nfnetlink_log) so
// each becomes a denied attempt in the event log: spoofed sources, IPv6, ICMP, other UDP,
// the host's own ports. Runs on the given loop's thread.
#include "core/result.h"

#include <QString>
#include <functional>

struct nflog_handle;
struct nflog_g_handle;
struct nflog_data;
struct nfgenmsg;

namespace airlock {

class EpollLoop;

struct DroppedPacket {
    QString bridge;   // from the log prefix "alk:<kind>:<bridge>"
    QString kind;     // spoof, ipv6, ipopt, icmp, udp, other, hostport, forward
    QString proto;    // "udp", "icmp", "ipv6", "tcp", ...
    QString src;
    QString dst;
    int dport = 0;
};

class DroppedPacketLog {
public:
    using Listener = std::function<void(const DroppedPacket &)>;

    DroppedPacketLog() = default;
    ~DroppedPacketLog();
    DroppedPacketLog(const DroppedPacketLog &) = delete;
    DroppedPacketLog &operator=(const DroppedPacketLog &) = delete;

    // Binds nflog group `group` and reads it on `loop` (call from the loop's thread).
    Status start(EpollLoop &loop, quint16 group, Listener listener);
    void stop();

    // Parses one logged packet (IPv4, IPv6 or ARP header first).
    static DroppedPacket describe(const QString &prefix, const unsigned char *payload, int length);

private:
    static int onPacket(nflog_g_handle *gh, ::nfgenmsg *msg, nflog_data *data, void *self);
    EpollLoop *m_loop = nullptr;
    nflog_handle *m_handle = nullptr;
    nflog_g_handle *m_group = nullptr;
    int m_fd = -1;
    Listener m_listener;
};

} // namespace airlock
