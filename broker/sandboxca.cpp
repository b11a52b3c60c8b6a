#include "sandboxca.h"
#include "leafminter.h"
#include "x509util.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

namespace airlock {

QByteArray nameConstraintsFor(const QStringList &hostPatterns)
{
    // "example.com" permits the name and all below it (RFC 5280; understood by OpenSSL,
    // NSS, Go, rustls). A leading-dot form is not read the same everywhere, so *.example.com
    // becomes the domain itself. No IP address is ever permitted.
    QByteArray value("critical");
    for (const QString &p : hostPatterns) {
        const QString domain = p.startsWith(QLatin1String("*.")) ? p.mid(2) : p;
        value += ",permitted;DNS:" + domain.toLatin1();
    }
    value += ",excluded;IP:0.0.0.0/0.0.0.0,excluded;IP:::/::";
    return value;
}

SandboxCa::SandboxCa(X509 *cert, EVP_PKEY *key) : m_cert(cert), m_key(key), m_minter(std::make_unique<LeafMinter>(cert, key))
{
}

SandboxCa::~SandboxCa()
{
    m_minter.reset();
    X509_free(m_cert);
    EVP_PKEY_free(m_key);
}

Result<std::shared_ptr<SandboxCa>> SandboxCa::generate(const QString &sandboxName, const QStringList &hostPatterns)
{
    const auto failed = [] {
        return Error{QStringLiteral("cannot create the sandbox's CA"), x509util::lastError()};
    };
    EVP_PKEY *key = x509util::generateP256();
    if (!key)
        return failed();
    X509 *cert = x509util::newCertificate(QStringLiteral("Airlock sandbox %1").arg(sandboxName), 3600, kValiditySeconds);
    if (!cert) {
        EVP_PKEY_free(key);
        return failed();
    }
    bool good = X509_set_issuer_name(cert, X509_get_subject_name(cert)) == 1 && X509_set_pubkey(cert, key) == 1 &&
                x509util::addExtension(cert, cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") &&
                x509util::addExtension(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign") &&
                x509util::addExtension(cert, cert, NID_subject_key_identifier, "hash");
    if (good && !hostPatterns.isEmpty())
        good = x509util::addExtension(cert, cert, NID_name_constraints, nameConstraintsFor(hostPatterns));
    good = good && X509_sign(cert, key, EVP_sha256()) > 0;
    if (!good) {
        X509_free(cert);
        EVP_PKEY_free(key);
        return failed();
    }
    return std::shared_ptr<SandboxCa>(new SandboxCa(cert, key));
}

Result<std::shared_ptr<SandboxCa>> SandboxCa::load(const QByteArray &certPem, const SecureBytes &keyDer)
{
    BIO *bio = BIO_new_mem_buf(certPem.constData(), int(certPem.size()));
    X509 *cert = bio ? PEM_read_bio_X509(bio, nullptr, nullptr, nullptr) : nullptr;
    BIO_free(bio);
    const unsigned char *p = keyDer.data();
    EVP_PKEY *key = d2i_AutoPrivateKey(nullptr, &p, long(keyDer.size()));
    if (!cert || !key || X509_check_private_key(cert, key) != 1) {
        X509_free(cert);
        EVP_PKEY_free(key);
        return Error{QStringLiteral("the sandbox's CA cannot be loaded"), x509util::lastError()};
    }
    return std::shared_ptr<SandboxCa>(new SandboxCa(cert, key));
}

QByteArray SandboxCa::certificatePem() const { return x509util::toPem(m_cert); }

Result<SecureBytes> SandboxCa::privateKeyDer() const
{
    const int size = i2d_PrivateKey(m_key, nullptr);
    if (size <= 0)
        return Error{QStringLiteral("cannot serialise the CA key"), x509util::lastError()};
    SecureBytes der{std::size_t(size)};
    unsigned char *out = der.data();
    if (i2d_PrivateKey(m_key, &out) != size)
        return Error{QStringLiteral("cannot serialise the CA key"), x509util::lastError()};
    return der;
}

} // namespace airlock
