#pragma once
// A small DNS message parser/builder for exactly what a sandbox's guest sends to the broker's
// resolver: one query, one question. Anything else is refused with a reason. Every read is
// bounds-checked; compression pointers may only point backwards, and at most kMaxPointers of
// them are followed, so a hostile packet can neither loop nor read past the buffer.
#include <QByteArray>
#include <QString>
#include <QtGlobal>
#include <span>

namespace airlock::dns {

enum Type : quint16 { A = 1, NS = 2, CNAME = 5, SOA = 6, PTR = 12, MX = 15, TXT = 16, AAAA = 28, SRV = 33, ANY = 255 };
enum Class : quint16 { IN = 1 };
enum Rcode : quint8 { NoError = 0, FormErr = 1, ServFail = 2, NxDomain = 3, NotImp = 4, Refused = 5 };

constexpr int kHeaderSize = 12;
constexpr int kMaxLabel = 63;
constexpr int kMaxName = 255;         // wire length including the length octets and the root
constexpr int kMaxPointers = 16;      // compression pointers followed per name
constexpr int kMaxMessage = 65535;

struct Query {
    quint16 id = 0;
    quint16 flags = 0;                // as received (RD is echoed back in answers)
    QString name;                     // lower-case, dotted, no trailing dot; "" for the root
    QByteArray wireName;              // the question name as the client sent it (0x20 case kept)
    quint16 qtype = 0;
    quint16 qclass = 0;
    int questionEnd = 0;              // offset just after the question section
};

struct ParseResult {
    bool ok = false;
    Query query;
    QString error;                    // why it was refused, for the event log
    bool idValid = false;             // the header was readable: a FORMERR can be sent back
    quint16 id = 0;
    quint16 flags = 0;
};

// Parses a query. Refuses: short header, QR set (a response), opcode != QUERY, QDCOUNT != 1,
// answer/authority records, more than one additional record (EDNS OPT is tolerated and
// ignored), TC set, bad names (label > 63, name > 255, forward or looping pointers, reserved
// label types, non-printable bytes), and bytes left over.
ParseResult parseQuery(std::span<const char> message);
inline ParseResult parseQuery(const QByteArray &message) { return parseQuery(std::span<const char>(message.constData(), size_t(message.size()))); }

// Reads a (possibly compressed) name starting at `offset`. On success `*next` is the offset
// after the name in the original position, and `*wire` the uncompressed wire form.
bool readName(std::span<const char> message, int offset, QString *name, QByteArray *wire, int *next, QString *error);

// Encodes a dotted name into wire format; empty on an invalid name.
QByteArray encodeName(const QString &name);

// Answers: header + the original question (+ answer records). All echo id, RD and the
// question exactly as received (so 0x20 case randomisation works), set QR and RA.
QByteArray answerA(const Query &q, quint32 ipv4HostOrder, quint32 ttl);
QByteArray answerEmpty(const Query &q);           // NOERROR, no records (AAAA of a known name)
QByteArray answerRcode(const Query &q, Rcode rcode); // REFUSED, NXDOMAIN, SERVFAIL...
// FORMERR for a message whose header could be read but not the question (no question echoed).
QByteArray formErr(quint16 id, quint16 flags);

} // namespace airlock::dns
