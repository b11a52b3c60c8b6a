#pragma once
#include "core/result.h"
#include "securebytes.h"

#include <QByteArray>

namespace airlock::aesgcm {

constexpr int kKeyBytes = 32;   // AES-256
constexpr int kNonceBytes = 12; // 96-bit, fresh from RAND_bytes for every seal
constexpr int kTagBytes = 16;

struct Sealed {
    QByteArray nonce;
    QByteArray ciphertext; // ciphertext followed by the 16-byte tag
};

// Encrypts `plain` under `key` with a fresh nonce; `aad` is authenticated, not stored.
Result<Sealed> seal(const SecureBytes &key, const unsigned char *plain, std::size_t size, const QByteArray &aad);
inline Result<Sealed> seal(const SecureBytes &key, const SecureBytes &plain, const QByteArray &aad)
{
    return seal(key, plain.data(), plain.size(), aad);
}

// Decrypts into secure memory. Any change to key, nonce, ciphertext, tag or aad fails the tag:
// the error then says only that authentication failed (the caller names the likely cause).
Result<SecureBytes> open(const SecureBytes &key, const QByteArray &nonce, const QByteArray &ciphertext,
                         const QByteArray &aad);

} // namespace airlock::aesgcm
