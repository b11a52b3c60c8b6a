#pragma once
#include <QString>
#include <optional>

namespace airlock::ctl {

// "30s", "10m", "2h", "1d" (also combined: "1h30m") -> seconds. nullopt with `why` set when
// the text is not a positive duration in those units.
std::optional<qint64> parseDuration(const QString &text, QString *why);

} // namespace airlock::ctl
