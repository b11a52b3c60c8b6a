#include "aesgcm.h"

#include <memory>
#include <openssl/evp.h>
#include <openssl/rand.h>

namespace airlock::aesgcm {

namespace {
struct CtxFree {
    void operator()(EVP_CIPHER_CTX *c) const { EVP_CIPHER_CTX_free(c); }
};
using Ctx = std::unique_ptr<EVP_CIPHER_CTX, CtxFree>;

Error cryptoError(const char *step)
{
    return Error{QStringLiteral("AES-256-GCM failed"), QString::fromLatin1(step)};
}
} // namespace

Result<Sealed> seal(const SecureBytes &key, const unsigned char *plain, std::size_t size, const QByteArray &aad)
{
    if (key.size() != kKeyBytes)
        return cryptoError("the key is not 256 bits");
    Sealed out;
    out.nonce.resize(kNonceBytes);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(out.nonce.data()), kNonceBytes) != 1)
        return cryptoError("no randomness for the nonce");
    out.ciphertext.resize(qsizetype(size) + kTagBytes);
    auto *ct = reinterpret_cast<unsigned char *>(out.ciphertext.data());
    Ctx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(),
                                   reinterpret_cast<const unsigned char *>(out.nonce.constData())) != 1)
        return cryptoError("cannot initialise the cipher");
    if (!aad.isEmpty() && EVP_EncryptUpdate(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char *>(aad.constData()),
                                            int(aad.size())) != 1)
        return cryptoError("cannot add the associated data");
    if (size && EVP_EncryptUpdate(ctx.get(), ct, &len, plain, int(size)) != 1)
        return cryptoError("cannot encrypt");
    if (EVP_EncryptFinal_ex(ctx.get(), ct + size, &len) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagBytes, ct + size) != 1)
        return cryptoError("cannot finish");
    return out;
}

Result<SecureBytes> open(const SecureBytes &key, const QByteArray &nonce, const QByteArray &ciphertext,
                         const QByteArray &aad)
{
    if (key.size() != kKeyBytes)
        return cryptoError("the key is not 256 bits");
    if (nonce.size() != kNonceBytes || ciphertext.size() < kTagBytes)
        return Error{QStringLiteral("authentication failed"), QStringLiteral("the stored nonce or ciphertext is truncated")};
    const std::size_t size = std::size_t(ciphertext.size() - kTagBytes);
    const auto *ct = reinterpret_cast<const unsigned char *>(ciphertext.constData());
    SecureBytes plain(size);
    Ctx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    if (!ctx || EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(),
                                   reinterpret_cast<const unsigned char *>(nonce.constData())) != 1)
        return cryptoError("cannot initialise the cipher");
    if (!aad.isEmpty() && EVP_DecryptUpdate(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char *>(aad.constData()),
                                            int(aad.size())) != 1)
        return cryptoError("cannot add the associated data");
    if (size && EVP_DecryptUpdate(ctx.get(), plain.data(), &len, ct, int(size)) != 1)
        return cryptoError("cannot decrypt");
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagBytes, const_cast<unsigned char *>(ct + size)) != 1)
        return cryptoError("cannot set the tag");
    unsigned char scratch[16];
    if (EVP_DecryptFinal_ex(ctx.get(), scratch, &len) != 1)
        return Error{QStringLiteral("authentication failed"), QStringLiteral("the GCM tag does not match")};
    return plain;
}

} // namespace airlock::aesgcm
