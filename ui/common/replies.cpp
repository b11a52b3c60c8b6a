#include "common/replies.h"

#include <QCoreApplication>
#include <QLocale>
#include <algorithm>

namespace airlock::ui {

QString formatDuration(qint64 s)
{
    if (s < 0)
        return {};
    if (s < 60)
        return QCoreApplication::translate("Format", "%1 s").arg(s);
    if (s < 3600)
        return QCoreApplication::translate("Format", "%1 min").arg(s / 60);
    if (s < 86400)
        return QCoreApplication::translate("Format", "%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
    return QCoreApplication::translate("Format", "%1 d %2 h").arg(s / 86400).arg((s % 86400) / 3600);
}

qint64 fastIsoUtcMs(QStringView s)
{
    // YYYY-MM-DDTHH:MM:SS[.mmm]Z
    if (s.size() < 20 || s[4] != u'-' || s[7] != u'-' || s[10] != u'T' || s[13] != u':' || s[16] != u':' || s.back() != u'Z')
        return -1;
    auto num = [&](int from, int len) {
        int n = 0;
        for (int i = from; i < from + len; ++i) {
            const char16_t c = s[i].unicode();
            if (c < u'0' || c > u'9')
                return -1;
            n = n * 10 + (c - u'0');
        }
        return n;
    };
    const int y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2), sec = num(17, 2);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60)
        return -1;
    int ms = 0;
    if (s.size() > 20) {
        if (s[19] != u'.')
            return -1;
        const int digits = int(s.size()) - 21;
        if (digits < 1 || digits > 9)
            return -1;
        const int frac = num(20, std::min(digits, 3));
        if (frac < 0)
            return -1;
        ms = digits >= 3 ? frac : frac * (digits == 1 ? 100 : 10);
    } else if (s.size() != 20) {
        return -1;
    }
    // Days from the civil date (proleptic Gregorian), Howard Hinnant's algorithm.
    const int yy = y - (mo <= 2);
    const int era = yy / 400;
    const int yoe = yy - era * 400;
    const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const qint64 days = qint64(era) * 146097 + doe - 719468;
    return ((days * 24 + h) * 60 + mi) * 60000 + qint64(sec) * 1000 + ms;
}

QString formatBytes(qint64 bytes) { return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat); }

} // namespace airlock::ui
