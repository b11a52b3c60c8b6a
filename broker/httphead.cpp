#include "httphead.h"

#include <cctype>

namespace airlock::http {

namespace {

// RFC 9110 5.6.2 token characters.
bool isTchar(quint8 c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
    case '-': case '.': case '^': case '_': case '`': case '|': case '~':
        return true;
    default:
        return false;
    }
}

bool isToken(QByteArrayView s)
{
    if (s.isEmpty())
        return false;
    for (char c : s)
        if (!isTchar(quint8(c)))
            return false;
    return true;
}

// Field values: visible ASCII, obs-text, SP and HTAB; no other control characters.
bool isFieldValue(QByteArrayView s)
{
    for (char ch : s) {
        const auto c = quint8(ch);
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return false;
    }
    return true;
}

QByteArrayView trimOws(QByteArrayView s)
{
    while (!s.isEmpty() && (s.front() == ' ' || s.front() == '\t'))
        s = s.sliced(1);
    while (!s.isEmpty() && (s.back() == ' ' || s.back() == '\t'))
        s.chop(1);
    return s;
}

// A short excerpt of client bytes for an error message.
QString printable(QByteArrayView s)
{
    QString out;
    for (char c : s.first(std::min<qsizetype>(s.size(), 64)))
        out += (quint8(c) >= 0x20 && quint8(c) < 0x7f) ? QChar::fromLatin1(c) : QChar(u'?');
    return out;
}

HeadResult invalid(QString why)
{
    HeadResult r;
    r.status = HeadResult::Status::Invalid;
    r.error = std::move(why);
    return r;
}

// Splits a Host value into name and port. "" on a malformed value.
bool parseHost(QByteArrayView value, QString *host, int *port, QString *why)
{
    QByteArrayView name = value;
    QByteArrayView portText;
    if (value.startsWith('[')) {
        const qsizetype close = value.indexOf(']');
        if (close < 0) {
            *why = QStringLiteral("Host has an unterminated IPv6 literal");
            return false;
        }
        name = value.sliced(1, close - 1);
        const QByteArrayView rest = value.sliced(close + 1);
        if (!rest.isEmpty()) {
            if (!rest.startsWith(':')) {
                *why = QStringLiteral("Host has bytes after its IPv6 literal");
                return false;
            }
            portText = rest.sliced(1);
        }
    } else if (const qsizetype colon = value.lastIndexOf(':'); colon >= 0) {
        name = value.first(colon);
        portText = value.sliced(colon + 1);
    }
    if (name.isEmpty()) {
        *why = QStringLiteral("Host is empty");
        return false;
    }
    const bool bracketed = value.startsWith('[');
    for (char ch : name) {
        const auto c = quint8(ch);
        // A name: letters, digits, '-', '.', '_'; an IPv6 literal (only inside brackets): hex, ':', '.'.
        const bool ok = bracketed ? (std::isxdigit(c) || c == ':' || c == '.')
                                  : (std::isalnum(c) || c == '-' || c == '.' || c == '_');
        if (!ok) {
            *why = QStringLiteral("Host holds a character a host name cannot have");
            return false;
        }
    }
    *port = 0;
    if (!portText.isEmpty() || value.endsWith(':')) {
        bool ok = false;
        const int p = QByteArray(portText.data(), portText.size()).toInt(&ok);
        if (!ok || p < 1 || p > 65535 || portText.size() > 5) {
            *why = QStringLiteral("Host has an invalid port");
            return false;
        }
        *port = p;
    }
    QString h = printable(name).toLower();
    if (h.endsWith(u'.'))
        h.chop(1);
    *host = h;
    return true;
}

} // namespace

QByteArray RequestHead::header(const QByteArray &name) const
{
    for (const Header &h : headers)
        if (h.name.compare(name, Qt::CaseInsensitive) == 0)
            return h.value;
    return {};
}

QList<QByteArray> RequestHead::headerValues(const QByteArray &name) const
{
    QList<QByteArray> out;
    for (const Header &h : headers)
        if (h.name.compare(name, Qt::CaseInsensitive) == 0)
            out.append(h.value);
    return out;
}

