#pragma once
// Peeks at the first bytes of a TCP stream and reads a TLS ClientHello from them: is it TLS
// at all, the SNI host name and the ALPN protocols. The hello may span several TLS records
// and arrive in pieces; the parser says how many more bytes it needs. Bounded: never more
// than kMaxPeek bytes are examined.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <span>

namespace airlock::tls {

constexpr int kMaxPeek = 16 * 1024;

struct ClientHello {
    enum class Status {
        NeedMore,   // a prefix of a plausible ClientHello: read `needed` more bytes and retry
        NotTls,     // the stream does not start like a TLS handshake (plain HTTP, SSH, ...)
        Invalid,    // starts as TLS but is malformed or exceeds the bounds: `error` says why
        Complete,
    };
    Status status = Status::NeedMore;
    int needed = 0;             // NeedMore: at least this many more bytes
    QString error;
    quint16 legacyVersion = 0;  // client_version field of the hello
    QString sni;                // host_name of server_name, lower-case, "" when absent
    bool hasSni = false;
    QStringList alpn;           // in the client's order
    // An Encrypted Client Hello (0xfe0d, and its drafts' 0xfe08..0xfe0c) or ESNI (0xffce)
    // extension, 0 when none: with one, the SNI seen here need not be where the hello goes.
    quint16 encryptedName = 0;
    int consumed = 0;           // bytes of the stream that held the hello (all its records)
};

ClientHello parseClientHello(std::span<const char> stream);
inline ClientHello parseClientHello(const QByteArray &stream) { return parseClientHello(std::span<const char>(stream.constData(), size_t(stream.size()))); }

} // namespace airlock::tls
