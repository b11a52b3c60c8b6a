#include "protocol/names.h"

namespace airlock::proto {

#define AIRLOCK_PROTOCOL_LIST_ENTRY(id, text) QLatin1String(text),

QList<QLatin1String> allMethods() { return {AIRLOCK_PROTOCOL_METHODS(AIRLOCK_PROTOCOL_LIST_ENTRY)}; }
QList<QLatin1String> allTopics() { return {AIRLOCK_PROTOCOL_TOPICS(AIRLOCK_PROTOCOL_LIST_ENTRY)}; }

#undef AIRLOCK_PROTOCOL_LIST_ENTRY

} // namespace airlock::proto
