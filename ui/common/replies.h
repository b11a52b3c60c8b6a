#pragma once
#include "api/apiclient.h"
#include "api/jsonrpc.h"

#include <QDateTime>
#include <QJsonValue>
#include <QString>

namespace airlock::ui {

// The daemon does not offer this method (yet): views show "not available" instead of an error.
inline bool isMethodMissing(const ApiClient::Reply &r) { return !r.ok && r.errorCode == rpc::MethodNotFound; }

// "2026-11-30T15:57:58.123Z" (what the daemon writes) to epoch ms without QDateTime's
// general parser, which dominates the cost of loading 100,000 attempts. -1 if not that form.
qint64 fastIsoUtcMs(QStringView s);

// A time from the API: epoch seconds, epoch milliseconds or ISO 8601 text.
inline QDateTime timeFromJson(const QJsonValue &v)
{
    if (v.isString()) {
        if (const qint64 ms = fastIsoUtcMs(v.toString()); ms >= 0)
            return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
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
