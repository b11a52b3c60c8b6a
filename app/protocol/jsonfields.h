#pragma once
// Reads one payload's fields and remembers the first that is missing or mistyped, so each
// fromJson reads like the payload's definition and its error names the field:
//   invalid sandbox row: "cpus" must be an integer
// Optional fields take a default when absent or null; present with the wrong type they are
// an error like a required one.
#include "core/result.h"
#include "protocol/enums.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QMap>
#include <QStringList>
#include <optional>

namespace airlock::proto {

// The kind of every fromJson error: a payload that is not what the protocol says is an
// invalid parameter (JSON-RPC -32602, rpc::codeOf).
inline constexpr ErrorKind kInvalidPayload = ErrorKind::InvalidParams;

// `"field" why`, e.g. invalidField("cpus", "must be an integer").
Error invalidField(const QString &field, const QString &why);

class Fields {
public:
    Fields(const QJsonObject &object, const char *payload) : m_object(object), m_payload(payload) {}

    QString string(const char *key);
    QString string(const char *key, const QString &absent);
    std::optional<QString> optString(const char *key); // absent or null: nullopt
    qint64 integer(const char *key);
    qint64 integer(const char *key, qint64 absent);
    std::optional<qint64> optInteger(const char *key);
    bool boolean(const char *key);
    bool boolean(const char *key, bool absent);
    std::optional<bool> optBoolean(const char *key);
    QStringList strings(const char *key);
    QStringList strings(const char *key, const QStringList &absent);
    QMap<QString, QString> stringMap(const char *key, bool required);
    QDateTime time(const char *key);
    std::optional<QDateTime> optTime(const char *key);
    QByteArray base64(const char *key);
    QByteArray base64(const char *key, const QByteArray &absent);
    QJsonObject object(const char *key);
    SandboxState sandboxState(const char *key);
    Decision decision(const char *key);
    VaultState vaultState(const char *key);

    template <typename T>
    QList<T> list(const char *key, bool required = true)
    {
        QList<T> out;
        const QJsonValue v = m_object.value(QLatin1String(key));
        if (!required && (v.isUndefined() || v.isNull()))
            return out;
        if (!v.isArray()) {
            fail(key, v.isUndefined() ? QStringLiteral("is missing") : QStringLiteral("must be an array"));
            return out;
        }
        for (const QJsonValue &item : v.toArray()) {
            Result<T> r = T::fromJson(item.toObject());
            if (!item.isObject() || !r) {
                nested(key, item.isObject() ? r.error() : invalidField(QString(), QStringLiteral("must be an object")));
                return {};
            }
            out.append(r.value());
        }
        return out;
    }

    template <typename T>
    std::optional<T> optObject(const char *key)
    {
        const QJsonValue v = m_object.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull())
            return std::nullopt;
        Result<T> r = v.isObject() ? T::fromJson(v.toObject()) : Result<T>(invalidField(QString(), QStringLiteral("must be an object")));
        if (!r) {
            nested(key, r.error());
            return std::nullopt;
        }
        return r.value();
    }

    // The payload, or the first error.
    template <typename T>
    Result<T> done(T value) const
    {
        if (m_error)
            return *m_error;
        return value;
    }
    bool failed() const { return m_error.has_value(); }

private:
    QJsonValue present(const char *key, bool (QJsonValue::*is)() const, const char *type);
    void fail(const char *key, const QString &why);
    void nested(const char *key, const Error &inner);

    QJsonObject m_object;
    const char *m_payload;
    std::optional<Error> m_error;
};

// For the methods whose result is an array of one payload.
template <typename T>
QJsonArray toJsonArray(const QList<T> &items)
{
    QJsonArray out;
    for (const T &item : items)
        out.append(item.toJson());
    return out;
}

template <typename T>
Result<QList<T>> listFromJson(const QJsonValue &value)
{
    if (!value.isArray())
        return Error{QStringLiteral("invalid reply"), QStringLiteral("it must be an array"), kInvalidPayload};
    QList<T> out;
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        Result<T> r = T::fromJson(array.at(i).toObject());
        if (!array.at(i).isObject())
            return Error{QStringLiteral("invalid reply"), QStringLiteral("item %1 must be an object").arg(i), kInvalidPayload};
        if (!r)
            return Error{r.error().what, QStringLiteral("item %1: %2").arg(i).arg(r.error().why), kInvalidPayload};
        out.append(r.value());
    }
    return out;
}

// A reply that must be an object, read as T.
template <typename T>
Result<T> fromReply(const QJsonValue &value)
{
    if (!value.isObject())
        return Error{QStringLiteral("invalid reply"), QStringLiteral("it must be an object"), kInvalidPayload};
    return T::fromJson(value.toObject());
}

} // namespace airlock::proto
