#pragma once
// The protocol's one time format: ISO 8601 in UTC. Egress events carry milliseconds
// ("2026-11-30T15:43:37.123Z"), every other time whole seconds ("2026-11-30T15:43:37Z").
#include <QDateTime>
#include <QString>

namespace airlock {

// Fast (QDateTime::toString is slow on the event hot path).
QString isoTimeMs(const QDateTime &time);
QString isoTimeSeconds(const QDateTime &time);
// Either form, with Z or an offset; an invalid QDateTime for anything else.
QDateTime parseIsoTime(const QString &text);

} // namespace airlock
