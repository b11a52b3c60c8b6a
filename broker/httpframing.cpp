#include "httpframing.h"

namespace airlock::http {

namespace {
constexpr int kMaxHead = 64 * 1024;
}

QByteArray ResponseHead::header(const QByteArray &name) const
{
    for (const auto &h : headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return {};
}

bool hasToken(const QByteArray &value, const QByteArray &token)
{
    for (const QByteArray &part : value.split(',')) {
        if (part.trimmed().compare(token, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

Parse parseResponseHead(const QByteArray &data, ResponseHead *out, QString *error)
{
    // The head ends at the first empty line, CRLF or (tolerated from upstream) bare LF.
    const qsizetype crlf = data.indexOf("\r\n\r\n");
    const qsizetype lf = data.indexOf("\n\n");
    const bool useLf = lf >= 0 && (crlf < 0 || lf < crlf);
    const qsizetype end = useLf ? lf : crlf;
    const int sep = useLf ? 2 : 4;
    if (end < 0 || end + sep > kMaxHead) {
        if (data.size() > kMaxHead) {
            *error = QStringLiteral("the upstream's response head is larger than 64 KiB");
            return Parse::Invalid;
        }
        return Parse::NeedMore;
    }
    const QList<QByteArray> lines = data.left(end).split('\n');
    const QByteArray statusLine = lines.first().trimmed();
    const QList<QByteArray> parts = statusLine.split(' ');
    bool okStatus = false;
    const int status = parts.size() >= 2 ? parts.at(1).toInt(&okStatus) : 0;
    if (!statusLine.startsWith("HTTP/1.") || !okStatus || status < 100 || status > 999) {
        *error = QStringLiteral("the upstream did not answer with HTTP/1.x");
        return Parse::Invalid;
    }
    ResponseHead head;
    head.version = parts.at(0);
    head.status = status;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).endsWith('\r') ? lines.at(i).chopped(1) : lines.at(i);
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0) {
            *error = QStringLiteral("the upstream sent a malformed header line");
            return Parse::Invalid;
        }
        head.headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
    }
    head.headEnd = int(end + sep);
    *out = std::move(head);
    return Parse::Complete;
}

// Content-Length is 1*DIGIT (RFC 9110 8.6): no sign, no spaces inside, no list.
static bool parseLength(const QByteArray &value, qint64 *length)
{
    const QByteArray digits = value.trimmed();
    if (digits.isEmpty() || digits.size() > 18)
        return false;
    for (char c : digits)
        if (c < '0' || c > '9')
            return false;
    *length = digits.toLongLong();
    return true;
}

static BodyFraming lengthOrChunked(const QByteArray &transferEncoding, const QByteArray &contentLength,
                                   BodyFraming::Kind otherwise, QString *error)
{
    BodyFraming f;
    if (!transferEncoding.isNull()) {
        const QList<QByteArray> codings = transferEncoding.split(',');
        const bool chunkedLast = codings.last().trimmed().compare("chunked", Qt::CaseInsensitive) == 0;
        if (otherwise == BodyFraming::UntilClose) { // a response: anything but chunked last runs until close
            f.kind = chunkedLast ? BodyFraming::Chunked : BodyFraming::UntilClose;
            return f;
        }
        // A request: exactly "chunked"; any other coding may be framed differently upstream.
        if (codings.size() != 1 || !chunkedLast) {
            *error = QStringLiteral("a request's Transfer-Encoding must be exactly \"chunked\"");
            return f;
        }
        f.kind = BodyFraming::Chunked;
        return f;
    }
    if (!contentLength.isNull()) {
        qint64 n = 0;
        if (!parseLength(contentLength, &n)) {
            *error = QStringLiteral("invalid Content-Length (it must be one decimal number)");
            return f;
        }
        f.kind = n ? BodyFraming::Length : BodyFraming::None;
        f.length = n;
        return f;
    }
    f.kind = otherwise;
    return f;
}

BodyFraming requestFraming(const QByteArray &transferEncoding, const QByteArray &contentLength, QString *error)
{
    return lengthOrChunked(transferEncoding, contentLength, BodyFraming::None, error);
}

BodyFraming responseFraming(const QByteArray &method, const ResponseHead &head, QString *error)
{
    if (method == "HEAD" || head.status < 200 || head.status == 204 || head.status == 304)
        return BodyFraming{};
    return lengthOrChunked(head.header("Transfer-Encoding"), head.header("Content-Length"), BodyFraming::UntilClose, error);
}

namespace {
bool hexDigit(char c, int *digit)
{
    if (c >= '0' && c <= '9') *digit = c - '0';
    else if (c >= 'a' && c <= 'f') *digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') *digit = c - 'A' + 10;
    else return false;
    return true;
}
// A byte allowed inside a chunk extension or a trailer line: no control characters but HTAB.
bool lineByte(char c) { return c == '\t' || (uchar(c) >= 0x20 && uchar(c) != 0x7f); }
} // namespace

// Every line ends in CRLF: a bare LF (or CR) is an error, because a server that accepts it
// would see different chunk boundaries than a strict one (request smuggling).
qsizetype ChunkedDecoder::feed(const char *data, qsizetype size)
{
    qsizetype i = 0;
    while (i < size && m_state != State::Done && m_state != State::Error) {
        const char c = data[i];
        if (m_state == State::Data) {
            const qsizetype take = qsizetype(std::min<quint64>(m_remaining, quint64(size - i)));
            m_remaining -= quint64(take);
            i += take;
            if (!m_remaining)
                m_state = State::DataCr;
            continue;
        }
        ++i;
        m_state = next(c);
    }
    return i;
}

ChunkedDecoder::State ChunkedDecoder::next(char c)
{
    const State afterSize = m_remaining ? State::Data : State::Trailer;
    switch (m_state) {
    case State::Size: {
        int digit = 0;
        if (hexDigit(c, &digit)) {
            if (++m_digits > 15)
                return State::Error;
            m_remaining = m_remaining * 16 + quint64(digit);
            return State::Size;
        }
        if (!m_digits)
            return State::Error;
        if (c == ' ' || c == '\t')
            return State::SizeWs;
        return c == ';' ? State::SizeExt : (c == '\r' ? State::SizeLf : State::Error);
    }
    case State::SizeWs:
        if (c == ' ' || c == '\t')
            return State::SizeWs;
        return c == ';' ? State::SizeExt : (c == '\r' ? State::SizeLf : State::Error);
    case State::SizeExt:
        if (c == '\r')
            return State::SizeLf;
        return lineByte(c) && ++m_lineBytes <= kMaxExtension ? State::SizeExt : State::Error;
    case State::SizeLf:
        m_lineBytes = 0;
        return c == '\n' ? afterSize : State::Error;
    case State::DataCr:
        return c == '\r' ? State::DataLf : State::Error;
    case State::DataLf:
        m_digits = 0;
        return c == '\n' ? State::Size : State::Error;
    case State::Trailer: // start of a trailer line, or the final empty line
        if (c == '\r')
            return State::FinalLf;
        [[fallthrough]];
    case State::TrailerLine:
        if (c == '\r')
            return State::TrailerLf;
        return lineByte(c) && ++m_trailerBytes <= kMaxTrailers ? State::TrailerLine : State::Error;
    case State::TrailerLf:
        return c == '\n' ? State::Trailer : State::Error;
    case State::FinalLf:
        return c == '\n' ? State::Done : State::Error;
    case State::Data:
    case State::Done:
    case State::Error:
        break;
    }
    return m_state;
}

std::optional<QByteArray> dechunk(QByteArrayView body, qsizetype limit)
{
    ChunkedDecoder check;
    if (check.feed(body.data(), body.size()) != body.size() || !check.done())
        return std::nullopt;
    QByteArray out;
    qsizetype at = 0;
    for (;;) {
        const qsizetype lineEnd = body.indexOf("\r\n", at);
        if (lineEnd < 0)
            return std::nullopt;
        QByteArrayView sizeText = body.sliced(at, lineEnd - at);
        if (const qsizetype semi = sizeText.indexOf(';'); semi >= 0)
            sizeText = sizeText.first(semi);
        bool ok = false;
        const qint64 size = sizeText.trimmed().toLongLong(&ok, 16);
        if (!ok || size < 0 || size > limit - out.size())
            return std::nullopt;
        if (size == 0)
            return out;
        at = lineEnd + 2;
        if (at + size + 2 > body.size())
            return std::nullopt;
        out.append(body.sliced(at, qsizetype(size)));
        at += qsizetype(size) + 2;
    }
}

} // namespace airlock::http
