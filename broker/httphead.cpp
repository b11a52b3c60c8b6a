#include "httphead.h"

#include <cctype>
#include <string_view>

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

namespace {

// The request target: origin-form ("/path"), "*" for OPTIONS, or absolute-form
// ("http://authority/path"), whose authority is where the request really goes (RFC 9112
// 3.2.2: a server ignores Host for it), so it must name what Host names. Sets the
// authority's host and port (0 when none) for an absolute-form target.
bool checkTarget(QByteArrayView method, QByteArrayView target, QString *why, QString *host, int *port, int *defaultPort)
{
    *defaultPort = 0;
    for (char ch : target)
        if (quint8(ch) <= 0x20 || quint8(ch) >= 0x7f) {
            *why = QStringLiteral("the request target holds a control character, space or non-ASCII byte");
            return false;
        }
    if (target.startsWith('/'))
        return true;
    if (target == "*") {
        if (method == "OPTIONS")
            return true;
        *why = QStringLiteral("the request target * is only for OPTIONS");
        return false;
    }
    const qsizetype sep = target.indexOf("://");
    const QByteArray scheme = sep > 0 ? target.first(sep).toByteArray().toLower() : QByteArray();
    if (scheme != "http" && scheme != "https") {
        *why = QStringLiteral("the request target '%1' is neither a path nor an http(s) URL").arg(printable(target));
        return false;
    }
    *defaultPort = scheme == "http" ? 80 : 443;
    QByteArrayView authority = target.sliced(sep + 3);
    for (qsizetype i = 0; i < authority.size(); ++i)
        if (authority.at(i) == '/' || authority.at(i) == '?' || authority.at(i) == '#') {
            authority = authority.first(i);
            break;
        }
    if (authority.contains('@')) {
        *why = QStringLiteral("the request URL carries user information before its host");
        return false;
    }
    QString hostWhy;
    if (!parseHost(authority, host, port, &hostWhy)) {
        *why = QStringLiteral("the request URL's host: %1").arg(hostWhy);
        return false;
    }
    return true;
}

HeadResult parseRequestLine(QByteArrayView line, RequestHead &head, QString *authorityHost, int *authorityPort, int *defaultPort)
{
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
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return invalid(QStringLiteral("unsupported protocol version '%1' (only HTTP/1.0 and HTTP/1.1)").arg(printable(version)));
    QString why;
    if (!checkTarget(method, target, &why, authorityHost, authorityPort, defaultPort))
        return invalid(why);
    head.method = method.toByteArray();
    head.target = target.toByteArray();
    head.version = version.toByteArray();
    HeadResult ok;
    ok.status = HeadResult::Status::Complete;
    return ok;
}

// One "Name: value" line, appended to the head (Host also parsed).
HeadResult parseHeaderLine(QByteArrayView line, RequestHead &head)
{
    if (line.front() == ' ' || line.front() == '\t')
        return invalid(QStringLiteral("obsolete header line folding is not accepted"));
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0)
        return invalid(QStringLiteral("a header line without a name and ':'"));
    const QByteArrayView name = line.first(colon);
    if (!isToken(name))
        return invalid(QStringLiteral("the header name '%1' is not a token (no spaces before ':')").arg(printable(name)));
    const QByteArrayView value = trimOws(line.sliced(colon + 1));
    if (!isFieldValue(value))
        return invalid(QStringLiteral("the value of header '%1' holds a control character").arg(printable(name)));
    if (head.headers.size() >= kMaxHeaders)
        return invalid(QStringLiteral("more than %1 header lines").arg(kMaxHeaders));
    if (name.compare("host", Qt::CaseInsensitive) == 0) {
        if (!head.header("host").isNull())
            return invalid(QStringLiteral("more than one Host header"));
        QString why;
        if (!parseHost(value, &head.host, &head.hostPort, &why))
            return invalid(why);
    }
    head.headers.append({name.toByteArray(), value.toByteArray()});
    HeadResult ok;
    ok.status = HeadResult::Status::Complete;
    return ok;
}

