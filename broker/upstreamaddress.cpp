#include "upstreamaddress.h"
#include "hostpattern.h"
#include "syntheticnames.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

namespace airlock {

namespace {

struct Range {
    const char *net;
    int prefix;
    const char *what;
};

// Never the public internet: the host, its LAN, its provider's and cloud's internal services.
const Range kSpecial[] = {
    {"0.0.0.0", 8, "\"this host\" (0/8)"},
    {"10.0.0.0", 8, "a private (RFC 1918) address"},
    {"100.64.0.0", 10, "a carrier-grade NAT (100.64/10) address"},
    {"127.0.0.0", 8, "a loopback address"},
    {"169.254.0.0", 16, "a link-local address (the cloud metadata service lives at 169.254.169.254)"},
    {"172.16.0.0", 12, "a private (RFC 1918) address"},
    {"192.168.0.0", 16, "a private (RFC 1918) address"},
    {"198.18.0.0", 15, "a synthetic address of the broker's own pool"},
    {"224.0.0.0", 4, "a multicast address"},
    {"240.0.0.0", 4, "a reserved or broadcast address"},
    {"::", 128, "the unspecified address"},
    {"::1", 128, "a loopback address"},
    {"fe80::", 10, "a link-local address"},
    {"fc00::", 7, "a unique-local (private) address"},
    {"ff00::", 8, "a multicast address"},
};

QHostAddress unmapped(const QHostAddress &ip)
{
    bool v4 = false;
    const quint32 a = ip.toIPv4Address(&v4);
    return v4 ? QHostAddress(a) : ip;
}

// All digits, or 0x and hex digits: how inet_aton writes a number.
bool numericLabel(QStringView label)
{
    const bool hex = label.startsWith(u"0x");
    const QStringView digits = hex ? label.mid(2) : label;
    if (digits.isEmpty() && !hex)
        return false;
    for (QChar c : digits) {
        const bool ok = (c >= u'0' && c <= u'9') || (hex && c >= u'a' && c <= u'f');
        if (!ok)
            return false;
    }
    return true;
}

} // namespace

QString refusedName(const QString &input)
{
    const QString name = normalizeHost(input);
    if (name.isEmpty())
        return QStringLiteral("the name is empty");
    if (!QHostAddress(name).isNull())
        return QStringLiteral("%1 is an address, not a name").arg(name);
    in_addr parsed{};
    const QByteArray ascii = name.toLatin1();
    if (::inet_aton(ascii.constData(), &parsed) != 0)
        return QStringLiteral("%1 is an all-numeric name: resolvers read it as the address %2 without asking any DNS")
            .arg(name, QHostAddress(ntohl(parsed.s_addr)).toString());
    const QStringView last = QStringView(name).mid(name.lastIndexOf(u'.') + 1);
    if (numericLabel(last))
        return QStringLiteral("%1 ends in a numeric label: such names are read as addresses, not looked up").arg(name);
    if (!name.contains(u'.'))
        return QStringLiteral("%1 is a single-label name (a local or LAN host), never a public one").arg(name);
    return {};
}

bool UpstreamAddressCheck::neverDialled(const QHostAddress &input)
{
    const QHostAddress ip = unmapped(input);
    if (ip.protocol() != QAbstractSocket::IPv4Protocol)
        return ip.isInSubnet(QHostAddress(QStringLiteral("ff00::")), 8) || ip == QHostAddress(QStringLiteral("::"));
    const quint32 a = ip.toIPv4Address();
    return (a >> 24) == 0 || (a >> 29) == 7 || SyntheticNames::inPool(a);
}

QString UpstreamAddressCheck::why(const QHostAddress &input)
{
    const QHostAddress ip = unmapped(input);
    if (ip.isNull())
        return QStringLiteral("no address");
    for (const Range &r : kSpecial)
        if (ip.isInSubnet(QHostAddress(QLatin1String(r.net)), r.prefix))
            return QStringLiteral("%1 is %2").arg(ip.toString(), QLatin1String(r.what));
    if (isOwnAddress(ip))
        return QStringLiteral("%1 is an address of this host").arg(ip.toString());
    return {};
}

bool UpstreamAddressCheck::isOwnAddress(const QHostAddress &ip)
{
    std::lock_guard lock(m_mutex);
    const auto now = std::chrono::steady_clock::now();
    if (!m_valid || now - m_read > std::chrono::seconds(1)) {
        ifaddrs *list = nullptr;
        if (::getifaddrs(&list) != 0)
            return true; // cannot tell: refuse rather than risk dialling the host itself
        m_own.clear();
        for (const ifaddrs *i = list; i; i = i->ifa_next) {
            for (const sockaddr *sa : {i->ifa_addr, (i->ifa_flags & IFF_BROADCAST) ? i->ifa_broadaddr : nullptr}) {
                if (sa && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6))
                    m_own.append(unmapped(QHostAddress(sa)));
            }
        }
        ::freeifaddrs(list);
        m_read = now;
        m_valid = true;
    }
    return m_own.contains(ip);
}

} // namespace airlock
