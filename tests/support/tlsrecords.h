#pragma once
// Hand-built TLS records for tests that play a hostile guest or a fake upstream: a
// ClientHello with any SNI and extensions (ECH, ESNI), and a ServerHello or HelloRetryRequest.
#include <QByteArray>
#include <QList>
#include <QPair>

namespace tlstest {

// A record of `type` (22 handshake, 20 change_cipher_spec, 23 application_data).
QByteArray record(quint8 type, const QByteArray &payload);
// A ClientHello in one record: server_name `sni` (none when empty), then `extensions`
// (type, body) verbatim.
QByteArray clientHello(const QByteArray &sni, const QList<QPair<quint16, QByteArray>> &extensions = {});
// A ServerHello in one record; a HelloRetryRequest (RFC 8446 4.1.3) when `retry`.
QByteArray serverHello(bool retry);
// printf(1) octal escapes of `bytes`, for a guest shell to send them.
QByteArray printfEscaped(const QByteArray &bytes);

} // namespace tlstest
