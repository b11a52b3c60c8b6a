#include "protocol/jsonfields.h"
#include "core/isotime.h"

#include <cmath>

namespace airlock::proto {

Error invalidField(const QString &field, const QString &why)
{
    return Error{QStringLiteral("invalid value"), field.isEmpty() ? why : QStringLiteral("\"%1\" %2").arg(field, why), kInvalidPayload};
}

void Fields::fail(const char *key, const QString &why)
{
    if (!m_error)
        m_error = Error{QStringLiteral("invalid %1").arg(QLatin1String(m_payload)),
                        QStringLiteral("\"%1\" %2").arg(QLatin1String(key), why), kInvalidPayload};
}

void Fields::nested(const char *key, const Error &inner)
{
    // "secret": "name" is missing  /  "rules": "host" must be a string
    if (!m_error)
        m_error = Error{QStringLiteral("invalid %1").arg(QLatin1String(m_payload)),
                        QStringLiteral("\"%1\": %2").arg(QLatin1String(key), inner.why), kInvalidPayload};
}

QJsonValue Fields::present(const char *key, bool (QJsonValue::*is)() const, const char *type)
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

QString Fields::string(const char *key) { return present(key, &QJsonValue::isString, "a string").toString(); }

QString Fields::string(const char *key, const QString &absent) { return optString(key).value_or(absent); }

std::optional<QString> Fields::optString(const char *key)
{
    const QJsonValue v = m_object.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    return string(key);
}

qint64 Fields::integer(const char *key)
{
    const QJsonValue v = present(key, &QJsonValue::isDouble, "an integer");
    if (failed())
        return 0;
    const double d = v.toDouble();
    if (d != std::floor(d) || std::fabs(d) > 9007199254740992.0) { // 2^53: beyond, a double is not an integer
        fail(key, QStringLiteral("must be an integer"));
        return 0;
    }
    return qint64(d);
}

qint64 Fields::integer(const char *key, qint64 absent) { return optInteger(key).value_or(absent); }

std::optional<qint64> Fields::optInteger(const char *key)
{
    const QJsonValue v = m_object.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    return integer(key);
}

bool Fields::boolean(const char *key) { return present(key, &QJsonValue::isBool, "true or false").toBool(); }

bool Fields::boolean(const char *key, bool absent) { return optBoolean(key).value_or(absent); }

std::optional<bool> Fields::optBoolean(const char *key)
{
    const QJsonValue v = m_object.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    return boolean(key);
}

QStringList Fields::strings(const char *key)
{
    QStringList out;
    for (const QJsonValue &item : present(key, &QJsonValue::isArray, "an array of strings").toArray()) {
        if (!item.isString()) {
            fail(key, QStringLiteral("must be an array of strings"));
            return {};
        }
        out << item.toString();
    }
    return out;
}

QStringList Fields::strings(const char *key, const QStringList &absent)
{
    const QJsonValue v = m_object.value(QLatin1String(key));
    return v.isUndefined() || v.isNull() ? absent : strings(key);
}

QMap<QString, QString> Fields::stringMap(const char *key, bool required)
{
    QMap<QString, QString> out;
    const QJsonValue v = m_object.value(QLatin1String(key));
    if (!required && (v.isUndefined() || v.isNull()))
        return out;
    const QJsonObject o = present(key, &QJsonValue::isObject, "an object of strings").toObject();
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!it.value().isString()) {
            fail(key, QStringLiteral("must be an object of strings"));
            return {};
        }
        out.insert(it.key(), it.value().toString());
    }
    return out;
}

QDateTime Fields::time(const char *key)
{
    const QString text = string(key);
    if (failed())
        return {};
    const QDateTime t = parseIsoTime(text);
    if (!t.isValid())
        fail(key, QStringLiteral("must be an ISO 8601 time such as 2026-11-30T15:43:37Z"));
    return t;
}

std::optional<QDateTime> Fields::optTime(const char *key)
{
    const QJsonValue v = m_object.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    return time(key);
}

QByteArray Fields::base64(const char *key)
{
    const QString text = string(key);
    auto decoded = QByteArray::fromBase64Encoding(text.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!failed() && !decoded)
        fail(key, QStringLiteral("must be base64"));
    return decoded.decoded;
}

QByteArray Fields::base64(const char *key, const QByteArray &absent)
{
    const QJsonValue v = m_object.value(QLatin1String(key));
    return v.isUndefined() || v.isNull() ? absent : base64(key);
}

QJsonObject Fields::object(const char *key) { return present(key, &QJsonValue::isObject, "an object").toObject(); }

SandboxState Fields::sandboxState(const char *key)
{
    const QString text = string(key);
    if (failed())
        return SandboxState::Unknown;
    Result<SandboxState> r = sandboxStateFromString(text, QString());
    if (!r)
        fail(key, r.error().why);
    return r ? r.value() : SandboxState::Unknown;
}

Decision Fields::decision(const char *key)
{
    const QString text = string(key);
    if (failed())
        return Decision::Denied;
    Result<Decision> r = decisionFromString(text, QString());
    if (!r)
        fail(key, r.error().why);
    return r ? r.value() : Decision::Denied;
}

VaultState Fields::vaultState(const char *key)
{
    const QString text = string(key);
    if (failed())
        return VaultState::Locked;
    Result<VaultState> r = vaultStateFromString(text, QString());
    if (!r)
        fail(key, r.error().why);
    return r ? r.value() : VaultState::Locked;
}

} // namespace airlock::proto
