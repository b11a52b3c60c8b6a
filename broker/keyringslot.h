#pragma once
#include "core/result.h"
#include "securebytes.h"

#include <QString>

namespace airlock::keyring {

// The optional OS keyring slot (QtKeychain: Secret Service, KWallet). The keyring holds a
// random 256-bit slot key under this service/account; the key_slots row holds the vault key
// wrapped by it. Without a keyring (headless, no D-Bus session) each call fails with a
// message saying so: the passphrase slot always remains.
constexpr const char *kService = "airlock";

// Blocking: runs a local event loop for the keyring job (seconds at worst). Call it from a
// thread that is not the daemon's main thread when a desktop keyring might prompt.
Status store(const QString &account, const SecureBytes &key);
Result<SecureBytes> load(const QString &account);
Status remove(const QString &account);

} // namespace airlock::keyring
