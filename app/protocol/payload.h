#pragma once
// What every payload struct of the protocol offers:
//   static void fields(auto &s, auto &f);  its wire fields, once: f("wire_name", s.member, how)
//   QJsonObject toJson() const;            the wire object, walked from fields()
//   static Result<T> fromJson(const QJsonObject &);  a missing or mistyped required field is
//                                                    an error naming the field (jsonfields.h)
// The .cpp defines the last two with AIRLOCK_PAYLOAD_JSON(T, "name in errors").
#include "core/result.h"
#include "protocol/enums.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>

namespace airlock::proto {

// How a field is on the wire. "Empty" is false, 0, "", [], {} or nullopt. A std::optional
// is never required: absent or null reads as nullopt, and nullopt is left out (Nulled: null).
enum Presence : quint8 {
    Required,  // read: must be there; always written
    Defaulted, // read: absent or null keeps the member's initial value; always written
    Omitted,   // read: as Defaulted; left out when empty
    Nulled,    // read: as Defaulted; written as null when empty
    Millis,    // as Required, and a time written with milliseconds
};

} // namespace airlock::proto

#define AIRLOCK_PAYLOAD(T) \
    QJsonObject toJson() const; \
    static Result<T> fromJson(const QJsonObject &object); \
    bool operator==(const T &) const = default;