// What the whole head must satisfy once all its headers are in.
HeadResult checkHead(const RequestHead &head, const QString &authorityHost, int authorityPort, int defaultPort)
{
    if (head.header("host").isNull())
        return invalid(QStringLiteral("a request without a Host header (every request must name its host, HTTP/1.0 too)"));
    if (defaultPort) {
        const int a = authorityPort ? authorityPort : defaultPort;
        const int h = head.hostPort ? head.hostPort : defaultPort;
        if (authorityHost != head.host || a != h)
            return invalid(QStringLiteral("the request URL names %1 but Host names %2").arg(authorityHost, head.host));
    }
    const QList<QByteArray> encodings = head.headerValues("transfer-encoding");
    const QList<QByteArray> lengths = head.headerValues("content-length");
    if (!lengths.isEmpty() && !encodings.isEmpty())
        return invalid(QStringLiteral("both Content-Length and Transfer-Encoding (request smuggling)"));
    if (encodings.size() > 1)
        return invalid(QStringLiteral("more than one Transfer-Encoding header (request smuggling)"));
    if (!encodings.isEmpty() && head.version == "HTTP/1.0")
        return invalid(QStringLiteral("Transfer-Encoding in an HTTP/1.0 request (request smuggling)"));
    for (const QByteArray &l : lengths) {
        if (l != lengths.first())
            return invalid(QStringLiteral("differing Content-Length headers"));
        if (l.isEmpty() || l.size() > 18 || !std::all_of(l.begin(), l.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return invalid(QStringLiteral("Content-Length is not a decimal number"));
    }
    HeadResult ok;
    ok.status = HeadResult::Status::Complete;
    return ok;
}

} // namespace

HeadResult parseRequestHead(std::span<const char> input)
{
    const QByteArrayView data(input.data(), qsizetype(input.size()));
    qsizetype pos = 0;
    // RFC 9112 2.2: a server ignores at least one empty line before the request line. A few
    // CRLFs are skipped here and the request after them is checked whole; more are refused
    // (as a request line that is not one), so no upstream can start reading elsewhere.
    for (int blank = 0; blank < kMaxBlankLines && data.sliced(pos).startsWith("\r\n"); ++blank)
        pos += 2;

    HeadResult result;
    RequestHead &head = result.head;
    bool requestLineDone = false;
    QString authorityHost;
    int authorityPort = 0, defaultPort = 0;
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
        // Only CRLF ends a line: an upstream that also splits on a bare LF (or does not) would
        // otherwise read other headers, or another request, than the ones checked here.
        if (!line.endsWith('\r'))
            return invalid(QStringLiteral("a line of the request head ends in a bare LF (only CRLF is accepted)"));
        line.chop(1);
        if (line.size() > kMaxLine)
            return invalid(QStringLiteral("a line of the request head is longer than %1 bytes").arg(kMaxLine));
        if (line.contains('\r'))
            return invalid(QStringLiteral("a bare CR inside a line of the request head"));
        if (line.contains('\0'))
            return invalid(QStringLiteral("a NUL byte in the request head"));
        pos = nl + 1;
        if (!requestLineDone) {
            if (HeadResult r = parseRequestLine(line, head, &authorityHost, &authorityPort, &defaultPort);
                r.status == HeadResult::Status::Invalid)
                return r;
            requestLineDone = true;
            continue;
        }
        if (line.isEmpty())
            break; // end of the head
        if (HeadResult r = parseHeaderLine(line, head); r.status == HeadResult::Status::Invalid)
            return r;
    }
    if (HeadResult r = checkHead(head, authorityHost, authorityPort, defaultPort); r.status == HeadResult::Status::Invalid)
        return r;
    head.headEnd = int(pos);
    result.status = HeadResult::Status::Complete;
    return result;
}

Looks looksLikeRequest(QByteArrayView s)
{
    const qsizetype n = s.size();
    qsizetype i = 0;
    for (int blank = 0; blank < kMaxBlankLines && i < n && s.at(i) == '\r'; ++blank) {
        if (i + 1 == n)
            return Looks::Maybe;
        if (s.at(i + 1) != '\n')
            return Looks::No;
        i += 2;
    }
    // The method (a token), one space, the target (visible ASCII), one space. A field longer
    // than any real one is HTTP enough: the parser then says what is wrong with it.
    for (const auto &[limit, visible] : {std::pair{64, false}, std::pair{kMaxLine, true}}) {
        const qsizetype from = i;
        while (i < n && (visible ? quint8(s.at(i)) > 0x20 && quint8(s.at(i)) < 0x7f : isTchar(quint8(s.at(i))))) {
            if (++i - from > limit)
                return Looks::Yes;
        }
        if (i == n)
            return Looks::Maybe;
        if (i == from || s.at(i++) != ' ')
            return Looks::No;
    }
    static constexpr char kVersion[] = "HTTP/1.";
    for (const char expected : std::string_view(kVersion)) {
        if (i == n)
            return Looks::Maybe;
        if (s.at(i++) != expected)
            return Looks::No;
    }
    if (i == n)
        return Looks::Maybe;
    if (s.at(i) != '0' && s.at(i) != '1')
        return Looks::No;
    if (++i == n)
        return Looks::Maybe;
    return s.at(i) == '\r' || s.at(i) == '\n' ? Looks::Yes : Looks::No;
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

bool tunnelsOrEchoes(QByteArrayView method)
{
    for (const char *name : {"CONNECT", "TRACE", "TRACK"})
        if (method.compare(QByteArrayView(name), Qt::CaseInsensitive) == 0)
            return true;
    return false;
}

} // namespace airlock::http
