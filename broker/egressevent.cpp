#include "egressevent.h"
#include "core/isotime.h"

namespace airlock {

QString EgressEvent::isoTime(const QDateTime &time) { return isoTimeMs(time); }

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
        {QStringLiteral("decision"), decisionName(decision)},
        {QStringLiteral("rule"), rule ? QJsonValue(rule) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("reason"), reason},
        {QStringLiteral("bytes_up"), bytesUp},
        {QStringLiteral("bytes_down"), bytesDown},
        {QStringLiteral("duration_ms"), durationMs},
        {QStringLiteral("count"), count},
    };
}

} // namespace airlock
