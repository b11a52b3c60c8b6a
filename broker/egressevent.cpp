#include "egressevent.h"

namespace airlock {

QJsonObject EgressEvent::toJson() const
{
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("sandbox"), sandbox},
        {QStringLiteral("time"), time.toUTC().toString(Qt::ISODateWithMs)},
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
    };
}

} // namespace airlock
