#include "core/loginfile.h"
#include "core/loginspec.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>

namespace airlock {

namespace {

Error fileError(const QString &where, const QString &why)
{
    return Error{QStringLiteral("invalid agent template %1").arg(where), QStringLiteral("\"login\": \"credentials_file\": %1").arg(why),
                 ErrorKind::InvalidParams};
}

const LoginToken *declared(const QList<LoginToken> &tokens, const QString &name)
{
    for (const LoginToken &t : tokens)
        if (t.name == name)
            return &t;
    return nullptr;
}

bool isDirective(const QJsonObject &o)
{
    for (auto it = o.begin(); it != o.end(); ++it)
        if (it.key().startsWith(QLatin1Char('$')))
            return true;
    return false;
}

// A directive is one '$' key (and "optional" beside "$token"), naming a declared token.
QString directiveProblem(const QJsonObject &o, const QList<LoginToken> &tokens)
{
    const QStringList keys = o.keys();
    const QString verb = keys.contains(QLatin1String("$token")) ? QStringLiteral("$token") : keys.value(0);
    const bool optional = o.contains(QLatin1String("optional"));
    if (keys.size() != 1 + (optional ? 1 : 0) || (optional && (verb != QLatin1String("$token") || !o.value(QLatin1String("optional")).isBool())))
        return QStringLiteral("a directive is one '$' key (\"optional\": true only beside \"$token\"), got %1")
            .arg(QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact)));
    const QJsonValue arg = o.value(verb);
    if (verb == QLatin1String("$now"))
        return arg.toString() == QLatin1String("iso") ? QString() : QStringLiteral("\"$now\" takes \"iso\"");
    if (verb == QLatin1String("$token") || verb == QLatin1String("$expires_ms"))
        return declared(tokens, arg.toString()) ? QString() : QStringLiteral("%1 names no declared token: %2").arg(verb, arg.toString());
    if (verb == QLatin1String("$claim")) {
        const QJsonArray path = arg.toArray();
        const LoginToken *t = declared(tokens, path.at(0).toString());
        if (path.size() < 2 || path.size() > LoginFile::kMaxDepth || !t)
            return QStringLiteral("\"$claim\" takes [TOKEN, KEY, ...] naming a declared token");
        if (!t->jwt)
            return QStringLiteral("\"$claim\" reads a JWT and token %1 is not declared one").arg(t->name);
        for (const QJsonValue &k : path)
            if (!k.isString() || k.toString().isEmpty())
                return QStringLiteral("\"$claim\" takes strings");
        return {};
    }
    return QStringLiteral("unknown directive %1 (there are $token, $expires_ms, $now, $claim)").arg(verb);
}

QString shapeProblem(const QJsonValue &v, const QList<LoginToken> &tokens, int depth)
{
    if (depth > LoginFile::kMaxDepth)
        return QStringLiteral("nested deeper than %1").arg(LoginFile::kMaxDepth);
    if (v.isArray()) {
        for (const QJsonValue &e : v.toArray())
            if (QString p = shapeProblem(e, tokens, depth + 1); !p.isEmpty())
                return p;
    } else if (v.isObject()) {
        const QJsonObject o = v.toObject();
        if (isDirective(o))
            return directiveProblem(o, tokens);
        for (auto it = o.begin(); it != o.end(); ++it)
            if (QString p = shapeProblem(it.value(), tokens, depth + 1); !p.isEmpty())
                return p;
    }
    return {};
}

// The claims part of a JWT (header.claims.signature) as JSON; empty when it is not one.
QJsonObject jwtClaims(const QByteArray &jwt)
{
    const QList<QByteArray> parts = jwt.split('.');
    if (parts.size() != 3)
        return {};
    return QJsonDocument::fromJson(QByteArray::fromBase64(parts[1], QByteArray::Base64UrlEncoding)).object();
}

struct Renderer {
    const QMap<QString, HeldLoginToken> &held;
    const QDateTime &now;
    bool missing = false;

    QJsonValue directive(const QJsonObject &o)
    {
        if (o.contains(QLatin1String("$now")))
            return now.toUTC().toString(Qt::ISODateWithMs);
        if (o.contains(QLatin1String("$claim"))) {
            const QJsonArray path = o.value(QLatin1String("$claim")).toArray();
            QJsonValue v = jwtClaims(held.value(path.at(0).toString()).placeholder);
            for (qsizetype i = 1; i < path.size(); ++i)
                v = v.toObject().value(path.at(i).toString());
            if (v.isUndefined())
                return QJsonValue::Null;
            return v;
        }
        const bool expiry = o.contains(QLatin1String("$expires_ms"));
        const QString name = o.value(expiry ? QLatin1String("$expires_ms") : QLatin1String("$token")).toString();
        const auto it = held.constFind(name);
        if (it == held.constEnd()) {
            missing = missing || !o.value(QLatin1String("optional")).toBool();
            return QJsonValue::Null;
        }
        if (expiry)
            return it->expires.isValid() ? QJsonValue(double(it->expires.toMSecsSinceEpoch())) : QJsonValue::Null;
        return QString::fromLatin1(it->placeholder);
    }

    QJsonValue value(const QJsonValue &v)
    {
        if (v.isArray()) {
            QJsonArray out;
            for (const QJsonValue &e : v.toArray())
                out.append(value(e));
            return out;
        }
        if (!v.isObject())
            return v;
        const QJsonObject o = v.toObject();
        if (isDirective(o))
            return directive(o);
        QJsonObject out;
        for (auto it = o.begin(); it != o.end(); ++it)
            out.insert(it.key(), value(it.value()));
        return out;
    }
};

} // namespace

Result<LoginFile> LoginFile::fromJson(const QJsonValue &v, const QList<LoginToken> &tokens, const QString &where)
{
    const QJsonObject o = v.toObject();
    if (!v.isObject() || o.size() != 2 || !o.value(QLatin1String("path")).isString() || !o.value(QLatin1String("json")).isObject())
        return fileError(where, QStringLiteral("must be {\"path\": \"/absolute/path\", \"json\": {...}}"));
    LoginFile f;
    f.path = o.value(QLatin1String("path")).toString();
    if (!f.path.startsWith(QLatin1Char('/')) || f.path.size() > 1024 || QDir::cleanPath(f.path) != f.path || f.path == QLatin1String("/") ||
        f.path.contains(QLatin1Char('\n')) || f.path.contains(QChar(0)))
        return fileError(where, QStringLiteral("\"path\" must be an absolute, clean file path in the guest, got \"%1\"").arg(f.path));
    f.shape = o.value(QLatin1String("json")).toObject();
    if (isDirective(f.shape))
        return fileError(where, QStringLiteral("\"json\" is the file's object, not a directive"));
    if (QJsonDocument(f.shape).toJson(QJsonDocument::Compact).size() > kMaxShapeBytes)
        return fileError(where, QStringLiteral("\"json\" is larger than %1 KiB").arg(kMaxShapeBytes / 1024));
    if (const QString p = shapeProblem(f.shape, tokens, 0); !p.isEmpty())
        return fileError(where, p);
    return f;
}

QJsonObject LoginFile::toJson() const
{
    return {{QStringLiteral("path"), path}, {QStringLiteral("json"), shape}};
}

std::optional<QByteArray> LoginFile::render(const QMap<QString, HeldLoginToken> &held, const QDateTime &now) const
{
    Renderer r{held, now};
    const QJsonValue out = r.value(shape);
    if (r.missing)
        return std::nullopt;
    return QJsonDocument(out.toObject()).toJson(QJsonDocument::Indented);
}

} // namespace airlock
