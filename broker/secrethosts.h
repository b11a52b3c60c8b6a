#pragma once
#include "core/result.h"

#include <QString>
#include <QStringList>

// Host patterns a secret is bound to: an exact name or `*.domain` (anchored: never matches
// `evildomain`, nor the bare domain). Stricter than a rule's pattern (broker/hostpattern):
// names only, no IPs, no bare `*`, no top-level wildcard; matching is hostpattern's.
namespace airlock::secrethosts {

// Lower-cases and checks one pattern; the error says what is wrong and what to write instead.
Result<QString> normalize(const QString &pattern);
bool matches(const QString &pattern, const QString &host);
bool matchesAny(const QStringList &patterns, const QString &host);

} // namespace airlock::secrethosts
