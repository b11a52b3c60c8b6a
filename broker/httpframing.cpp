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
    qsizetype end = data.indexOf("\r\n\r\n");
    int sep = 4;
    if (end < 0) {
        end = data.indexOf("\n\n");
        sep = 2;
    }
    if (end < 0) {
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

static BodyFraming lengthOrChunked(const QByteArray &transferEncoding, const QByteArray &contentLength,
                                   BodyFraming::Kind otherwise, QString *error)
{
    BodyFraming f;
    if (!transferEncoding.isNull()) {
        if (!transferEncoding.trimmed().toLower().endsWith("chunked")) {
            if (otherwise == BodyFraming::UntilClose) {
                f.kind = BodyFraming::UntilClose;
                return f;
            }
            *error = QStringLiteral("a request's Transfer-Encoding must end in chunked");
            return f;
        }
        f.kind = BodyFraming::Chunked;
        return f;
    }
    if (!contentLength.isNull()) {
        bool ok = false;
        const qint64 n = contentLength.trimmed().toLongLong(&ok);
        if (!ok || n < 0) {
            *error = QStringLiteral("invalid Content-Length");
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

qsizetype ChunkedDecoder::feed(const char *data, qsizetype size)
{
    qsizetype i = 0;
    while (i < size && m_state != State::Done && m_state != State::Error) {
        const char c = data[i];
        switch (m_state) {
        case State::Size: {
            int digit = -1;
            if (c >= '0' && c <= '9') digit = c - '0';
            else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
            else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
            if (digit >= 0) {
                if (++m_digits > 15) { m_state = State::Error; break; }
                m_remaining = m_remaining * 16 + quint64(digit);
            } else if (m_digits && (c == ';' || c == ' ' || c == '\t')) {
                m_state = State::SizeExt;
            } else if (m_digits && c == '\r') {
                m_state = State::SizeLf;
            } else if (m_digits && c == '\n') {
                m_state = m_remaining ? State::Data : State::Trailer;
            } else {
                m_state = State::Error;
            }
            ++i;
            break;
        }
        case State::SizeExt:
            if (c == '\n')
                m_state = m_remaining ? State::Data : State::Trailer;
            ++i;
            break;
        case State::SizeLf:
            m_state = c == '\n' ? (m_remaining ? State::Data : State::Trailer) : State::Error;
            ++i;
            break;
        case State::Data: {
            const qsizetype take = qsizetype(std::min<quint64>(m_remaining, quint64(size - i)));
            m_remaining -= quint64(take);
            i += take;
            if (!m_remaining)
                m_state = State::DataCr;
            break;
        }
        case State::DataCr:
            m_state = c == '\r' ? State::DataLf : (c == '\n' ? State::Size : State::Error);
            m_digits = 0;
            ++i;
            break;
        case State::DataLf:
            m_state = c == '\n' ? State::Size : State::Error;
            ++i;
            break;
        case State::Trailer: // start of a trailer line, or the final empty line
            if (c == '\r') m_state = State::TrailerLf;
            else if (c == '\n') m_state = State::Done;
            else m_state = State::TrailerLine;
            ++i;
            break;
        case State::TrailerLf:
            m_state = c == '\n' ? State::Done : State::Error;
            ++i;
            break;
        case State::TrailerLine:
            if (c == '\n')
                m_state = State::Trailer;
            ++i;
            break;
        case State::Done:
        case State::Error:
            break;
        }
    }
    return i;
}

} // namespace airlock::http
