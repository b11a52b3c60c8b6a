#include "core/sandboxnet.h"

#include <QRegularExpression>
#include <arpa/inet.h>

namespace airlock {

Result<SandboxNet> sandboxNetFromText(const QString &name, const QString &bridge, const QString &gateway,
                                      const QString &guestIp, const QString &mac, qint64 sandboxId)
{
    SandboxNet net;
    net.name = name;
    net.sandboxId = sandboxId;
    net.bridge = bridge;
    net.mac = mac.toLower();
    const QString what = QStringLiteral("cannot protect sandbox %1's network").arg(name);
    if (!isValidInterfaceName(bridge))
        return Error{what, QStringLiteral("\"%1\" is not a bridge name (1-15 of A-Z a-z 0-9 _ . -)").arg(bridge)};
    if (!parseIpv4(gateway, &net.gatewayIp) || !parseIpv4(guestIp, &net.guestIp))
        return Error{what, QStringLiteral("gateway \"%1\" and guest \"%2\" must be IPv4 addresses").arg(gateway, guestIp)};
    if (!isValidMac(mac))
        return Error{what, QStringLiteral("\"%1\" is not a MAC address").arg(mac)};
    return net;
}

QString ipv4ToString(quint32 hostOrder)
{
    return QStringLiteral("%1.%2.%3.%4")
        .arg(hostOrder >> 24).arg((hostOrder >> 16) & 0xff).arg((hostOrder >> 8) & 0xff).arg(hostOrder & 0xff);
}

bool parseIpv4(const QString &text, quint32 *hostOrder)
{
    in_addr a{};
    const QByteArray latin = text.toLatin1();
    if (text.isEmpty() || ::inet_pton(AF_INET, latin.constData(), &a) != 1)
        return false;
    *hostOrder = ntohl(a.s_addr);
    return true;
}

bool isValidMac(const QString &mac)
{
    static const QRegularExpression re(QStringLiteral("^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$"));
    return re.match(mac).hasMatch();
}

bool isValidInterfaceName(const QString &name)
{
    // IFNAMSIZ is 16 with the NUL; nft quoting must never be broken by a name.
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9_.-]{1,15}$"));
    return re.match(name).hasMatch();
}

} // namespace airlock
