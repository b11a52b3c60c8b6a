#include "tlshandshakewatch.h"

namespace airlock {

namespace {

constexpr quint8 kChangeCipherSpec = 20;
constexpr quint8 kAlert = 21;
constexpr quint8 kHandshake = 22;
constexpr quint8 kApplicationData = 23;
constexpr quint8 kServerHello = 2;
constexpr int kRecordHeader = 5;
constexpr int kMaxRecord = (1 << 14) + 2048; // RFC 5246 6.2.3: TLSCiphertext.length
constexpr int kServerHelloStart = 4 + 2 + 32;  // message header, legacy_version, random
constexpr quint16 kEsni = 0xffce;
// RFC 8446 4.1.3: a HelloRetryRequest is a ServerHello with this random.
constexpr char kRetryRandom[] = "\xcf\x21\xad\x74\xe5\x9a\x61\x11\xbe\x1d\x8c\x02\x1e\x65\xb8\x91"
                                "\xc2\xa2\x11\x16\x7a\xbb\x8c\x5e\x07\x9e\x09\xe2\xc8\xa8\x33\x9c";

int recordLength(QByteArrayView header) { return quint8(header.at(3)) << 8 | quint8(header.at(4)); }

} // namespace

TlsHandshakeWatch::TlsHandshakeWatch(QString host) : m_host(std::move(host)) {}

bool TlsHandshakeWatch::refuse(const QString &why)
{
    if (m_error.isEmpty())
        m_error = why;
    return false;
}

void TlsHandshakeWatch::settleIfIdle()
{
    if (m_serverHello && m_skip == 0 && m_pending.isEmpty())
        m_settled = true;
}

bool TlsHandshakeWatch::checkHello(const tls::ClientHello &hello)
{
    ++m_hellos;
    if (m_hellos == 1)
        m_first = hello;
    const QString which = m_hellos == 1 ? QString() : QStringLiteral("the ClientHello sent after a HelloRetryRequest: ");
    if (hello.encryptedName)
        return refuse(which + QStringLiteral("the ClientHello carries %1 (extension 0x%2), so its SNI %3 need not be the server "
                                             "it reaches and the broker cannot check it; turn ECH off in the client")
                                  .arg(hello.encryptedName == kEsni ? QStringLiteral("ESNI") : QStringLiteral("Encrypted Client Hello"))
                                  .arg(hello.encryptedName, 4, 16, QLatin1Char('0'))
                                  .arg(hello.hasSni ? hello.sni : QStringLiteral("(none)")));
    if (!hello.hasSni) {
        if (m_unverified.isEmpty())
            m_unverified = which + QStringLiteral("a TLS ClientHello without SNI, so the broker cannot check which server it is for");
        return true;
    }
    if (hello.sni != m_host) // the parser gives it lower-case, without a trailing dot
        return refuse(which + QStringLiteral("TLS SNI %1 differs from the name resolved, %2 (domain fronting)").arg(hello.sni, m_host));
    return true;
}

bool TlsHandshakeWatch::client(QByteArrayView in)
{
    if (!m_error.isEmpty())
        return false;
    QByteArray joined; // an incomplete record kept from the last call, then these bytes
    QByteArrayView data = in;
    if (!m_pending.isEmpty()) {
        joined = m_pending + in.toByteArray();
        data = joined;
        m_pending.clear();
    }
    qsizetype pos = 0;
    while (pos < data.size()) {
        if (m_skip == 0 && m_serverHello)
            m_settled = true; // at a record boundary after the real ServerHello
        if (m_settled) {
            m_cleared += data.size() - pos;
            return true;
        }
        if (m_skip > 0) {
            const qint64 take = std::min<qint64>(m_skip, data.size() - pos);
            m_skip -= take;
            m_cleared += take;
            pos += take;
            continue;
        }
        const QByteArrayView record = data.sliced(pos);
        if (quint8(record.at(0)) == kHandshake) {
            // Before the handshake settles, a handshake record from the client is a ClientHello.
            const tls::ClientHello hello = tls::parseClientHello(std::span<const char>(record.data(), size_t(record.size())));
            if (hello.status == tls::ClientHello::Status::NeedMore) {
                m_pending = record.toByteArray();
                return true;
            }
            if (hello.status != tls::ClientHello::Status::Complete)
                return refuse(QStringLiteral("malformed TLS ClientHello: %1").arg(hello.error.isEmpty() ? QStringLiteral("not TLS") : hello.error));
            if (!checkHello(hello))
                return false;
            m_cleared += hello.consumed;
            pos += hello.consumed;
            continue;
        }
        if (record.size() < kRecordHeader) {
            m_pending = record.toByteArray();
            return true;
        }
        const quint8 type = quint8(record.at(0));
        if (quint8(record.at(1)) != 3 || recordLength(record) > kMaxRecord)
            return refuse(QStringLiteral("the guest's TLS stream holds a malformed record"));
        if (type != kChangeCipherSpec && type != kAlert && type != kApplicationData)
            return refuse(QStringLiteral("a TLS record of type %1 from the guest before the handshake settled").arg(type));
        m_skip = recordLength(record);
        m_cleared += kRecordHeader;
        pos += kRecordHeader;
    }
    if (m_skip == 0 && m_serverHello)
        m_settled = true;
    return true;
}

bool TlsHandshakeWatch::server(QByteArrayView in)
{
    while (!in.isEmpty() && wantsServer()) {
        if (m_serverLeft == 0) {
            const qsizetype take = std::min<qsizetype>(kRecordHeader - m_serverHeader.size(), in.size());
            m_serverHeader.append(in.first(take));
            in = in.sliced(take);
            if (m_serverHeader.size() < kRecordHeader)
                return true;
            m_serverType = quint8(m_serverHeader.at(0));
            m_serverLeft = recordLength(m_serverHeader);
            const bool tls = quint8(m_serverHeader.at(1)) == 3 && m_serverLeft > 0 && m_serverLeft <= kMaxRecord;
            m_serverHeader.clear();
            if (!tls)
                return refuse(QStringLiteral("the upstream did not answer the ClientHello in TLS"));
            if (m_serverType != kHandshake && m_serverType != kChangeCipherSpec && m_serverType != kAlert)
                return refuse(QStringLiteral("the upstream sent a TLS record of type %1 before its ServerHello").arg(m_serverType));
            continue;
        }
        const qsizetype take = qsizetype(std::min<qint64>(m_serverLeft, in.size()));
        m_serverLeft -= take;
        if (m_serverType == kHandshake && !serverRecordBody(in.first(take)))
            return false;
        in = in.sliced(take);
    }
    settleIfIdle();
    return m_error.isEmpty();
}

// The upstream's handshake messages: the first must be a ServerHello; a HelloRetryRequest
// means the client sends another ClientHello, which client() checks like the first.
bool TlsHandshakeWatch::serverRecordBody(QByteArrayView body)
{
    while (!body.isEmpty() && !m_serverHello) {
        if (m_messageLeft > 0) {
            const qsizetype take = qsizetype(std::min<qint64>(m_messageLeft, body.size()));
            m_messageLeft -= take;
            body = body.sliced(take);
            if (m_messageLeft == 0)
                m_message.clear();
            continue;
        }
        const qsizetype need = m_message.size() < 4 ? 4 : kServerHelloStart;
        const qsizetype take = std::min<qsizetype>(need - m_message.size(), body.size());
        m_message.append(body.first(take));
        body = body.sliced(take);
        if (m_message.size() < need)
            return true;
        const qint64 length = quint8(m_message.at(1)) << 16 | quint8(m_message.at(2)) << 8 | quint8(m_message.at(3));
        if (quint8(m_message.at(0)) != kServerHello || length < kServerHelloStart - 4)
            return refuse(QStringLiteral("the upstream's first handshake message is not a ServerHello"));
        if (m_message.size() < kServerHelloStart)
            continue;
        if (QByteArrayView(m_message).sliced(6, 32) == QByteArrayView(kRetryRandom, 32))
            ++m_retries;
        else
            m_serverHello = true;
        m_messageLeft = length - (kServerHelloStart - 4);
        if (m_messageLeft == 0)
            m_message.clear();
    }
    return true;
}

} // namespace airlock
