#include "x509util.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

namespace airlock::x509util {

EVP_PKEY *generateP256() { return EVP_EC_gen("P-256"); }

X509 *newCertificate(const QString &commonName, long backdateSeconds, long validSeconds)
{
    X509 *cert = X509_new();
    if (!cert)
        return nullptr;
    unsigned char serial[16];
    BIGNUM *bn = nullptr;
    const QByteArray cn = commonName.toUtf8().left(64); // CN is at most 64 characters
    bool good = RAND_bytes(serial, sizeof serial) == 1;
    serial[0] &= 0x7f; // positive
    serial[0] |= 0x01; // and never shorter than 128 bits' worth of leading zeros
    good = good && (bn = BN_bin2bn(serial, sizeof serial, nullptr)) != nullptr &&
           BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != nullptr && X509_set_version(cert, X509_VERSION_3) == 1 &&
           X509_gmtime_adj(X509_getm_notBefore(cert), -backdateSeconds) != nullptr &&
           X509_gmtime_adj(X509_getm_notAfter(cert), validSeconds) != nullptr &&
           X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_UTF8,
                                      reinterpret_cast<const unsigned char *>(cn.constData()), int(cn.size()), -1, 0) == 1;
    BN_free(bn);
    if (!good) {
        X509_free(cert);
        return nullptr;
    }
    return cert;
}

bool addExtension(X509 *cert, X509 *issuer, int nid, const QByteArray &value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.constData());
    if (!ext)
        return false;
    const bool added = X509_add_ext(cert, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    return added;
}

QByteArray toPem(X509 *cert)
{
    BIO *bio = BIO_new(BIO_s_mem());
    QByteArray out;
    if (bio && PEM_write_bio_X509(bio, cert) == 1) {
        char *data = nullptr;
        const long n = BIO_get_mem_data(bio, &data);
        out = QByteArray(data, n);
    }
    BIO_free(bio);
    return out;
}

QString lastError()
{
    QString text;
    while (const unsigned long e = ERR_get_error()) {
        char buffer[256];
        ERR_error_string_n(e, buffer, sizeof buffer);
        if (!text.isEmpty())
            text += QStringLiteral("; ");
        text += QString::fromLatin1(buffer);
    }
    return text.isEmpty() ? QStringLiteral("unknown OpenSSL error") : text;
}

} // namespace airlock::x509util
