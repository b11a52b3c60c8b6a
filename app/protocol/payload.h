#pragma once
// What every payload struct of the protocol offers. Kept as a comment-level contract:
//   QJsonObject toJson() const;            the wire object, field names as documented
//   static Result<T> fromJson(const QJsonObject &);  a missing or mistyped required field is
//                                                    an error naming the field (jsonfields.h)
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

#define AIRLOCK_PAYLOAD(T) \
    QJsonObject toJson() const; \
    static Result<T> fromJson(const QJsonObject &object); \
    bool operator==(const T &) const = default;
