#include "tlsrecords.h"

namespace tlstest {

namespace {

QByteArray be16(int v)
{
    QByteArray out;
    out.append(char((v >> 8) & 0xff));
    out.append(char(v & 0xff));
    return out;
}

QByteArray handshake(quint8 type, const QByteArray &body)
{
    const int n = int(body.size());
    return char(type) + QByteArray(1, char(n >> 16)) + be16(n & 0xffff) + body;
}

} // namespace

QByteArray record(quint8 type, const QByteArray &payload)
{
    return char(type) + QByteArray::fromHex("0303") + be16(int(payload.size())) + payload;
}

QByteArray clientHello(const QByteArray &sni, const QList<QPair<quint16, QByteArray>> &extensions)
{
    QByteArray ext;
    if (!sni.isEmpty()) {
        const QByteArray entry = char(0) + be16(int(sni.size())) + sni;
        const QByteArray list = be16(int(entry.size())) + entry;
        ext += be16(0) + be16(int(list.size())) + list;
    }
    ext += be16(0x002b) + be16(3) + QByteArray::fromHex("020304"); // supported_versions: TLS 1.3
    for (const auto &[type, body] : extensions)
        ext += be16(type) + be16(int(body.size())) + body;
    QByteArray body = be16(0x0303) + QByteArray(32, 'r') + char(0) + be16(2) + be16(0x1301) + char(1) + char(0);
    body += be16(int(ext.size())) + ext;
    return record(22, handshake(1, body));
}

QByteArray serverHello(bool retry)
{
    const QByteArray random = retry ? QByteArray::fromHex("cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c")
                                    : QByteArray(32, 's');
    const QByteArray ext = be16(0x002b) + be16(2) + be16(0x0304);
    const QByteArray body = be16(0x0303) + random + char(0) + be16(0x1301) + char(0) + be16(int(ext.size())) + ext;
    return record(22, handshake(2, body));
}

QByteArray printfEscaped(const QByteArray &bytes)
{
    QByteArray out;
    for (char c : bytes)
        out += '\\' + QByteArray::number(quint8(c), 8).rightJustified(3, '0');
    return out;
}

} // namespace tlstest
