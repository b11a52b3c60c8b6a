#pragma once
// Where the secrets vault is: shared by the broker's Vault and the protocol, which sends
// these names (status, vault.*; app/protocol/enums.h).
#include <QString>

namespace airlock {

enum class VaultState { Uninitialised, Locked, Unlocked };

QString vaultStateName(VaultState state); // "uninitialised" | "locked" | "unlocked"

} // namespace airlock
