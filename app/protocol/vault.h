#pragma once
// The secrets vault and the secrets in it (never a value in a reply).
#include "protocol/payload.h"

namespace airlock::proto {

// What every vault.* method answers.
struct VaultStatus {
    VaultState vault = VaultState::Uninitialised;
    bool keyring = false;
    AIRLOCK_PAYLOAD(VaultStatus)
};

// vault.init {passphrase}, vault.unlock {passphrase} or {keyring: true}.
struct VaultUnlockParams {
    std::optional<QString> passphrase;
    bool keyring = false;
    AIRLOCK_PAYLOAD(VaultUnlockParams)
};

struct VaultChangePassphraseParams {
    QString oldPassphrase; // "old"
    QString newPassphrase; // "new"
    AIRLOCK_PAYLOAD(VaultChangePassphraseParams)
};

struct VaultKeyringParams {
    bool enable = false;
    AIRLOCK_PAYLOAD(VaultKeyringParams)
};

// secret.list row and secret.set's result.
struct SecretInfo {
    QString name;
    QStringList hosts;
    QString header;
    QStringList usedBy; // sandbox names
    AIRLOCK_PAYLOAD(SecretInfo)
};

struct SecretSetParams {
    QString name;
    QString value;
    QStringList hosts;
    QString header;
    AIRLOCK_PAYLOAD(SecretSetParams)
};

} // namespace airlock::proto
