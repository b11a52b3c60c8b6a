#include "tokenexchange.h"
#include "placeholder.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>
#include <algorithm>

namespace airlock::tokenexchange {

namespace {

struct Replacement {
    qsizetype at = 0;
    qsizetype length = 0;
    QByteArray with;
};

QByteArray applied(QByteArrayView body, QList<Replacement> replacements)
{
    std::sort(replacements.begin(), replacements.end(), [](const Replacement &a, const Replacement &b) { return a.at > b.at; });
    QByteArray out = body.toByteArray();
    for (const Replacement &r : replacements)
        out.replace(r.at, r.length, r.with);
    return out;
}

qsizetype occurrences(QByteArrayView haystack, QByteArrayView needle)
{
    qsizetype n = 0;
    for (qsizetype i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1))
        ++n;
    return n;
}

bool isJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The name of the JSON member whose string value starts right after `at - 1` (the opening
// quote at at - 1), when that member is a key of an object: `{ "name" : "` or `, "name" : "`.
std::optional<QByteArray> jsonMemberBefore(QByteArrayView body, qsizetype at)
{
    qsizetype i = at - 1;
    if (i < 0 || body[i] != '"')
        return std::nullopt;
    --i;
    while (i >= 0 && isJsonSpace(body[i]))
        --i;
    if (i < 0 || body[i] != ':')
        return std::nullopt;
    --i;
    while (i >= 0 && isJsonSpace(body[i]))
        --i;
    if (i < 0 || body[i] != '"')
        return std::nullopt;
    const qsizetype nameEnd = i;
    --i;
    while (i >= 0 && body[i] != '"') {
        if (body[i] == '\\')
            return std::nullopt; // an escaped name: not one of ours
        --i;
    }
    if (i < 0)
        return std::nullopt;
    const qsizetype nameStart = i + 1;
    --i;
    while (i >= 0 && isJsonSpace(body[i]))
        --i;
    if (i < 0 || (body[i] != '{' && body[i] != ','))
        return std::nullopt;
    return body.sliced(nameStart, nameEnd - nameStart).toByteArray();
}

std::optional<QJsonObject> jsonObject(QByteArrayView body)
{
    if (body.size() > kMaxBody)
        return std::nullopt;
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(body.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return std::nullopt;
    return doc.object();
}

// The form's field holding the value that starts at `at` and runs `length` bytes, if it is
// a whole value: `name=VALUE` at the start or after '&', and '&' or the end after it.
std::optional<QByteArray> formFieldAt(QByteArrayView body, qsizetype at, qsizetype length)
{
    const qsizetype end = at + length;
    if (end != body.size() && body[end] != '&')
        return std::nullopt;
    if (at < 2 || body[at - 1] != '=')
        return std::nullopt;
    qsizetype start = at - 1;
    while (start > 0 && body[start - 1] != '&')
        --start;
    return QByteArray::fromPercentEncoding(body.sliced(start, at - 1 - start).toByteArray().replace('+', ' '));
}

std::optional<QDateTime> jwtExpiry(QByteArrayView claimsPart)
{
    const QByteArray json = QByteArray::fromBase64(claimsPart.toByteArray(), QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    const std::optional<QJsonObject> claims = jsonObject(json);
    if (!claims || !claims->value(QLatin1String("exp")).isDouble())
        return std::nullopt;
    return QDateTime::fromSecsSinceEpoch(qint64(claims->value(QLatin1String("exp")).toDouble()), Qt::UTC);
}

} // namespace

BodyKind kindOf(QByteArrayView contentType)
{
    const QByteArray type = contentType.toByteArray().split(';').value(0).trimmed().toLower();
    if (type == "application/json" || type.endsWith("+json"))
        return BodyKind::Json;
    if (type == "application/x-www-form-urlencoded")
        return BodyKind::Form;
    return BodyKind::Other;
}

bool isTokenText(QByteArrayView value)
{
    return !value.isEmpty() && std::all_of(value.begin(), value.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
               c == '~' || c == '+' || c == '/' || c == '=';
    });
}

QString grantType(QByteArrayView body, BodyKind kind)
{
    if (body.size() > kMaxBody)
        return {};
    if (kind == BodyKind::Json) {
        const std::optional<QJsonObject> o = jsonObject(body);
        return o ? o->value(QLatin1String("grant_type")).toString() : QString();
    }
    if (kind != BodyKind::Form)
        return {};
    for (const QByteArray &pair : body.toByteArray().split('&')) {
        const qsizetype eq = pair.indexOf('=');
        if (eq > 0 && pair.left(eq) == "grant_type")
            return QString::fromUtf8(QByteArray::fromPercentEncoding(pair.mid(eq + 1).replace('+', ' ')));
    }
    return {};
}

Swapped swapSent(QByteArrayView body, BodyKind kind, const QList<SentToken> &tokens)
{
    Swapped out;
    if (body.size() > kMaxBody || kind == BodyKind::Other)
        return {body.toByteArray(), {}};
    const std::optional<QJsonObject> json = kind == BodyKind::Json ? jsonObject(body) : std::nullopt;
    if (kind == BodyKind::Json && !json)
        return {body.toByteArray(), {}};
    QList<Replacement> replacements;
    for (const SentToken &t : tokens) {
        if (t.placeholder.isEmpty() || occurrences(body, t.placeholder) != 1 || !isTokenText(t.real))
            continue;
        const qsizetype at = body.indexOf(t.placeholder);
        const qsizetype end = at + t.placeholder.size();
        std::optional<QByteArray> field;
        if (kind == BodyKind::Json) {
            if (end < body.size() && body[end] == '"')
                field = jsonMemberBefore(body, at);
            // The parsed document must agree: the member is top-level and holds exactly the placeholder.
            if (field && json->value(QString::fromLatin1(*field)).toString().toLatin1() != t.placeholder)
                field.reset();
        } else {
            field = formFieldAt(body, at, t.placeholder.size());
        }
        if (!field || !t.fields.contains(QString::fromLatin1(*field)))
            continue;
        const QByteArray real = kind == BodyKind::Form ? QUrl::toPercentEncoding(QString::fromLatin1(t.real.toByteArray()))
                                                       : t.real.toByteArray();
        replacements.append({at, t.placeholder.size(), real});
        out.secrets << t.secret;
    }
    out.body = applied(body, replacements);
    return out;
}

Capture capture(const LoginSpec &spec, const QString &grant, QByteArrayView answer, const QDateTime &now,
                const PlaceholderFor &placeholderFor)
{
    Capture out;
    if (answer.size() > kMaxBody) {
        out.error = QStringLiteral("the token endpoint's answer is larger than %1 KiB").arg(kMaxBody / 1024);
        return out;
    }
    const std::optional<QJsonObject> o = jsonObject(answer);
    if (!o) {
        out.error = QStringLiteral("the token endpoint's answer is not a JSON object");
        return out;
    }
    QDateTime expiresIn;
    if (const QJsonValue v = o->value(spec.expiresField); !spec.expiresField.isEmpty() && v.isDouble() && v.toDouble() > 0 &&
                                                          v.toDouble() < 10.0 * 365 * 86400)
        expiresIn = now.addSecs(qint64(v.toDouble()));
    QList<Replacement> replacements;
    for (auto it = o->begin(); it != o->end(); ++it) {
        const LoginToken *token = spec.tokenFor(it.key(), grant);
        if (!token || it.value().isNull())
            continue;
        const QByteArray real = it.value().toString().toUtf8();
        const auto refuse = [&](const QString &why) {
            out.error = QStringLiteral("token %1 of the answer %2").arg(it.key(), why);
            out.tokens.clear();
        };
        if (!it.value().isString() || !isTokenText(real) || real.size() < kMinSecretLength || real.size() > kMaxSecretLength) {
            refuse(QStringLiteral("is not a token Airlock can hold (%1 to %2 characters of base64 or JWT text)")
                       .arg(kMinSecretLength).arg(kMaxSecretLength));
            return out;
        }
        const QByteArray key = '"' + it.key().toUtf8() + '"';
        if (occurrences(answer, real) != 1 || occurrences(answer, key) != 1) {
            refuse(QStringLiteral("appears more than once"));
            return out;
        }
        CapturedToken c{token, real, {}, {}};
        if (token->jwt) {
            const QList<QByteArray> parts = real.split('.');
            if (parts.size() != 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].size() < kMinSecretLength) {
                refuse(QStringLiteral("is declared a JWT but is not one (header.claims.signature)"));
                return out;
            }
            c.placeholder = makeJwtPlaceholder(real);
            c.expires = jwtExpiry(parts[1]).value_or(token->hosts.isEmpty() ? QDateTime() : expiresIn);
        } else {
            c.placeholder = placeholderFor(*token, real);
            c.expires = token->hosts.isEmpty() ? QDateTime() : expiresIn;
        }
        replacements.append({answer.indexOf(real), real.size(), c.placeholder});
        out.tokens.append(std::move(c));
    }
    out.body = applied(answer, replacements);
    return out;
}

} // namespace airlock::tokenexchange
