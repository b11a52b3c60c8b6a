#include "dnsmessage.h"

#include <QStringList>

namespace airlock::dns {

namespace {

constexpr quint16 kQr = 0x8000;
constexpr quint16 kOpcodeMask = 0x7800;
constexpr quint16 kTc = 0x0200;
constexpr quint16 kRd = 0x0100;
constexpr quint16 kRa = 0x0080;

quint8 byteAt(std::span<const char> m, size_t i) { return quint8(m[i]); }
quint16 u16At(std::span<const char> m, size_t i) { return quint16(byteAt(m, i) << 8 | byteAt(m, i + 1)); }

void putU16(QByteArray &out, quint16 v)
{
    out.append(char(v >> 8));
    out.append(char(v & 0xff));
}

void putU32(QByteArray &out, quint32 v)
{
    putU16(out, quint16(v >> 16));
    putU16(out, quint16(v & 0xffff));
}

// Bytes a name label may carry and still show up readably in the event log. DNS itself allows
// any octet, but nothing a sandbox legitimately resolves needs more than LDH plus '_'.
bool printableLabelByte(quint8 c) { return c > 0x20 && c < 0x7f && c != '.'; }

QByteArray header(quint16 id, quint16 flags, quint16 qd, quint16 an)
{
    QByteArray out;
    out.reserve(64);
    putU16(out, id);
    putU16(out, flags);
    putU16(out, qd);
    putU16(out, an);
    putU16(out, 0);
    putU16(out, 0);
    return out;
}

quint16 responseFlags(quint16 queryFlags, Rcode rcode) { return quint16(kQr | (queryFlags & kRd) | kRa | rcode); }

QByteArray withQuestion(const Query &q, Rcode rcode, quint16 answers)
{
    QByteArray out = header(q.id, responseFlags(q.flags, rcode), 1, answers);
    out += q.wireName;
    putU16(out, q.qtype);
    putU16(out, q.qclass);
    return out;
}

} // namespace

bool readName(std::span<const char> m, int offset, QString *name, QByteArray *wire, int *next, QString *error)
{
    auto fail = [error](QString why) {
        if (error)
            *error = std::move(why);
        return false;
    };
    if (offset < 0 || size_t(offset) >= m.size())
        return fail(QStringLiteral("name starts past the end of the message"));
    QByteArray text;
    QByteArray raw;
    size_t pos = size_t(offset);
    int pointers = 0;
    int end = -1;              // offset after the name where it started (before the first pointer)
    size_t lowest = pos;       // a pointer must go strictly before everything read so far
    for (;;) {
        if (pos >= m.size())
            return fail(QStringLiteral("name runs past the end of the message"));
        const quint8 len = byteAt(m, pos);
        if ((len & 0xc0) == 0xc0) {
            if (pos + 1 >= m.size())
                return fail(QStringLiteral("compression pointer cut off"));
            const size_t target = size_t(u16At(m, pos) & 0x3fff);
            if (end < 0)
                end = int(pos + 2);
            if (++pointers > kMaxPointers)
                return fail(QStringLiteral("more than %1 compression pointers").arg(kMaxPointers));
            // Only backwards, and before any byte of this name already read: no loops possible.
            if (target >= lowest)
                return fail(QStringLiteral("compression pointer does not point backwards"));
            if (target < size_t(kHeaderSize))
                return fail(QStringLiteral("compression pointer into the header"));
            pos = target;
            lowest = target;
            continue;
        }
        if ((len & 0xc0) != 0)
            return fail(QStringLiteral("label length byte 0x%1: longer than 63 or a reserved label type")
                            .arg(len, 2, 16, QLatin1Char('0')));
        if (len == 0) {
            raw.append('\0');
            if (raw.size() > kMaxName)
                return fail(QStringLiteral("name longer than %1 octets").arg(kMaxName));
            if (end < 0)
                end = int(pos + 1);
            break;
        }
        if (pos + 1 + len > m.size())
            return fail(QStringLiteral("label runs past the end of the message"));
        if (raw.size() + 1 + len + 1 > kMaxName)
            return fail(QStringLiteral("name longer than %1 octets").arg(kMaxName));
        raw.append(char(len));
        if (!text.isEmpty())
            text.append('.');
        for (size_t i = pos + 1; i < pos + 1 + len; ++i) {
            const quint8 c = byteAt(m, i);
            if (!printableLabelByte(c))
                return fail(QStringLiteral("label holds byte 0x%1, which no host name has").arg(c, 2, 16, QLatin1Char('0')));
            raw.append(char(c));
            text.append(char(c));
        }
        pos += 1 + len;
    }
    if (name)
        *name = QString::fromLatin1(text).toLower();
    if (wire)
        *wire = raw;
    if (next)
        *next = end;
    return true;
}

ParseResult parseQuery(std::span<const char> m)
{
    ParseResult r;
    auto refuse = [&r](QString why) {
        r.error = std::move(why);
        return r;
    };
    if (m.size() < size_t(kHeaderSize))
        return refuse(QStringLiteral("message shorter than a DNS header (%1 bytes)").arg(m.size()));
    if (m.size() > size_t(kMaxMessage))
        return refuse(QStringLiteral("message longer than %1 bytes").arg(kMaxMessage));
    r.id = u16At(m, 0);
    r.flags = u16At(m, 2);
    r.idValid = true;
    const quint16 qd = u16At(m, 4), an = u16At(m, 6), ns = u16At(m, 8), ar = u16At(m, 10);
    if (r.flags & kQr)
        return refuse(QStringLiteral("a response, not a query"));
    if (r.flags & kOpcodeMask)
        return refuse(QStringLiteral("opcode %1 is not a standard query").arg((r.flags & kOpcodeMask) >> 11));
    if (r.flags & kTc)
        return refuse(QStringLiteral("truncated query"));
    if (qd != 1)
        return refuse(QStringLiteral("%1 questions; exactly one is supported").arg(qd));
    if (an || ns)
        return refuse(QStringLiteral("a query carrying answer or authority records"));
    if (ar > 1)
        return refuse(QStringLiteral("%1 additional records; at most one (EDNS) is supported").arg(ar));

    Query q;
    q.id = r.id;
    q.flags = r.flags;
    int next = 0;
    QString why;
    if (!readName(m, kHeaderSize, &q.name, &q.wireName, &next, &why))
        return refuse(QStringLiteral("bad question name: ") + why);
    if (size_t(next) + 4 > m.size())
        return refuse(QStringLiteral("question cut off after the name"));
    q.qtype = u16At(m, size_t(next));
    q.qclass = u16At(m, size_t(next) + 2);
    q.questionEnd = next + 4;
    size_t pos = size_t(q.questionEnd);
    if (ar == 1) {
        // EDNS(0) OPT: root name, type 41, class = payload size, ttl, rdlength, rdata.
        if (pos + 11 > m.size())
            return refuse(QStringLiteral("additional record cut off"));
        if (byteAt(m, pos) != 0 || u16At(m, pos + 1) != 41)
            return refuse(QStringLiteral("the additional record is not an EDNS OPT record"));
        const quint16 rdlength = u16At(m, pos + 9);
        pos += 11;
        if (pos + rdlength > m.size())
            return refuse(QStringLiteral("EDNS option data cut off"));
        pos += rdlength;
    }
    if (pos != m.size())
        return refuse(QStringLiteral("%1 bytes after the last record").arg(m.size() - pos));
    // The question is echoed back compressed-free; the wire name is what the client asked.
    r.ok = true;
    r.query = std::move(q);
    return r;
}

QByteArray encodeName(const QString &name)
{
    QString n = name;
    if (n.endsWith(u'.'))
        n.chop(1);
    QByteArray out;
    if (!n.isEmpty()) {
        for (const QString &label : n.split(u'.')) {
            if (label.isEmpty() || label.size() > kMaxLabel)
                return {};
            for (QChar c : label)
                if (c.unicode() > 0x7f || !printableLabelByte(quint8(c.unicode())))
                    return {};
            const QByteArray l = label.toLatin1();
            out.append(char(l.size()));
            out.append(l);
        }
    }
    out.append('\0');
    if (out.size() > kMaxName)
        return {};
    return out;
}

QByteArray answerA(const Query &q, quint32 ipv4, quint32 ttl)
{
    QByteArray out = withQuestion(q, NoError, 1);
    putU16(out, 0xc000 | kHeaderSize); // the name: a pointer to the question's
    putU16(out, A);
    putU16(out, IN);
    putU32(out, ttl);
    putU16(out, 4);
    putU32(out, ipv4);
    return out;
}

QByteArray answerEmpty(const Query &q) { return withQuestion(q, NoError, 0); }

QByteArray answerRcode(const Query &q, Rcode rcode) { return withQuestion(q, rcode, 0); }

QByteArray formErr(quint16 id, quint16 flags) { return header(id, responseFlags(flags, FormErr), 0, 0); }

} // namespace airlock::dns
