#include "egressevent.h"
#include "core/isotime.h"

namespace airlock {

QString EgressEvent::isoTime(const QDateTime &time) { return isoTimeMs(time); }

} // namespace airlock
