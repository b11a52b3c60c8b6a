#include "protocol/status.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

AIRLOCK_PAYLOAD_JSON(EgressStatus, "egress status")
AIRLOCK_PAYLOAD_JSON(DaemonStatus, "status")

} // namespace airlock::proto
