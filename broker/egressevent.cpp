#include "egressevent.h"

#include <cstdio>
#include <ctime>

namespace airlock {

QString EgressEvent::isoTime(const QDateTime &time)
{
    const qint64 ms = time.toMSecsSinceEpoch();
    const time_t seconds = time_t(ms / 1000);
    tm utc{};
    ::gmtime_r(&seconds, &utc);
    char text[96];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                  utc.tm_hour, utc.tm_min, utc.tm_sec, int(ms % 1000));
    return QString::fromLatin1(text);
}

QJsonObject EgressEvent::toJson() const
{
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("sandbox"), sandbox},
        {QStringLiteral("time"), isoTime(time)},
        {QStringLiteral("proto"), proto},
        {QStringLiteral("host"), host},
        {QStringLiteral("ip"), ip},
        {QStringLiteral("port"), port},
        {QStringLiteral("sni"), sni},
        {QStringLiteral("method"), method},
        {QStringLiteral("path"), path},
        {QStringLiteral("decision"), decision},
        {QStringLiteral("rule"), rule ? QJsonValue(rule) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("reason"), reason},
        {QStringLiteral("bytes_up"), bytesUp},
        {QStringLiteral("bytes_down"), bytesDown},
        {QStringLiteral("duration_ms"), durationMs},
        {QStringLiteral("count"), count},
    };
}

} // namespace airlock
