#include "passphraseslot.h"
#include "aesgcm.h"

#include <QElapsedTimer>
#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

namespace airlock {

QJsonObject ScryptParams::toJson() const
{
    return QJsonObject{{QStringLiteral("kdf"), QStringLiteral("scrypt")},
                       {QStringLiteral("n"), double(n)},
                       {QStringLiteral("r"), double(r)},
                       {QStringLiteral("p"), double(p)}};
}

Result<ScryptParams> ScryptParams::fromJson(const QJsonObject &json)
{
    ScryptParams s;
    s.n = quint64(json.value(QLatin1String("n")).toDouble());
    s.r = quint32(json.value(QLatin1String("r")).toInt());
    s.p = quint32(json.value(QLatin1String("p")).toInt());
    const bool powerOfTwo = s.n >= 2 && (s.n & (s.n - 1)) == 0;
    if (json.value(QLatin1String("kdf")).toString() != QLatin1String("scrypt") || !powerOfTwo || s.r == 0 || s.p == 0 ||
        s.memoryBytes() > (quint64(2) << 30))
        return Error{QStringLiteral("the passphrase slot's parameters are unreadable"),
                     QStringLiteral("the key_slots row was changed by hand; restore the database from a backup")};
    return s;
}

Result<SecureBytes> deriveKeyFromPassphrase(const QByteArray &passphrase, const QByteArray &salt,
                                            const ScryptParams &params)
{
    EVP_KDF *kdf = EVP_KDF_fetch(nullptr, "SCRYPT", nullptr);
    EVP_KDF_CTX *ctx = kdf ? EVP_KDF_CTX_new(kdf) : nullptr;
    EVP_KDF_free(kdf);
    if (!ctx)
        return Error{QStringLiteral("cannot derive the key"), QStringLiteral("OpenSSL offers no scrypt KDF")};
    uint64_t n = params.n;
    uint32_t r = params.r, p = params.p;
    uint64_t maxmem = params.memoryBytes() + (uint64_t(8) << 20); // OpenSSL's default cap (32 MiB) is too small
    OSSL_PARAM list[] = {
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, const_cast<char *>(passphrase.constData()),
                                          size_t(passphrase.size())),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<char *>(salt.constData()), size_t(salt.size())),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &r),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &p),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &maxmem),
        OSSL_PARAM_construct_end(),
    };
    SecureBytes key(aesgcm::kKeyBytes);
    const int rc = EVP_KDF_derive(ctx, key.data(), key.size(), list);
    EVP_KDF_CTX_free(ctx);
    if (rc != 1)
        return Error{QStringLiteral("cannot derive the key"),
                     QStringLiteral("scrypt failed (N=%1, r=%2, p=%3: not enough memory?)").arg(n).arg(r).arg(p)};
    return key;
}

ScryptParams calibrateScrypt(double targetSeconds)
{
    // Measured, not extrapolated: memory first-touch and other load make small N misleading.
    ScryptParams chosen;
    chosen.n = 1 << 15;
    for (;;) {
        QElapsedTimer timer;
        timer.start();
        (void)deriveKeyFromPassphrase(QByteArrayLiteral("calibration"), QByteArrayLiteral("calibration salt"), chosen);
        const double seconds = double(timer.nsecsElapsed()) / 1e9;
        if (seconds >= targetSeconds || chosen.n >= (1u << 19))
            return chosen;
        chosen.n <<= 1;
    }
}

Result<QByteArray> wrapVaultKey(const SecureBytes &kek, const SecureBytes &vaultKey, const QByteArray &aad)
{
    Result<aesgcm::Sealed> sealed = aesgcm::seal(kek, vaultKey, aad);
    if (!sealed)
        return sealed.error();
    return QByteArray(sealed->nonce + sealed->ciphertext);
}

Result<SecureBytes> unwrapVaultKey(const SecureBytes &kek, const QByteArray &wrapped, const QByteArray &aad)
{
    return aesgcm::open(kek, wrapped.left(aesgcm::kNonceBytes), wrapped.mid(aesgcm::kNonceBytes), aad);
}

} // namespace airlock
