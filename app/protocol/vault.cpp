#include "protocol/vault.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

AIRLOCK_PAYLOAD_JSON(VaultStatus, "vault state")
AIRLOCK_PAYLOAD_JSON(VaultUnlockParams, "vault.unlock params")
AIRLOCK_PAYLOAD_JSON(VaultChangePassphraseParams, "vault.change_passphrase params")
AIRLOCK_PAYLOAD_JSON(VaultKeyringParams, "vault.keyring params")
AIRLOCK_PAYLOAD_JSON(SecretInfo, "secret")
AIRLOCK_PAYLOAD_JSON(SecretSetParams, "secret.set params")

} // namespace airlock::proto
