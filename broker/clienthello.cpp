#include "clienthello.h"

#include <QSet>
#include <optional>

namespace airlock::tls {

namespace {

constexpr quint8 kHandshakeRecord = 0x16;
constexpr quint8 kClientHelloType = 1;
constexpr int kRecordHeader = 5;
constexpr int kMaxRecordPayload = 1 << 14; // RFC 8446 5.1: TLSPlaintext.length <= 2^14
constexpr quint16 kExtServerName = 0;
constexpr quint16 kExtAlpn = 16;
constexpr quint16 kExtEch = 0xfe0d;           // encrypted_client_hello (the TLS ECH specification)
constexpr quint16 kExtEchFirstDraft = 0xfe08; // the code points of its earlier drafts
constexpr quint16 kExtEsni = 0xffce;          // encrypted_server_name (the ESNI draft)

// A bounds-checked cursor over the hello body: every read fails instead of overrunning.
class Reader {
public:
    Reader(const quint8 *data, size_t size) : m_data(data), m_size(size) {}
    bool u8(quint8 *v)
    {
        if (m_size - m_pos < 1)
            return false;
        *v = m_data[m_pos++];
        return true;
    }
    bool u16(quint16 *v)
    {
        if (m_size - m_pos < 2)
            return false;
        *v = quint16(m_data[m_pos] << 8 | m_data[m_pos + 1]);
        m_pos += 2;
        return true;
    }
    // A sub-reader over the next `n` bytes.
    std::optional<Reader> take(size_t n)
    {
        if (m_size - m_pos < n)
            return std::nullopt;
        Reader r(m_data + m_pos, n);
        m_pos += n;
        return r;
    }
    bool skip(size_t n) { return take(n).has_value(); }
    bool atEnd() const { return m_pos == m_size; }
    size_t left() const { return m_size - m_pos; }
    const quint8 *here() const { return m_data + m_pos; }

private:
    const quint8 *m_data;
    size_t m_size;
    size_t m_pos = 0;
};

ClientHello invalid(QString why)
{
    ClientHello h;
    h.status = ClientHello::Status::Invalid;
    h.error = std::move(why);
    return h;
}

bool parseServerName(Reader ext, ClientHello &h, QString *why)
{
    quint16 listLen = 0;
    if (!ext.u16(&listLen) || listLen != ext.left() || listLen == 0) {
        *why = QStringLiteral("malformed server_name extension");
        return false;
    }
    while (!ext.atEnd()) {
        quint8 type = 0;
        quint16 len = 0;
        if (!ext.u8(&type) || !ext.u16(&len) || len > ext.left()) {
            *why = QStringLiteral("malformed server_name entry");
            return false;
        }
        const quint8 *name = ext.here();
        ext.skip(len);
        if (type != 0)
            continue; // unknown name types are skipped (RFC 6066 3)
        if (h.hasSni) {
            *why = QStringLiteral("more than one host_name in server_name");
            return false;
        }
        if (len == 0 || len > 255) {
            *why = QStringLiteral("server_name host_name of length %1").arg(len);
            return false;
        }
        QByteArray host(reinterpret_cast<const char *>(name), len);
        for (char c : host) {
            const auto u = quint8(c);
            if (u <= 0x20 || u >= 0x7f) {
                *why = QStringLiteral("server_name holds byte 0x%1, which no host name has").arg(u, 2, 16, QLatin1Char('0'));
                return false;
            }
        }
        if (host.endsWith('.'))
            host.chop(1);
        h.sni = QString::fromLatin1(host).toLower();
        h.hasSni = true;
    }
    return true;
}

bool parseAlpn(Reader ext, ClientHello &h, QString *why)
{
    quint16 listLen = 0;
    if (!ext.u16(&listLen) || listLen != ext.left() || listLen < 2) {
        *why = QStringLiteral("malformed ALPN extension");
        return false;
    }
    while (!ext.atEnd()) {
        quint8 len = 0;
        if (!ext.u8(&len) || len == 0 || len > ext.left()) {
            *why = QStringLiteral("malformed ALPN protocol name");
            return false;
        }
        h.alpn.append(QString::fromLatin1(reinterpret_cast<const char *>(ext.here()), len));
        ext.skip(len);
    }
    return true;
}

ClientHello parseBody(const quint8 *body, size_t size)
{
    ClientHello h;
    Reader r(body, size);
    quint8 sidLen = 0, compLen = 0;
    quint16 suitesLen = 0;
    if (!r.u16(&h.legacyVersion) || !r.skip(32) || !r.u8(&sidLen) || sidLen > 32 || !r.skip(sidLen))
        return invalid(QStringLiteral("ClientHello cut off before its cipher suites"));
    if ((h.legacyVersion >> 8) != 3)
        return invalid(QStringLiteral("ClientHello version 0x%1 is not SSL 3 / TLS").arg(h.legacyVersion, 4, 16, QLatin1Char('0')));
    if (!r.u16(&suitesLen) || suitesLen < 2 || suitesLen % 2 || !r.skip(suitesLen))
        return invalid(QStringLiteral("malformed cipher suite list"));
    if (!r.u8(&compLen) || compLen < 1 || !r.skip(compLen))
        return invalid(QStringLiteral("malformed compression method list"));
    if (r.atEnd()) {
        h.status = ClientHello::Status::Complete; // no extensions (old clients): no SNI
        return h;
    }
    quint16 extLen = 0;
    if (!r.u16(&extLen) || extLen != r.left())
        return invalid(QStringLiteral("extension block length does not match the ClientHello"));
    QSet<quint16> seen;
    while (!r.atEnd()) {
        quint16 type = 0, len = 0;
        if (!r.u16(&type) || !r.u16(&len))
            return invalid(QStringLiteral("extension header cut off"));
        std::optional<Reader> ext = r.take(len);
        if (!ext)
            return invalid(QStringLiteral("extension %1 runs past the ClientHello").arg(type));
        if (seen.contains(type))
            return invalid(QStringLiteral("extension %1 appears twice").arg(type));
        seen.insert(type);
        QString why;
        if (type == kExtServerName && !parseServerName(*ext, h, &why))
            return invalid(why);
        if (type == kExtAlpn && !parseAlpn(*ext, h, &why))
            return invalid(why);
        if (type == kExtEsni || (type >= kExtEchFirstDraft && type <= kExtEch))
            h.encryptedName = type;
    }
    h.status = ClientHello::Status::Complete;
    return h;
}

} // namespace

ClientHello parseClientHello(std::span<const char> stream)
{
    const auto *bytes = reinterpret_cast<const quint8 *>(stream.data());
    const size_t size = std::min(stream.size(), size_t(kMaxPeek));
    ClientHello h;
    if (size >= 1 && bytes[0] != kHandshakeRecord) {
        h.status = ClientHello::Status::NotTls;
        return h;
    }
    if (size >= 2 && bytes[1] != 3) {
        h.status = ClientHello::Status::NotTls;
        return h;
    }

    // The handshake message, reassembled from the payloads of consecutive records.
    QByteArray hs;
    size_t pos = 0;
    qint64 hsTotal = -1; // 4 + handshake length, once known
    for (;;) {
        if (size - pos < size_t(kRecordHeader)) {
            h.status = ClientHello::Status::NeedMore;
            h.needed = int(pos + kRecordHeader - size);
            if (hsTotal > 0)
                h.needed += int(hsTotal - hs.size());
            break;
        }
        const quint8 *rec = bytes + pos;
        if (rec[0] != kHandshakeRecord)
            return invalid(QStringLiteral("the ClientHello is interrupted by a record of type %1").arg(rec[0]));
        if (rec[1] != 3)
            return invalid(QStringLiteral("record version %1.%2 is not TLS").arg(rec[1]).arg(rec[2]));
        const size_t len = size_t(rec[3] << 8 | rec[4]);
        if (len == 0)
            return invalid(QStringLiteral("empty handshake record"));
        if (len > size_t(kMaxRecordPayload))
            return invalid(QStringLiteral("record of %1 bytes exceeds the TLS maximum of 16384").arg(len));
        const size_t recordEnd = pos + kRecordHeader + len;
        if (recordEnd > size_t(kMaxPeek))
            return invalid(QStringLiteral("the ClientHello does not fit in %1 bytes").arg(kMaxPeek));
        const size_t available = std::min(recordEnd, size) - (pos + kRecordHeader);
        hs.append(reinterpret_cast<const char *>(rec + kRecordHeader), qsizetype(available));
        if (hsTotal < 0 && hs.size() >= 4) {
            const auto *p = reinterpret_cast<const quint8 *>(hs.constData());
            if (p[0] != kClientHelloType)
                return invalid(QStringLiteral("the first handshake message is type %1, not a ClientHello").arg(p[0]));
            hsTotal = 4 + qint64(p[1] << 16 | p[2] << 8 | p[3]);
            if (hsTotal > kMaxPeek)
                return invalid(QStringLiteral("the ClientHello declares %1 bytes, over the %2 byte limit")
                                   .arg(hsTotal).arg(kMaxPeek));
        }
        if (hsTotal >= 0 && hs.size() >= hsTotal) {
            // The hello must end exactly with its record (nothing else may share it), so a
            // complete hello is always followed by the record boundary, never by a guess.
            const qint64 usedOfRecord = hsTotal - (hs.size() - qint64(available));
            if (usedOfRecord != qint64(len))
                return invalid(QStringLiteral("extra handshake data after the ClientHello"));
            ClientHello done = parseBody(reinterpret_cast<const quint8 *>(hs.constData()) + 4, size_t(hsTotal - 4));
            done.consumed = int(recordEnd);
            return done;
        }
        if (recordEnd > size) {
            h.status = ClientHello::Status::NeedMore;
            h.needed = int(recordEnd - size);
            // Handshake bytes still missing once this record is in: they need another record.
            const qint64 beyond = hsTotal < 0 ? 0 : hsTotal - hs.size() - qint64(recordEnd - size);
            if (beyond > 0)
                h.needed += kRecordHeader + int(beyond);
            break;
        }
        pos = recordEnd;
    }
    if (stream.size() >= size_t(kMaxPeek) || size + size_t(h.needed) > size_t(kMaxPeek))
        return invalid(QStringLiteral("the ClientHello does not fit in %1 bytes").arg(kMaxPeek));
    return h;
}

} // namespace airlock::tls
