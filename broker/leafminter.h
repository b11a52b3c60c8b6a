#pragma once
#include "core/result.h"

#include <QDateTime>
#include <QHash>
#include <QMutex>
#include <QString>
#include <memory>
#include <openssl/types.h>

namespace airlock {

// A minted server certificate and its key.
struct Leaf {
    X509 *cert = nullptr;
    EVP_PKEY *key = nullptr;
    QDateTime notAfter;
    ~Leaf();
};

// Mints leaf certificates under one CA, per SNI: EC P-256, SAN = the name, AKI/SKI,
// notBefore backdated an hour (guests with skewed clocks), valid a day, cached until an
// hour before expiry. Thread-safe.
class LeafMinter {
public:
    LeafMinter(X509 *caCert, EVP_PKEY *caKey);
    Result<std::shared_ptr<const Leaf>> leafFor(const QString &serverName);
    int cachedCount() const;

    static constexpr long kBackdateSeconds = 3600;
    static constexpr long kValiditySeconds = 24 * 3600;
    static constexpr int kMaxCached = 1024;

private:
    Result<std::shared_ptr<const Leaf>> mint(const QString &name) const;
    X509 *m_caCert;
    EVP_PKEY *m_caKey;
    mutable QMutex m_mutex;
    QHash<QString, std::shared_ptr<const Leaf>> m_cache;
};

} // namespace airlock
