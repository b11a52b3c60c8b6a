#pragma once
#include "api/apiclient.h"
#include "api/jsonrpc.h"

#include <QDateTime>
#include <QJsonValue>
#include <QString>

namespace airlock::ui {

// The daemon does not offer this method (yet): views show "not available" instead of an error.
inline bool isMethodMissing(const ApiClient::Reply &r) { return !r.ok && r.errorCode == rpc::MethodNotFound; }

// A time from the API: epoch seconds, epoch milliseconds or ISO 8601 text.
inline QDateTime timeFromJson(const QJsonValue &v)
{
    if (v.isString()) {
        QDateTime t = QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
        if (!t.isValid())
            t = QDateTime::fromString(v.toString(), Qt::ISODate);
        return t;
    }
    if (v.isDouble()) {
        const double n = v.toDouble();
        return n > 1e11 ? QDateTime::fromMSecsSinceEpoch(qint64(n)) : QDateTime::fromMSecsSinceEpoch(qint64(n * 1000));
    }
    return {};
}

// "3 h 12 min", "45 s": short durations for tables.
QString formatDuration(qint64 seconds);
QString formatBytes(qint64 bytes);

} // namespace airlock::ui
