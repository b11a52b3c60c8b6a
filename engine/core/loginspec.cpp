#include "core/loginspec.h"
#include "core/hostname.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <QUrl>

namespace airlock {

namespace {

constexpr int kMaxTokenUrls = 8;
constexpr int kMaxTokens = 16;

Error loginError(const QString &source, const QString &why)
{
    return Error{QStringLiteral("invalid agent template %1").arg(source), QStringLiteral("\"login\": %1").arg(why),
                 ErrorKind::InvalidParams};
}

bool validWord(const QString &s, const char *pattern)
{
    return QRegularExpression(QLatin1String(pattern)).match(s).hasMatch();
}

Result<QStringList> strings(const QJsonObject &o, const char *key, const char *pattern, const QString &source)
{
    QStringList out;
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined())
        return out;
    if (!v.isArray() || v.toArray().size() > kMaxTokens)
        return loginError(source, QStringLiteral("\"%1\" must be a short array of strings").arg(QLatin1String(key)));
    for (const QJsonValue &s : v.toArray()) {
        if (!s.isString() || !validWord(s.toString(), pattern))
            return loginError(source, QStringLiteral("\"%1\" holds an invalid entry").arg(QLatin1String(key)));
        out << s.toString();
    }
    return out;
}

Result<LoginToken> tokenFromJson(const QJsonObject &o, const QString &source)
{
    static const QSet<QString> known{QStringLiteral("field"), QStringLiteral("name"), QStringLiteral("grant"), QStringLiteral("jwt"),
                                     QStringLiteral("hosts"), QStringLiteral("header"), QStringLiteral("sent_in")};
    for (const QString &k : o.keys())
        if (!known.contains(k))
            return loginError(source, QStringLiteral("a token has an unknown key '%1'").arg(k));
    LoginToken t;
    t.field = o.value(QLatin1String("field")).toString();
    t.name = o.value(QLatin1String("name")).toString();
    t.grant = o.value(QLatin1String("grant")).toString();
    t.jwt = o.value(QLatin1String("jwt")).toBool();
    t.header = o.value(QLatin1String("header")).toString();
    if (!validWord(t.field, "^[A-Za-z0-9_]{1,64}$") || !validWord(t.name, "^[a-z0-9][a-z0-9-]{0,31}$"))
        return loginError(source, QStringLiteral("a token needs \"field\" (letters, digits, _) and \"name\" ([a-z0-9-])"));
    if (!t.grant.isEmpty() && !validWord(t.grant, "^[A-Za-z0-9_:.-]{1,128}$"))
        return loginError(source, QStringLiteral("token %1: \"grant\" is not a grant_type").arg(t.name));
    Result<QStringList> hosts = strings(o, "hosts", "^[a-z0-9.-]{1,253}$", source);
    if (!hosts)
        return hosts.error();
    for (const QString &h : *hosts)
        t.hosts << normalizeHost(h);
    Result<QStringList> sentIn = strings(o, "sent_in", "^[A-Za-z0-9_]{1,64}$", source);
    if (!sentIn)
        return sentIn.error();
    t.sentIn = *sentIn;
    if (t.hosts.isEmpty() != t.header.isEmpty() || (!t.header.isEmpty() && (!t.header.contains(QLatin1String("{}")) || !t.header.contains(u':'))))
        return loginError(source, QStringLiteral("token %1: \"hosts\" and \"header\" ('Name: ... {}') go together").arg(t.name));
    if (t.hosts.isEmpty() && t.sentIn.isEmpty())
        return loginError(source, QStringLiteral("token %1 is sent nowhere: give \"hosts\" and \"header\", or \"sent_in\"").arg(t.name));
    return t;
}

} // namespace

QStringList LoginSpec::hosts() const
{
    QStringList out;
    for (const LoginUrl &u : tokenUrls)
        if (!out.contains(u.host))
            out << u.host;
    for (const LoginToken &t : tokens)
        for (const QString &h : t.hosts)
            if (!out.contains(h))
                out << h;
    return out;
}

bool LoginSpec::isTokenUrl(const QString &host, const QString &path) const
{
    const QString h = normalizeHost(host);
    for (const LoginUrl &u : tokenUrls)
        if (u.host == h && u.path == path)
            return true;
    return false;
}

const LoginToken *LoginSpec::tokenFor(const QString &field, const QString &grant) const
{
    const LoginToken *any = nullptr;
    for (const LoginToken &t : tokens) {
        if (t.field != field)
            continue;
        if (!t.grant.isEmpty() && t.grant == grant)
            return &t;
        if (t.grant.isEmpty())
            any = &t;
    }
    return any; // an answer to a grant another entry names was that entry's alone (above)
}

