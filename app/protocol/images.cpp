#include "protocol/images.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

AIRLOCK_PAYLOAD_JSON(ImageInfo, "image")
AIRLOCK_PAYLOAD_JSON(ImageBuildParams, "image.build params")
AIRLOCK_PAYLOAD_JSON(ImageImportParams, "image.import params")
AIRLOCK_PAYLOAD_JSON(ImageUploadResult, "image.import result")
AIRLOCK_PAYLOAD_JSON(ImageCancelResult, "image.cancel result")
AIRLOCK_PAYLOAD_JSON(TemplateSecret, "template secret")
AIRLOCK_PAYLOAD_JSON(TemplateInfo, "template")
AIRLOCK_PAYLOAD_JSON(PresetRuleInfo, "preset rule")
AIRLOCK_PAYLOAD_JSON(PresetInfo, "preset")

} // namespace airlock::proto
