#include "secrethosts.h"

#include "hostpattern.h"

#include <QHostAddress>

namespace airlock::secrethosts {

namespace {
bool validLabel(QStringView label)
{
    if (label.isEmpty() || label.size() > 63 || label.front() == u'-' || label.back() == u'-')
        return false;
    for (QChar c : label) {
        const char16_t u = c.unicode();
        if (!((u >= u'a' && u <= u'z') || (u >= u'0' && u <= u'9') || u == u'-'))
            return false;
    }
    return true;
}
} // namespace

Result<QString> normalize(const QString &pattern)
{
    QString p = pattern.trimmed().toLower();
    if (p.endsWith(QLatin1Char('.')))
        p.chop(1);
    const auto bad = [&](const QString &why) {
        return Error{QStringLiteral("invalid host pattern \"%1\"").arg(pattern), why, ErrorKind::InvalidParams};
    };
    if (p.isEmpty())
        return bad(QStringLiteral("it is empty; give a host name such as api.example.com or *.example.com"));
    if (QHostAddress(p).protocol() != QAbstractSocket::UnknownNetworkLayerProtocol)
        return bad(QStringLiteral("secrets are bound to host names (TLS carries the name, not the address); "
                                  "give the name the agent connects to"));
    const bool wildcard = p.startsWith(QLatin1String("*."));
    const QString name = wildcard ? p.mid(2) : p;
    if (name.contains(QLatin1Char('*')))
        return bad(QStringLiteral("a wildcard may only be a leading \"*.\" (e.g. *.example.com)"));
    if (name.size() > 253)
        return bad(QStringLiteral("the name is longer than 253 characters"));
    const QStringList labels = name.split(QLatin1Char('.'));
    for (const QString &label : labels) {
        if (!validLabel(label))
            return bad(QStringLiteral("\"%1\" is not a valid DNS label (letters, digits and inner hyphens, "
                                      "at most 63)").arg(label));
    }
    if (wildcard && labels.size() < 2)
        return bad(QStringLiteral("\"*.%1\" would bind the secret to a whole top-level domain; name the "
                                  "service's own domain (e.g. *.example.com)").arg(name));
    return p;
}

bool matches(const QString &pattern, const QString &host)
{
    // The rules' matcher (broker/hostpattern, anchored *.domain) decides, so both agree.
    const Result<HostPattern> p = HostPattern::parse(pattern);
    return p && p->kind() != HostPattern::Kind::Any && p->matchesHost(normalizeHost(host));
}

bool matchesAny(const QStringList &patterns, const QString &host)
{
    for (const QString &p : patterns) {
        if (matches(p, host))
            return true;
    }
    return false;
}

} // namespace airlock::secrethosts