Result<LoginSpec> LoginSpec::fromJson(const QString &loginName, const QJsonObject &o, const QString &source)
{
    static const QSet<QString> known{QStringLiteral("token_urls"), QStringLiteral("expires_in"), QStringLiteral("tokens"),
                                     QStringLiteral("command"), QStringLiteral("credentials_file")};
    for (const QString &k : o.keys())
        if (!known.contains(k))
            return loginError(source, QStringLiteral("unknown key '%1'").arg(k));
    LoginSpec spec;
    spec.name = loginName;
    const QJsonArray urls = o.value(QLatin1String("token_urls")).toArray();
    if (urls.isEmpty() || urls.size() > kMaxTokenUrls)
        return loginError(source, QStringLiteral("\"token_urls\" must list 1 to %1 https URLs").arg(kMaxTokenUrls));
    for (const QJsonValue &v : urls) {
        const QUrl url(v.toString(), QUrl::StrictMode);
        if (!url.isValid() || url.scheme() != QLatin1String("https") || url.host().isEmpty() || url.path().isEmpty() ||
            url.hasQuery() || url.hasFragment() || !url.userInfo().isEmpty() || (url.port() != -1 && url.port() != 443))
            return loginError(source, QStringLiteral("'%1' is not an https URL with a path (no port, query or user)").arg(v.toString()));
        spec.tokenUrls.append({normalizeHost(url.host()), url.path()});
    }
    spec.expiresField = o.value(QLatin1String("expires_in")).toString();
    if (!spec.expiresField.isEmpty() && !validWord(spec.expiresField, "^[A-Za-z0-9_]{1,64}$"))
        return loginError(source, QStringLiteral("\"expires_in\" must name a field"));
    const QJsonArray tokens = o.value(QLatin1String("tokens")).toArray();
    if (tokens.isEmpty() || tokens.size() > kMaxTokens)
        return loginError(source, QStringLiteral("\"tokens\" must list 1 to %1 tokens").arg(kMaxTokens));
    QSet<QString> names;
    QSet<QString> fieldGrants;
    for (const QJsonValue &v : tokens) {
        Result<LoginToken> t = tokenFromJson(v.toObject(), source);
        if (!t)
            return t.error();
        if (names.contains(t->name) || fieldGrants.contains(t->field + u' ' + t->grant))
            return loginError(source, QStringLiteral("token %1 is declared twice").arg(t->name));
        names.insert(t->name);
        fieldGrants.insert(t->field + u' ' + t->grant);
        spec.tokens.append(*t);
    }
    spec.command = o.value(QLatin1String("command")).toString();
    if (o.contains(QLatin1String("command")) && (!o.value(QLatin1String("command")).isString() || spec.command.trimmed().isEmpty()))
        return loginError(source, QStringLiteral("\"command\" must be the command line that signs in"));
    if (spec.command.size() > 256 || spec.command.contains(QLatin1Char('\n')) || spec.command.contains(QChar(0)))
        return loginError(source, QStringLiteral("\"command\" must be one line of at most 256 characters"));
    if (const QJsonValue file = o.value(QLatin1String("credentials_file")); !file.isUndefined()) {
        Result<LoginFile> f = LoginFile::fromJson(file, spec.tokens, source);
        if (!f)
            return f.error();
        spec.credentialsFile = *f;
    }
    return spec;
}

QJsonObject LoginSpec::toJson() const
{
    QJsonArray urls;
    for (const LoginUrl &u : tokenUrls)
        urls.append(QStringLiteral("https://%1%2").arg(u.host, u.path));
    QJsonArray tokenList;
    for (const LoginToken &t : tokens) {
        QJsonObject o{{QStringLiteral("field"), t.field}, {QStringLiteral("name"), t.name}};
        if (!t.grant.isEmpty())
            o.insert(QStringLiteral("grant"), t.grant);
        if (t.jwt)
            o.insert(QStringLiteral("jwt"), true);
        if (!t.hosts.isEmpty()) {
            o.insert(QStringLiteral("hosts"), QJsonArray::fromStringList(t.hosts));
            o.insert(QStringLiteral("header"), t.header);
        }
        if (!t.sentIn.isEmpty())
            o.insert(QStringLiteral("sent_in"), QJsonArray::fromStringList(t.sentIn));
        tokenList.append(o);
    }
    QJsonObject o{{QStringLiteral("token_urls"), urls}, {QStringLiteral("tokens"), tokenList}};
    if (!expiresField.isEmpty())
        o.insert(QStringLiteral("expires_in"), expiresField);
    if (!command.isEmpty())
        o.insert(QStringLiteral("command"), command);
    if (credentialsFile)
        o.insert(QStringLiteral("credentials_file"), credentialsFile->toJson());
    return o;
}

} // namespace airlock
