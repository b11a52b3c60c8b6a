#include "ctl/duration.h"

namespace airlock::ctl {

std::optional<qint64> parseDuration(const QString &text, QString *why)
{
    auto fail = [&](const QString &reason) -> std::optional<qint64> {
        if (why)
            *why = QStringLiteral("invalid duration '%1': %2; write e.g. 30s, 10m, 2h or 1d").arg(text, reason);
        return std::nullopt;
    };
    if (text.isEmpty())
        return fail(QStringLiteral("it is empty"));
    constexpr qint64 kMax = 10LL * 365 * 24 * 3600;
    qint64 total = 0;
    qint64 number = -1;
    for (QChar c : text) {
        if (c.isDigit() && c.unicode() < 0x80) {
            number = (number < 0 ? 0 : number) * 10 + (c.unicode() - u'0');
            if (number > kMax)
                return fail(QStringLiteral("longer than 10 years"));
            continue;
        }
        qint64 unit = 0;
        switch (c.unicode()) {
        case u's': unit = 1; break;
        case u'm': unit = 60; break;
        case u'h': unit = 3600; break;
        case u'd': unit = 86400; break;
        default:
            return fail(QStringLiteral("unknown unit '%1' (units: s, m, h, d)").arg(c));
        }
        if (number < 0)
            return fail(QStringLiteral("a unit without a number"));
        total += number * unit;
        if (total > kMax)
            return fail(QStringLiteral("longer than 10 years"));
        number = -1;
    }
    if (number >= 0)
        return fail(QStringLiteral("the number %1 has no unit").arg(number));
    if (total <= 0)
        return fail(QStringLiteral("it must be longer than zero"));
    return total;
}

} // namespace airlock::ctl
