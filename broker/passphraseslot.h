#pragma once
#include "core/result.h"
#include "securebytes.h"

#include <QByteArray>
#include <QJsonObject>

namespace airlock {

// scrypt cost, stored beside the slot so a later (faster) machine still derives the same key.
struct ScryptParams {
    quint64 n = 1 << 17;
    quint32 r = 8;
    quint32 p = 1;

    quint64 memoryBytes() const { return 128ull * r * n * p; }
    QJsonObject toJson() const;
    static Result<ScryptParams> fromJson(const QJsonObject &json);
};

// Picks the smallest power-of-two N (r=8, p=1) whose derivation takes at least
// `targetSeconds` on this machine, measured, within [2^15, 2^19].
ScryptParams calibrateScrypt(double targetSeconds = 0.3);

// scrypt through OpenSSL 3's EVP_KDF "SCRYPT": a 256-bit key-encryption key.
Result<SecureBytes> deriveKeyFromPassphrase(const QByteArray &passphrase, const QByteArray &salt,
                                            const ScryptParams &params);

// A key slot's stored form: nonce || AES-256-GCM(vault key) || tag, authenticated together
// with `aad` (the slot's kind and parameters), so editing the parameters fails the tag too.
Result<QByteArray> wrapVaultKey(const SecureBytes &kek, const SecureBytes &vaultKey, const QByteArray &aad);
Result<SecureBytes> unwrapVaultKey(const SecureBytes &kek, const QByteArray &wrapped, const QByteArray &aad);

} // namespace airlock
