#include "protocol/snapshots.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

AIRLOCK_PAYLOAD_JSON(SnapshotInfo, "snapshot")
AIRLOCK_PAYLOAD_JSON(SnapshotCreateParams, "snapshot.create params")
AIRLOCK_PAYLOAD_JSON(SnapshotRef, "snapshot")
AIRLOCK_PAYLOAD_JSON(CheckpointSchedule, "snapshot.schedule")
AIRLOCK_PAYLOAD_JSON(ConsoleAttachResult, "console.attach result")
AIRLOCK_PAYLOAD_JSON(ConsoleWriteParams, "console.write params")
AIRLOCK_PAYLOAD_JSON(ConsoleSize, "console size")
AIRLOCK_PAYLOAD_JSON(ConsoleOutput, "console output")

} // namespace airlock::proto
