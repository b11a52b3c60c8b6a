#pragma once
// An incremental HTTP/1.x request head parser: request line, headers in order, Host.
// Feed it the bytes received so far (from the start of the request); it answers NeedMore,
// Invalid (with a reason) or Complete. Limits bound what a slow or hostile client can make
// the broker hold. Also serialises a head, so headers can be rewritten (secret injection).
#include <QByteArray>
#include <QList>
#include <QString>
#include <span>
#include <utility>

namespace airlock::http {

constexpr int kMaxLine = 8 * 1024;
constexpr int kMaxHeaders = 100;
constexpr int kMaxHead = 64 * 1024;
constexpr int kMaxBlankLines = 4; // CRLFs skipped before a request line

struct Header {
    QByteArray name;    // as sent
    QByteArray value;   // leading/trailing whitespace trimmed
    bool operator==(const Header &) const = default;
};

struct RequestHead {
    QByteArray method;
    QByteArray target;
    QByteArray version;         // "HTTP/1.1" or "HTTP/1.0"
    QList<Header> headers;      // in order, duplicates kept
    QString host;               // Host header without port, lower-case; "" if absent
    int hostPort = 0;           // port given in Host, 0 if none
    int headEnd = 0;            // offset just after the blank line ending the head

    // First value of a header (case-insensitive name), or a null QByteArray.
    QByteArray header(const QByteArray &name) const;
    // All values of a header, in order.
    QList<QByteArray> headerValues(const QByteArray &name) const;
};

struct HeadResult {
    enum class Status { NeedMore, Invalid, Complete };
    Status status = Status::NeedMore;
    QString error;              // Invalid: what was wrong
    RequestHead head;           // Complete
};

// Parses the head at the start of `data`, strictly enough that any upstream reads the same
// request from the same bytes: skips (only) up to kMaxBlankLines CRLFs before the request
// line (RFC 9112 2.2); every line must end in CRLF; refuses obsolete line folding, bare CR,
// control characters, a target that is not a path, "*" (OPTIONS) or an http(s) URL, a URL whose authority differs from Host, a request without
// Host (HTTP/1.0 too), several Host headers, Transfer-Encoding together with Content-Length,
// several Transfer-Encoding headers, Transfer-Encoding on HTTP/1.0, and anything past the
// limits.
HeadResult parseRequestHead(std::span<const char> data);
inline HeadResult parseRequestHead(const QByteArray &data) { return parseRequestHead(std::span<const char>(data.constData(), size_t(data.size()))); }

// Can a stream that starts with `start` be an HTTP/1.x request? Yes once a whole request
// line of the right shape ("TOKEN TARGET HTTP/1.x", after at most kMaxBlankLines CRLFs) is
// there, No as soon as a byte cannot belong to one, Maybe while too few bytes are in. (Yes
// says nothing about validity: parseRequestHead decides that.)
enum class Looks { No, Maybe, Yes };
Looks looksLikeRequest(QByteArrayView start);

// True for a method that tunnels (CONNECT) or echoes the request back (TRACE, IIS's TRACK),
// compared without case: a lenient upstream may read "trace" as TRACE. Neither the proxy's
// checker nor the interceptor lets one through.
bool tunnelsOrEchoes(QByteArrayView method);

// "METHOD target VERSION\r\n" + "Name: value\r\n"... + "\r\n".
QByteArray serializeRequestHead(const RequestHead &head);

} // namespace airlock::http
