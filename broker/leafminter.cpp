#include "leafminter.h"
#include "secrethosts.h"
#include "x509util.h"

#include <QMutexLocker>
#include <openssl/evp.h>
#include <openssl/x509v3.h>

namespace airlock {

Leaf::~Leaf()
{
    X509_free(cert);
    EVP_PKEY_free(key);
}

LeafMinter::LeafMinter(X509 *caCert, EVP_PKEY *caKey) : m_caCert(caCert), m_caKey(caKey) {}

int LeafMinter::cachedCount() const
{
    QMutexLocker locker(&m_mutex);
    return int(m_cache.size());
}

Result<std::shared_ptr<const Leaf>> LeafMinter::leafFor(const QString &serverName)
{
    Result<QString> name = secrethosts::normalize(serverName);
    if (!name || name->startsWith(QLatin1Char('*')))
        return Error{QStringLiteral("cannot mint a certificate for \"%1\"").arg(serverName),
                     QStringLiteral("the TLS server name is not a valid host name")};
    const QDateTime renewAfter = QDateTime::currentDateTimeUtc().addSecs(3600);
    {
        QMutexLocker locker(&m_mutex);
        if (auto it = m_cache.constFind(name.value()); it != m_cache.constEnd() && it.value()->notAfter > renewAfter)
            return it.value();
    }
    Result<std::shared_ptr<const Leaf>> leaf = mint(name.value());
    if (!leaf)
        return leaf;
    QMutexLocker locker(&m_mutex);
    if (m_cache.size() >= kMaxCached)
        m_cache.clear(); // a guest cycling through names cannot grow this without bound
    m_cache.insert(name.value(), leaf.value());
    return leaf;
}

Result<std::shared_ptr<const Leaf>> LeafMinter::mint(const QString &name) const
{
    auto leaf = std::make_shared<Leaf>();
    leaf->key = x509util::generateP256();
    leaf->cert = leaf->key ? x509util::newCertificate(name, kBackdateSeconds, kValiditySeconds) : nullptr;
    const bool good = leaf->cert && X509_set_issuer_name(leaf->cert, X509_get_subject_name(m_caCert)) == 1 &&
                      X509_set_pubkey(leaf->cert, leaf->key) == 1 &&
                      x509util::addExtension(leaf->cert, m_caCert, NID_basic_constraints, "critical,CA:FALSE") &&
                      x509util::addExtension(leaf->cert, m_caCert, NID_key_usage, "critical,digitalSignature") &&
                      x509util::addExtension(leaf->cert, m_caCert, NID_ext_key_usage, "serverAuth") &&
                      x509util::addExtension(leaf->cert, m_caCert, NID_subject_alt_name, "DNS:" + name.toLatin1()) &&
                      x509util::addExtension(leaf->cert, m_caCert, NID_subject_key_identifier, "hash") &&
                      x509util::addExtension(leaf->cert, m_caCert, NID_authority_key_identifier, "keyid:always") &&
                      X509_sign(leaf->cert, m_caKey, EVP_sha256()) > 0;
    if (!good)
        return Error{QStringLiteral("cannot mint a certificate for %1").arg(name), x509util::lastError()};
    leaf->notAfter = QDateTime::currentDateTimeUtc().addSecs(kValiditySeconds);
    return std::shared_ptr<const Leaf>(std::move(leaf));
}

} // namespace airlock
