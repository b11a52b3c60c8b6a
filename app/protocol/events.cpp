#include "protocol/events.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

AIRLOCK_PAYLOAD_JSON(EventEnvelope, "event")
AIRLOCK_PAYLOAD_JSON(ImageProgress, "image event")
AIRLOCK_PAYLOAD_JSON(SnapshotProgress, "snapshot event")
AIRLOCK_PAYLOAD_JSON(Alert, "alert")
AIRLOCK_PAYLOAD_JSON(TopicsParams, "topics")

} // namespace airlock::proto
