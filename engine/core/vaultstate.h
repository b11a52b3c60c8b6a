#pragma once
// Where the secrets vault is: shared by the broker's Vault and the protocol (whose wire
// names are app/protocol/enums.h's).
namespace airlock {

enum class VaultState { Uninitialised, Locked, Unlocked };

} // namespace airlock
