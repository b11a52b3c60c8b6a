#pragma once
// What the broker refuses to dial from the host on a guest's behalf, whatever name led there.
// The proxy connects from root on the host: a name that resolves to the host itself, its LAN
// or a cloud metadata service would otherwise put the guest inside. Two checks:
//
//   refusedName(name)       before any lookup: an all-numeric name (2130706433, 0x7f.1, 127.1,
//                           0177.0.0.1: inet_aton turns these into addresses without any network)
//                           and a single-label name (localhost, a LAN host) are never resolved.
//   UpstreamAddressCheck::why()  after resolving: loopback, link-local (169.254.169.254, the metadata
//                           service), RFC 1918, CGNAT 100.64/10, 0/8, multicast, broadcast and
//                           reserved space, the synthetic pool, and every address on any
//                           interface of the host (getifaddrs, re-read at most once a second).
//                           An explicit address rule (IP or CIDR allow) covering the address
//                           opens everything here but 0/8, 224/3 and the synthetic pool
//                           (TransparentProxy asks the policy).
#include <QHostAddress>
#include <QList>
#include <QString>
#include <chrono>
#include <mutex>

namespace airlock {

// Why `name` is refused before any lookup, or "" when it may be resolved.
QString refusedName(const QString &name);

class UpstreamAddressCheck {
public:
    // Why `ip` may not be dialled unless an address rule opens it; "" when it may.
    QString why(const QHostAddress &ip);
    // Ranges no rule opens: "this host" 0/8, multicast and reserved 224/3, the synthetic pool.
    static bool neverDialled(const QHostAddress &ip);

private:
    bool isOwnAddress(const QHostAddress &ip);
    std::mutex m_mutex;
    QList<QHostAddress> m_own;
    std::chrono::steady_clock::time_point m_read;
    bool m_valid = false;
};

} // namespace airlock
