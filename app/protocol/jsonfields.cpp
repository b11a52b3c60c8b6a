#include "protocol/jsonfields.h"
#include "core/isotime.h"

#include <cmath>

namespace airlock::proto {

Error invalidField(const QString &field, const QString &why)
{
    return Error{QStringLiteral("invalid value"), field.isEmpty() ? why : QStringLiteral("\"%1\" %2").arg(field, why), kInvalidPayload};
}

void JsonReader::fail(const char *key, const QString &why)
{
    if (!m_error)
        m_error = Error{QStringLiteral("invalid %1").arg(QLatin1String(m_payload)),
                        QStringLiteral("\"%1\" %2").arg(QLatin1String(key), why), kInvalidPayload};
}

void JsonReader::nested(const char *key, const Error &inner)
{
    // "secret": "name" is missing  /  "rules": "host" must be a string
    if (!m_error)
        m_error = Error{QStringLiteral("invalid %1").arg(QLatin1String(m_payload)),
                        QStringLiteral("\"%1\": %2").arg(QLatin1String(key), inner.why), kInvalidPayload};
}

bool JsonReader::absent(const char *key) const
{
    const QJsonValue v = m_object.value(QLatin1String(key));
    return v.isUndefined() || v.isNull();
}

QJsonValue JsonReader::present(const char *key, bool (QJsonValue::*is)() const, const char *type)
{
    const QJsonValue v = m_object.value(QLatin1String(key));
    if (v.isUndefined()) {
        fail(key, QStringLiteral("is missing"));
        return {};
    }
    if (!(v.*is)()) {
        fail(key, QStringLiteral("must be %1").arg(QLatin1String(type)));
        return {};
    }
    return v;
}

void JsonReader::read(const char *key, QString &out) { out = present(key, &QJsonValue::isString, "a string").toString(); }

void JsonReader::read(const char *key, qint64 &out)
{
    const double d = present(key, &QJsonValue::isDouble, "an integer").toDouble();
    if (d != std::floor(d) || std::fabs(d) > 9007199254740992.0) // 2^53: beyond, a double is not an integer
        fail(key, QStringLiteral("must be an integer"));
    out = failed() ? 0 : qint64(d);
}

void JsonReader::read(const char *key, int &out)
{
    qint64 wide = 0;
    read(key, wide);
    out = int(wide);
}

void JsonReader::read(const char *key, bool &out) { out = present(key, &QJsonValue::isBool, "true or false").toBool(); }

void JsonReader::read(const char *key, QStringList &out)
{
    for (const QJsonValue &item : present(key, &QJsonValue::isArray, "an array of strings").toArray()) {
        if (!item.isString()) {
            fail(key, QStringLiteral("must be an array of strings"));
            out.clear();
            return;
        }
        out << item.toString();
    }
}

void JsonReader::read(const char *key, QMap<QString, QString> &out)
{
    const QJsonObject o = present(key, &QJsonValue::isObject, "an object of strings").toObject();
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!it.value().isString()) {
            fail(key, QStringLiteral("must be an object of strings"));
            out.clear();
            return;
        }
        out.insert(it.key(), it.value().toString());
    }
}

void JsonReader::read(const char *key, QDateTime &out)
{
    QString text;
    read(key, text);
    if (failed())
        return;
    out = parseIsoTime(text);
    if (!out.isValid())
        fail(key, QStringLiteral("must be an ISO 8601 time such as 2026-11-30T15:43:37Z"));
}

void JsonReader::read(const char *key, QByteArray &out)
{
    QString text;
    read(key, text);
    auto decoded = QByteArray::fromBase64Encoding(text.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!failed() && !decoded)
        fail(key, QStringLiteral("must be base64"));
    out = decoded.decoded;
}

void JsonReader::read(const char *key, QJsonObject &out) { out = present(key, &QJsonValue::isObject, "an object").toObject(); }

// An enum by its wire name; fromString's error becomes the field's.
template <typename E>
void JsonReader::readEnum(const char *key, E &out, Result<E> (*fromString)(const QString &, const QString &))
{
    QString text;
    read(key, text);
    if (failed())
        return;
    Result<E> r = fromString(text, QString());
    if (r)
        out = r.value();
    else
        fail(key, r.error().why);
}

void JsonReader::read(const char *key, SandboxState &out) { readEnum(key, out, &sandboxStateFromString); }
void JsonReader::read(const char *key, Decision &out) { readEnum(key, out, &decisionFromString); }
void JsonReader::read(const char *key, VaultState &out) { readEnum(key, out, &vaultStateFromString); }
void JsonReader::read(const char *key, PolicyFileFormat &out) { readEnum(key, out, &policyFileFormatFromString); }

QJsonValue JsonWriter::encode(const QMap<QString, QString> &v, Presence)
{
    QJsonObject out;
    for (auto it = v.begin(); it != v.end(); ++it)
        out.insert(it.key(), it.value());
    return out;
}

QJsonValue JsonWriter::encode(const QDateTime &v, Presence how) { return how == Millis ? isoTimeMs(v) : isoTimeSeconds(v); }

QJsonValue JsonWriter::encode(const QByteArray &v, Presence) { return QString::fromLatin1(v.toBase64()); }

} // namespace airlock::proto
