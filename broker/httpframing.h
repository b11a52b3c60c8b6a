#pragma once
// What the intercepting relay needs beyond the request head parser (httphead): the
// response head, where a message body ends (Content-Length, chunked, until close), and
// an incremental decoder that finds the end of a chunked body while its bytes are copied
// through unchanged.
#include <QByteArray>
#include <QByteArrayView>
#include <optional>
#include <QList>
#include <QString>

namespace airlock::http {

struct ResponseHead {
    QByteArray version;
    int status = 0;
    QList<QPair<QByteArray, QByteArray>> headers;
    int headEnd = 0;
    QByteArray header(const QByteArray &name) const;
};

enum class Parse { NeedMore, Invalid, Complete };
// Parses a response head at the start of `data` (bounded to 64 KiB like requests).
Parse parseResponseHead(const QByteArray &data, ResponseHead *out, QString *error);

// How a body is delimited.
struct BodyFraming {
    enum Kind { None, Length, Chunked, UntilClose } kind = None;
    qint64 length = 0;
};
// Request: chunked, Content-Length or none (RFC 9112 6.3). `error` set for a bad length.
BodyFraming requestFraming(const QByteArray &transferEncoding, const QByteArray &contentLength, QString *error);
// Response to `method`: none for HEAD, 1xx, 204, 304; else chunked, length or until close.
BodyFraming responseFraming(const QByteArray &method, const ResponseHead &head, QString *error);

// Does a comma-separated header value (Connection, Transfer-Encoding) list `token`?
bool hasToken(const QByteArray &value, const QByteArray &token);

// Finds the end of a chunked body in a byte stream fed piecewise.
class ChunkedDecoder {
public:
    // Consumes up to `size` bytes; returns how many belong to this body (the rest are the
    // next message's). Sets done() at the end; error() on malformed framing: a line not
    // ended by CRLF, a size of more than 15 hex digits, control characters, or more than
    // kMaxExtension bytes of chunk extension / kMaxTrailers bytes of trailers.
    qsizetype feed(const char *data, qsizetype size);
    bool done() const { return m_state == State::Done; }
    bool error() const { return m_state == State::Error; }

    static constexpr int kMaxExtension = 4096;    // per chunk-size line
    static constexpr int kMaxTrailers = 64 * 1024; // all trailer lines together

private:
    enum class State { Size, SizeWs, SizeExt, SizeLf, Data, DataCr, DataLf, Trailer, TrailerLine, TrailerLf, FinalLf, Done, Error };
    State next(char c); // the state after byte `c` (every state but Data)
    State m_state = State::Size;
    quint64 m_remaining = 0;
    int m_digits = 0;
    int m_lineBytes = 0;
    int m_trailerBytes = 0;
};

// The payload of a complete chunked body that ChunkedDecoder accepted (trailers dropped);
// nothing when it is not one or its payload would exceed `limit`.
std::optional<QByteArray> dechunk(QByteArrayView body, qsizetype limit);

} // namespace airlock::http
