#pragma once
// The secrets vault and the secrets in it (never a value in a reply).
#include "protocol/payload.h"

namespace airlock::proto {

// What every vault.* method answers.
struct VaultStatus {
    VaultState vault = VaultState::Uninitialised;
    bool keyring = false;
    static void fields(auto &s, auto &f) { f("vault", s.vault)("keyring", s.keyring); }
    AIRLOCK_PAYLOAD(VaultStatus)
};

// vault.init {passphrase}, vault.unlock {passphrase} or {keyring: true}.
struct VaultUnlockParams {
    std::optional<QString> passphrase;
    bool keyring = false;
    static void fields(auto &s, auto &f) { f("passphrase", s.passphrase)("keyring", s.keyring, Omitted); }
    AIRLOCK_PAYLOAD(VaultUnlockParams)
};

struct VaultChangePassphraseParams {
    QString oldPassphrase; // "old"
    QString newPassphrase; // "new"
    static void fields(auto &s, auto &f) { f("old", s.oldPassphrase)("new", s.newPassphrase); }
    AIRLOCK_PAYLOAD(VaultChangePassphraseParams)
};

struct VaultKeyringParams {
    bool enable = false;
    static void fields(auto &s, auto &f) { f("enable", s.enable); }
    AIRLOCK_PAYLOAD(VaultKeyringParams)
};

// secret.list row and secret.set's result.
struct SecretInfo {
    QString name;
    QStringList hosts;
    QString header;
    QStringList usedBy; // sandbox names
    QString login;      // the template whose sign-in issued it; "" for a secret set by hand
    QString expires;    // ISO 8601 UTC; "" when not known
    static void fields(auto &s, auto &f)
    {
        f("name", s.name)("hosts", s.hosts)("header", s.header)("used_by", s.usedBy);
        f("login", s.login, Defaulted)("expires", s.expires, Defaulted);
    }
    AIRLOCK_PAYLOAD(SecretInfo)
};

struct SecretSetParams {
    QString name;
    QString value;
    QStringList hosts;
    QString header;
    static void fields(auto &s, auto &f)
    {
        f("name", s.name)("value", s.value)("hosts", s.hosts, Defaulted)("header", s.header, Defaulted);
    }
    AIRLOCK_PAYLOAD(SecretSetParams)
};

} // namespace airlock::proto
