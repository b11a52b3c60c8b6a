#include "core/vaultstate.h"

namespace airlock {

QString vaultStateName(VaultState state)
{
    switch (state) {
    case VaultState::Uninitialised: return QStringLiteral("uninitialised");
    case VaultState::Locked: return QStringLiteral("locked");
    case VaultState::Unlocked: return QStringLiteral("unlocked");
    }
    return {};
}

} // namespace airlock
