#include "protocol/ports.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

AIRLOCK_PAYLOAD_JSON(PortExposeParams, "port.expose params")
AIRLOCK_PAYLOAD_JSON(PortRef, "port.unexpose params")
AIRLOCK_PAYLOAD_JSON(ExposedPortInfo, "exposed port")
AIRLOCK_PAYLOAD_JSON(PortsChanged, "port event")

} // namespace airlock::proto
