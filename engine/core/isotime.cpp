#include "core/isotime.h"

#include <cstdio>
#include <ctime>

namespace airlock {

namespace {

QString format(const QDateTime &time, bool withMs)
{
    const qint64 ms = time.toMSecsSinceEpoch();
    const time_t seconds = time_t(ms / 1000);
    tm utc{};
    ::gmtime_r(&seconds, &utc);
    char text[96];
    if (withMs)
        std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                      utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, int(ms % 1000));
    else
        std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                      utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
    return QString::fromLatin1(text);
}

} // namespace

QString isoTimeMs(const QDateTime &time) { return format(time, true); }
QString isoTimeSeconds(const QDateTime &time) { return format(time, false); }

QDateTime parseIsoTime(const QString &text)
{
    // Qt::ISODateWithMs also reads a time without milliseconds; a bare date is not a time.
    if (text.size() < 20 || text.at(10) != QLatin1Char('T'))
        return {};
    QDateTime t = QDateTime::fromString(text, Qt::ISODateWithMs);
    return t.isValid() ? t.toUTC() : QDateTime();
}

} // namespace airlock
