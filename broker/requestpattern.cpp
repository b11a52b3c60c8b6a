#include "requestpattern.h"

namespace airlock {

namespace {

Error invalid(const QString &what, const QString &hint)
{
    return Error{what, hint, ErrorKind::InvalidParams};
}

bool tokenChar(QChar c)
{
    return c.isLetter() && c.unicode() < 128;
}

// The characters a path pattern may hold: RFC 3986 pchar and '/', '*' and escapes.
bool pathChar(char c)
{
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
        return true;
    return QByteArrayView("-._~!$&'()*+,;=:@/%").contains(c);
}

bool repoChar(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || QByteArrayView("-._/*").contains(c);
}

qsizetype literalLength(QByteArrayView pattern)
{
    return pattern.size() - pattern.count('*');
}

} // namespace

bool globMatch(QByteArrayView pattern, QByteArrayView text, Qt::CaseSensitivity cs)
{
    const auto same = [cs](char a, char b) {
        if (cs == Qt::CaseInsensitive && a >= 'A' && a <= 'Z')
            a = char(a - 'A' + 'a');
        if (cs == Qt::CaseInsensitive && b >= 'A' && b <= 'Z')
            b = char(b - 'A' + 'a');
        return a == b;
    };
    qsizetype p = 0, t = 0, star = -1, resume = 0;
    while (t < text.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            resume = t;
        } else if (p < pattern.size() && same(pattern[p], text[t])) {
            ++p;
            ++t;
        } else if (star >= 0) {
            p = star + 1;
            t = ++resume;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*')
        ++p;
    return p == pattern.size();
}

Result<RequestPattern> RequestPattern::parse(const RequestRule &rule)
{
    RequestPattern out;
    out.m_rule = rule;
    if (!rule.git.isEmpty()) {
        out.m_git = gitServiceFromName(rule.git.toLatin1());
        if (out.m_git == GitService::None || !rule.git.isSimpleText())
            return invalid(QStringLiteral("unknown git service '%1'").arg(rule.git),
                           QStringLiteral("write fetch (clone, fetch, pull) or push"));
        if (!rule.method.isEmpty() || !rule.path.isEmpty())
            return invalid(QStringLiteral("a git rule names no method or path"),
                           QStringLiteral("git fetch and push are their own requests; give --git with --repo, or --method with --path"));
    } else if (!rule.repo.isEmpty()) {
        return invalid(QStringLiteral("a repository pattern belongs to a git rule"), QStringLiteral("add --git fetch or --git push"));
    }
    if (!rule.method.isEmpty()) {
        if (rule.method.size() > kMaxMethod || !std::all_of(rule.method.begin(), rule.method.end(), tokenChar))
            return invalid(QStringLiteral("'%1' is not an HTTP method").arg(rule.method.left(kMaxMethod)),
                           QStringLiteral("write a method such as GET, HEAD, POST, PUT, PATCH or DELETE"));
        out.m_method = rule.method.toUpper().toLatin1();
        if (out.m_method == "CONNECT" || out.m_method == "TRACE")
            return invalid(QStringLiteral("%1 requests are always refused on intercepted hosts").arg(QString::fromLatin1(out.m_method)), {});
        out.m_rule.method = QString::fromLatin1(out.m_method);
    }
    if (!rule.path.isEmpty()) {
        const QByteArray raw = rule.path.toLatin1();
        if (rule.path.size() > kMaxPath || !rule.path.startsWith(QLatin1Char('/')) || QString::fromLatin1(raw) != rule.path
            || !std::all_of(raw.begin(), raw.end(), pathChar))
            return invalid(QStringLiteral("'%1' is not a path pattern").arg(rule.path.left(80)),
                           QStringLiteral("start with '/', at most %1 characters of a URL path ('*' for any run, no query); "
                                          "escape others as %XX").arg(kMaxPath));
        const RequestFacts asPath = requestFacts("GET", raw);
        if (asPath.ambiguous)
            return invalid(QStringLiteral("path pattern '%1' has an empty or dot segment, or an escaped '/' or '\\'").arg(rule.path),
                           QStringLiteral("write the path as the request sends it, without '//', '.' or '..' segments"));
        out.m_path = asPath.path;
        out.m_rule.path = QString::fromLatin1(out.m_path);
    }
    if (!rule.repo.isEmpty()) {
        QByteArray repo = rule.repo.toLatin1();
        const bool latin1 = QString::fromLatin1(repo) == rule.repo;
        if (repo.endsWith(".git")) // checked as it is kept: "a/.git" would be kept as "a/"
            repo.chop(4);
        if (rule.repo.size() > kMaxRepo || !latin1 || repo.isEmpty() || repo.startsWith('/') || repo.endsWith('/')
            || !std::all_of(repo.begin(), repo.end(), repoChar))
            return invalid(QStringLiteral("'%1' is not a repository pattern").arg(rule.repo.left(80)),
                           QStringLiteral("write OWNER/NAME, '*' for any run (myorg/*), without a leading '/'"));
        out.m_repo = repo;
        out.m_rule.repo = QString::fromLatin1(repo);
    }
    if (out.m_rule.isEmpty())
        return invalid(QStringLiteral("a request rule needs a method, a path or a git service"), {});
    return out;
}

bool RequestPattern::matches(const RequestFacts &facts, bool allow) const
{
    const Qt::CaseSensitivity cs = allow ? Qt::CaseSensitive : Qt::CaseInsensitive;
    if (m_git != GitService::None) {
        const auto fits = [&](const GitRequest &g) {
            return g.service == m_git && (m_repo.isEmpty() || globMatch(m_repo, g.repo, cs));
        };
        if (allow)
            return fits(facts.git);
        return std::any_of(facts.gitReadings.begin(), facts.gitReadings.end(), fits);
    }
    if (!m_method.isEmpty() && QByteArrayView(m_method).compare(facts.method, cs) != 0)
        return false;
    if (m_path.isEmpty())
        return true;
    if (allow)
        return !facts.ambiguous && globMatch(m_path, facts.path, cs);
    return std::any_of(facts.readings.begin(), facts.readings.end(), [&](const QByteArray &r) { return globMatch(m_path, r, cs); });
}

int RequestPattern::specificity() const
{
    const int kind = m_git != GitService::None ? 2 : 1;
    const qsizetype literal = m_git != GitService::None ? literalLength(m_repo) : literalLength(m_path);
    return kind * 100000 + int(literal) * 2 + (m_method.isEmpty() ? 0 : 1);
}

} // namespace airlock
