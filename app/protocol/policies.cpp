#include "protocol/policies.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

AIRLOCK_PAYLOAD_JSON(PolicyScope, "policy scope")
AIRLOCK_PAYLOAD_JSON(PolicyLearnParams, "policy.learn params")
AIRLOCK_PAYLOAD_JSON(PolicyText, "policy file")
AIRLOCK_PAYLOAD_JSON(PolicyImportParams, "policy.import params")
AIRLOCK_PAYLOAD_JSON(PolicyChange, "policy change")
AIRLOCK_PAYLOAD_JSON(PolicyImportResult, "policy.import result")

} // namespace airlock::proto
