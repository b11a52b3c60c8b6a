#include "sandboxnet.h"

#include <QRegularExpression>
#include <arpa/inet.h>

namespace airlock {

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
