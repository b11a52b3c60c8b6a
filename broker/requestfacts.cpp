#include "requestfacts.h"

namespace airlock {

namespace {

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool unreserved(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

// `all`: decode every escape; otherwise only those of unreserved characters. *malformed: a
// '%' without two hex digits (kept as it is).
QByteArray decode(QByteArrayView in, bool all, bool *malformed)
{
    static const char hex[] = "0123456789ABCDEF";
    QByteArray out;
    out.reserve(in.size());
    for (qsizetype i = 0; i < in.size(); ++i) {
        const char c = in[i];
        const int hi = c == '%' && i + 2 < in.size() ? hexValue(in[i + 1]) : -1;
        const int lo = hi >= 0 ? hexValue(in[i + 2]) : -1;
        if (c != '%' || lo < 0) {
            if (c == '%' && malformed)
                *malformed = true;
            out.append(c);
            continue;
        }
        const char v = char(hi * 16 + lo);
        if (all || unreserved(v)) {
            out.append(v);
        } else {
            out.append('%');
            out.append(hex[hi]);
            out.append(hex[lo]);
        }
        i += 2;
    }
    return out;
}

// RFC 3986 5.2.4, on a path that starts with '/'.
QByteArray removeDotSegments(QByteArrayView path)
{
    QList<QByteArrayView> kept;
    qsizetype start = 1;
    bool trailingSlash = false;
    while (start <= path.size()) {
        qsizetype end = path.indexOf('/', start);
        if (end < 0)
            end = path.size();
        const QByteArrayView segment = path.sliced(start, end - start);
        const bool last = end == path.size();
        if (segment == ".") {
            trailingSlash = last;
        } else if (segment == "..") {
            if (!kept.isEmpty())
                kept.removeLast();
            trailingSlash = last;
        } else {
            kept.append(segment);
            trailingSlash = false;
        }
        start = end + 1;
    }
    QByteArray out;
    for (const QByteArrayView &s : kept) {
        out.append('/');
        out.append(s);
    }
    if (out.isEmpty() || trailingSlash)
        out.append('/');
    return out;
}

bool ambiguousPath(const QByteArray &path, bool malformed)
{
    if (malformed || !path.startsWith('/') || path.contains('\\') || path.contains("//"))
        return true;
    for (const char *escape : {"%00", "%2F", "%5C"}) {
        if (path.contains(escape))
            return true;
    }
    for (const QByteArrayView segment : path.split('/')) {
        if (segment == "." || segment == "..")
            return true;
    }
    return false;
}

bool endsWith(QByteArrayView text, QByteArrayView suffix, bool anyCase)
{
    return text.size() >= suffix.size() && text.last(suffix.size()).compare(suffix, anyCase ? Qt::CaseInsensitive : Qt::CaseSensitive) == 0;
}

QByteArray repoOf(QByteArrayView prefix, bool anyCase)
{
    while (prefix.startsWith('/'))
        prefix = prefix.sliced(1);
    while (prefix.endsWith('/'))
        prefix.chop(1);
    if (endsWith(prefix, ".git", anyCase))
        prefix.chop(4);
    return prefix.toByteArray();
}

// The `service` parameters of a query, raw and decoded.
QList<QByteArray> serviceParameters(QByteArrayView query)
{
    QList<QByteArray> values;
    for (const QByteArrayView part : query.toByteArray().split('&')) {
        if (part.startsWith("service="))
            values.append(part.sliced(8).toByteArray());
    }
    return values;
}

GitService serviceNamed(QByteArrayView value, bool anyCase)
{
    const Qt::CaseSensitivity cs = anyCase ? Qt::CaseInsensitive : Qt::CaseSensitive;
    if (value.compare("git-upload-pack", cs) == 0)
        return GitService::Fetch;
    if (value.compare("git-receive-pack", cs) == 0)
        return GitService::Push;
    return GitService::None;
}

// The strict reading: the method, the suffix and one `service` exactly as git sends them.
GitRequest strictGit(QByteArrayView method, const QByteArray &path, QByteArrayView query)
{
    GitService service = GitService::None;
    QByteArrayView suffix;
    if (method == "GET" && path.endsWith("/info/refs")) {
        const QList<QByteArray> values = serviceParameters(query);
        if (values.size() == 1)
            service = serviceNamed(values.first(), false);
        suffix = "/info/refs";
    } else if (method == "POST" && (path.endsWith("/git-upload-pack") || path.endsWith("/git-receive-pack"))) {
        suffix = path.endsWith("/git-upload-pack") ? QByteArrayView("/git-upload-pack") : QByteArrayView("/git-receive-pack");
        service = serviceNamed(suffix.sliced(1), false);
    }
    if (service == GitService::None)
        return {};
    const QByteArray repo = repoOf(QByteArrayView(path).chopped(suffix.size()), false);
    return repo.isEmpty() ? GitRequest{} : GitRequest{service, repo};
}

// Every service a lax server could take one reading for, whatever the method.
void laxGit(const QByteArray &path, QByteArrayView query, QList<GitRequest> *out)
{
    // Both spellings of the repository: without ".git" in any case, and as the strict reading has it.
    const auto add = [out](GitService service, QByteArrayView prefix) {
        for (bool anyCase : {true, false}) {
            const GitRequest g{service, repoOf(prefix, anyCase)};
            if (service != GitService::None && !g.repo.isEmpty() && !out->contains(g))
                out->append(g);
        }
    };
    for (QByteArrayView suffix : {QByteArrayView("/git-upload-pack"), QByteArrayView("/git-receive-pack")}) {
        if (endsWith(path, suffix, true))
            add(serviceNamed(suffix.sliced(1), true), QByteArrayView(path).chopped(suffix.size()));
    }
    if (endsWith(path, "/info/refs", true)) {
        const QByteArray decodedQuery = decode(query, true, nullptr);
        for (const QByteArray &q : {query.toByteArray(), decodedQuery}) {
            for (const QByteArray &value : serviceParameters(q))
                add(serviceNamed(value, true), QByteArrayView(path).chopped(10));
        }
    }
}

} // namespace

QByteArray gitServiceName(GitService service)
{
    switch (service) {
    case GitService::Fetch:
        return "fetch";
    case GitService::Push:
        return "push";
    case GitService::None:
        break;
    }
    return {};
}

GitService gitServiceFromName(QByteArrayView name)
{
    if (name == "fetch")
        return GitService::Fetch;
    if (name == "push")
        return GitService::Push;
    return GitService::None;
}

RequestFacts requestFacts(QByteArrayView method, QByteArrayView target)
{
    RequestFacts f;
    f.method = method.toByteArray();
    const qsizetype q = target.indexOf('?');
    const QByteArrayView rawPath = q < 0 ? target : target.first(q);
    const QByteArrayView query = q < 0 ? QByteArrayView() : target.sliced(q + 1);
    bool malformed = false;
    f.path = decode(rawPath, false, &malformed);
    f.ambiguous = ambiguousPath(f.path, malformed);
    const QByteArray decoded = decode(rawPath, true, nullptr);
    f.readings.append(f.path);
    for (const QByteArray &reading : {decoded, removeDotSegments(f.path), removeDotSegments(decoded)}) {
        if (!reading.isEmpty() && !f.readings.contains(reading))
            f.readings.append(reading);
    }
    if (!f.ambiguous)
        f.git = strictGit(method, f.path, query);
    for (const QByteArray &reading : std::as_const(f.readings))
        laxGit(reading, query, &f.gitReadings);
    return f;
}

} // namespace airlock
