#include "core/isotime.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace airlock {

namespace {

QString format(const QDateTime &time, bool withMs)
{
    const qint64 ms = time.toMSecsSinceEpoch();
    // Floored, so that a time before 1970 keeps its second and a millisecond in 0..999.
    const qint64 floorSeconds = ms >= 0 ? ms / 1000 : -((999 - ms) / 1000);
    const time_t seconds = time_t(floorSeconds);
    tm utc{};
    ::gmtime_r(&seconds, &utc);
    char text[96];
    if (withMs)
        std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                      utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, int(ms - floorSeconds * 1000));
    else
        std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                      utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
    return QString::fromLatin1(text);
}

// "YYYY-MM-DDTHH:MM:SS[.fff]Z" (what the daemon writes) to epoch ms without QDateTime's
// general parser, which dominates the cost of reading 100,000 egress events; -1 if not that form.
qint64 fastUtcMs(QStringView s)
{
    if (s.size() < 20 || s[4] != u'-' || s[7] != u'-' || s[10] != u'T' || s[13] != u':' || s[16] != u':' || s.back() != u'Z')
        return -1;
    auto num = [&](qsizetype from, qsizetype len) {
        int n = 0;
        for (qsizetype i = from; i < from + len; ++i) {
            const char16_t c = s[i].unicode();
            if (c < u'0' || c > u'9')
                return -1;
            n = n * 10 + (c - u'0');
        }
        return n;
    };
    const int y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2), sec = num(17, 2);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
        return -1;
    int ms = 0;
    if (s.size() > 20) {
        const qsizetype digits = s.size() - 21;
        if (s[19] != u'.' || digits < 1 || digits > 9)
            return -1;
        const int frac = num(20, std::min<qsizetype>(digits, 3));
        if (frac < 0 || num(20, digits) < 0)
            return -1;
        ms = digits >= 3 ? frac : frac * (digits == 1 ? 100 : 10);
    }
    if (d > QDate(y, mo, 1).daysInMonth())
        return -1;
    // Days from the civil date (proleptic Gregorian), Howard Hinnant's algorithm.
    const int yy = y - (mo <= 2);
    const int era = yy / 400;
    const int yoe = yy - era * 400;
    const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const qint64 days = qint64(era) * 146097 + doe - 719468;
    return ((days * 24 + h) * 60 + mi) * 60000 + qint64(sec) * 1000 + ms;
}

} // namespace

QString isoTimeMs(const QDateTime &time) { return format(time, true); }
QString isoTimeSeconds(const QDateTime &time) { return format(time, false); }

QDateTime parseIsoTime(const QString &text)
{
    // Qt::ISODateWithMs also reads a time without milliseconds; a bare date is not a time.
    if (text.size() < 20 || text.at(10) != QLatin1Char('T'))
        return {};
    if (const qint64 ms = fastUtcMs(text); ms >= 0)
        return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
    // An offset may carry the instant past a four-digit UTC year, which isoTimeMs could not
    // write back in the form this reads: not a time either.
    const QDateTime t = QDateTime::fromString(text, Qt::ISODateWithMs).toUTC();
    return t.isValid() && t.date().year() >= 0 && t.date().year() <= 9999 ? t : QDateTime();
}

} // namespace airlock
