#pragma once
// How every part of Airlock compares host names: the broker's patterns and policy, and the
// Public Suffix List choice the GUI shows (core because the GUI does not link the broker).
#include <QString>

namespace airlock {

// Lower-cases and strips one trailing dot; "" stays "".
inline QString normalizeHost(const QString &host)
{
    QString h = host.trimmed().toLower();
    if (h.endsWith(u'.'))
        h.chop(1);
    return h;
}

} // namespace airlock
