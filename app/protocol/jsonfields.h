#pragma once
// One field list per payload, walked by both directions. Each payload struct says once
//   static void fields(auto &s, auto &f) { f("cpus", s.cpus)("env", s.env, Omitted); }
// (wire name, member, Presence: payload.h), in the order fromJson reports a fault.
// JsonWriter walks it to build the wire object, JsonReader to read one back; the reader
// remembers the first field that is missing or mistyped, so the error names it:
//   invalid sandbox row: "cpus" must be an integer
// A member's C++ type says how it is encoded (QByteArray: base64, QDateTime: ISO 8601, an
// enum: its wire name, a payload struct: a nested object, QList of one: an array of them).
#include "core/result.h"
#include "protocol/payload.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QMap>
#include <QStringList>
#include <optional>
#include <type_traits>

namespace airlock::proto {

// The kind of every fromJson error: a payload that is not what the protocol says is an
// invalid parameter (JSON-RPC -32602, rpc::codeOf).
inline constexpr ErrorKind kInvalidPayload = ErrorKind::InvalidParams;

// `"field" why`, e.g. invalidField("cpus", "must be an integer").
Error invalidField(const QString &field, const QString &why);

template <typename T>
concept Payload = requires(const QJsonObject &o) { T::fromJson(o); };

template <typename T>
inline constexpr bool kIsOptional = false;
template <typename T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

class JsonReader {
public:
    JsonReader(const QJsonObject &object, const char *payload) : m_object(object), m_payload(payload) {}

    template <typename T>
    JsonReader &operator()(const char *key, T &member, Presence how = Required)
    {
        if ((kIsOptional<T> || (how != Required && how != Millis)) && absent(key))
            return *this;
        read(key, member);
        return *this;
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
    bool absent(const char *key) const;
    QJsonValue present(const char *key, bool (QJsonValue::*is)() const, const char *type);
    void fail(const char *key, const QString &why);
    void nested(const char *key, const Error &inner);

    void read(const char *key, QString &out);
    void read(const char *key, qint64 &out);
    void read(const char *key, int &out);
    void read(const char *key, bool &out);
    void read(const char *key, QStringList &out);
    void read(const char *key, QMap<QString, QString> &out);
    void read(const char *key, QDateTime &out);
    void read(const char *key, QByteArray &out);
    void read(const char *key, QJsonObject &out);
    void read(const char *key, SandboxState &out);
    void read(const char *key, Decision &out);
    void read(const char *key, VaultState &out);
    void read(const char *key, PolicyFileFormat &out);
    template <typename E>
    void readEnum(const char *key, E &out, Result<E> (*fromString)(const QString &, const QString &));

    template <typename T>
    void read(const char *key, std::optional<T> &out)
    {
        T value{};
        read(key, value);
        out = value;
    }

    template <Payload T>
    void read(const char *key, T &out)
    {
        const QJsonValue v = m_object.value(QLatin1String(key));
        Result<T> r = v.isObject() ? T::fromJson(v.toObject()) : Result<T>(invalidField(QString(), QStringLiteral("must be an object")));
        if (!v.isUndefined() && r)
            out = r.value();
        else if (v.isUndefined())
            fail(key, QStringLiteral("is missing"));
        else
            nested(key, r.error());
    }

    template <Payload T>
    void read(const char *key, QList<T> &out)
    {
        for (const QJsonValue &item : present(key, &QJsonValue::isArray, "an array").toArray()) {
            Result<T> r = T::fromJson(item.toObject());
            if (!item.isObject() || !r) {
                nested(key, item.isObject() ? r.error() : invalidField(QString(), QStringLiteral("must be an object")));
                out.clear();
                return;
            }
            out.append(r.value());
        }
    }

    QJsonObject m_object;
    const char *m_payload;
    std::optional<Error> m_error;
};

class JsonWriter {
public:
    template <typename T>
    JsonWriter &operator()(const char *key, const T &value, Presence how = Required)
    {
        const bool empty = isEmpty(value);
        if (empty && (how == Omitted || (kIsOptional<T> && how != Nulled)))
            return *this;
        m_object.insert(QLatin1String(key), empty && how == Nulled ? QJsonValue(QJsonValue::Null) : encode(value, how));
        return *this;
    }

    QJsonObject object() const { return m_object; }

private:
    template <typename T>
    static bool isEmpty(const T &value)
    {
        if constexpr (kIsOptional<T>)
            return !value.has_value();
        else if constexpr (requires { value.isEmpty(); })
            return value.isEmpty();
        else if constexpr (std::is_arithmetic_v<T>)
            return value == T{};
        else
            return false;
    }

    static QJsonValue encode(const QString &v, Presence) { return v; }
    static QJsonValue encode(qint64 v, Presence) { return v; }
    static QJsonValue encode(int v, Presence) { return v; }
    static QJsonValue encode(bool v, Presence) { return v; }
    static QJsonValue encode(const QStringList &v, Presence) { return QJsonArray::fromStringList(v); }
    static QJsonValue encode(const QMap<QString, QString> &v, Presence);
    static QJsonValue encode(const QDateTime &v, Presence how);
    static QJsonValue encode(const QByteArray &v, Presence);
    static QJsonValue encode(const QJsonObject &v, Presence) { return v; }
    template <typename E>
        requires std::is_enum_v<E>
    static QJsonValue encode(E v, Presence)
    {
        return toString(v);
    }
    template <typename T>
    static QJsonValue encode(const std::optional<T> &v, Presence how)
    {
        return encode(*v, how);
    }
    template <Payload T>
    static QJsonValue encode(const T &v, Presence)
    {
        return v.toJson();
    }
    template <Payload T>
    static QJsonValue encode(const QList<T> &v, Presence)
    {
        QJsonArray out;
        for (const T &item : v)
            out.append(item.toJson());
        return out;
    }

    QJsonObject m_object;
};

// A payload's toJson and fromJson, from its fields().
template <typename T>
QJsonObject writeFields(const T &value)
{
    JsonWriter w;
    T::fields(value, w);
    return w.object();
}

template <typename T>
Result<T> readFields(const QJsonObject &object, const char *payload)
{
    JsonReader r(object, payload);
    T value;
    T::fields(value, r);
    return r.done(value);
}

// Defines T::toJson and T::fromJson (declared by AIRLOCK_PAYLOAD) from T::fields; `payload`
// names T in its errors ("invalid <payload>: ...").
#define AIRLOCK_PAYLOAD_JSON(T, payload) \
    QJsonObject T::toJson() const { return writeFields(*this); } \
    Result<T> T::fromJson(const QJsonObject &object) { return readFields<T>(object, payload); }

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