HeadResult parseRequestHead(std::span<const char> input)
{
    const QByteArrayView data(input.data(), qsizetype(input.size()));
    qsizetype pos = 0;
    // RFC 9112 2.2: ignore at least one empty line before the request line (we allow a few).
    for (int blank = 0; blank < 4 && pos < data.size(); ++blank) {
        if (data.sliced(pos).startsWith("\r\n"))
            pos += 2;
        else if (data.at(pos) == '\n')
            pos += 1;
        else
            break;
    }

    HeadResult result;
    RequestHead &head = result.head;
    bool requestLineDone = false;
    bool sawHost = false;
    for (;;) {
        const qsizetype nl = data.indexOf('\n', pos);
        const qsizetype lineLimit = std::min<qsizetype>(data.size(), pos + kMaxLine + 2);
        if (nl < 0 || nl >= lineLimit) {
            if (data.size() - pos > kMaxLine + 1)
                return invalid(QStringLiteral("a line of the request head is longer than %1 bytes").arg(kMaxLine));
            if (data.size() >= kMaxHead)
                return invalid(QStringLiteral("the request head is larger than %1 bytes").arg(kMaxHead));
            result.status = HeadResult::Status::NeedMore;
            return result;
        }
        if (nl + 1 > kMaxHead)
            return invalid(QStringLiteral("the request head is larger than %1 bytes").arg(kMaxHead));
        QByteArrayView line = data.sliced(pos, nl - pos);
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.size() > kMaxLine)
            return invalid(QStringLiteral("a line of the request head is longer than %1 bytes").arg(kMaxLine));
        if (line.contains('\r'))
            return invalid(QStringLiteral("a bare CR inside a line of the request head"));
        if (line.contains('\0'))
            return invalid(QStringLiteral("a NUL byte in the request head"));
        pos = nl + 1;

        if (!requestLineDone) {
            const qsizetype sp1 = line.indexOf(' ');
            const qsizetype sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
            if (sp1 <= 0 || sp2 < 0 || line.indexOf(' ', sp2 + 1) >= 0)
                return invalid(QStringLiteral("the request line is not METHOD TARGET VERSION"));
            const QByteArrayView method = line.first(sp1);
            const QByteArrayView target = line.sliced(sp1 + 1, sp2 - sp1 - 1);
            const QByteArrayView version = line.sliced(sp2 + 1);
            if (!isToken(method))
                return invalid(QStringLiteral("the request method is not a token"));
            if (target.isEmpty())
                return invalid(QStringLiteral("the request target is empty"));
            for (char ch : target)
                if (quint8(ch) <= 0x20 || quint8(ch) == 0x7f)
                    return invalid(QStringLiteral("the request target holds a control character or space"));
            if (version != "HTTP/1.1" && version != "HTTP/1.0")
                return invalid(QStringLiteral("unsupported protocol version '%1' (only HTTP/1.0 and HTTP/1.1)")
                                   .arg(printable(version)));
            head.method = method.toByteArray();
            head.target = target.toByteArray();
            head.version = version.toByteArray();
            requestLineDone = true;
            continue;
        }
        if (line.isEmpty())
            break; // end of the head
        if (line.front() == ' ' || line.front() == '\t')
            return invalid(QStringLiteral("obsolete header line folding is not accepted"));
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return invalid(QStringLiteral("a header line without a name and ':'"));
        const QByteArrayView name = line.first(colon);
        if (!isToken(name))
            return invalid(QStringLiteral("the header name '%1' is not a token (no spaces before ':')")
                               .arg(printable(name)));
        const QByteArrayView value = trimOws(line.sliced(colon + 1));
        if (!isFieldValue(value))
            return invalid(QStringLiteral("the value of header '%1' holds a control character")
                               .arg(printable(name)));
        if (head.headers.size() >= kMaxHeaders)
            return invalid(QStringLiteral("more than %1 header lines").arg(kMaxHeaders));
        head.headers.append({name.toByteArray(), value.toByteArray()});
        if (name.compare("host", Qt::CaseInsensitive) == 0) {
            if (sawHost)
                return invalid(QStringLiteral("more than one Host header"));
            sawHost = true;
            QString why;
            if (!parseHost(value, &head.host, &head.hostPort, &why))
                return invalid(why);
        }
    }
    if (!sawHost && head.version == "HTTP/1.1")
        return invalid(QStringLiteral("an HTTP/1.1 request without a Host header"));
    const QList<QByteArray> lengths = head.headerValues("content-length");
    if (!lengths.isEmpty() && !head.headerValues("transfer-encoding").isEmpty())
        return invalid(QStringLiteral("both Content-Length and Transfer-Encoding (request smuggling)"));
    for (const QByteArray &l : lengths) {
        if (l != lengths.first())
            return invalid(QStringLiteral("differing Content-Length headers"));
        if (l.isEmpty() || l.size() > 18 || !std::all_of(l.begin(), l.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return invalid(QStringLiteral("Content-Length is not a decimal number"));
    }
    head.headEnd = int(pos);
    result.status = HeadResult::Status::Complete;
    return result;
}

QByteArray serializeRequestHead(const RequestHead &head)
{
    QByteArray out;
    out.reserve(256);
    out += head.method + ' ' + head.target + ' ' + head.version + "\r\n";
    for (const Header &h : head.headers)
        out += h.name + ": " + h.value + "\r\n";
    out += "\r\n";
    return out;
}

} // namespace airlock::http
