#pragma once
#include "core/result.h"
#include "securebytes.h"

#include <QByteArray>
#include <QStringList>
#include <memory>
#include <openssl/types.h>

namespace airlock {

class LeafMinter;

// One sandbox's own certificate authority (EC P-256): its certificate goes into the guest's
// trust store; its key, encrypted under the vault key at rest, mints the leaves the
// intercepting proxy presents. Name-constrained to the hosts of the secrets the sandbox
// borrows (and to no IP address), so even a stolen key vouches for nothing else.
class SandboxCa {
public:
    static Result<std::shared_ptr<SandboxCa>> generate(const QString &sandboxName, const QStringList &hostPatterns);
    static Result<std::shared_ptr<SandboxCa>> load(const QByteArray &certPem, const SecureBytes &keyDer);
    ~SandboxCa();
    SandboxCa(const SandboxCa &) = delete;
    SandboxCa &operator=(const SandboxCa &) = delete;

    QByteArray certificatePem() const;
    Result<SecureBytes> privateKeyDer() const; // PKCS#8 DER in secure memory, to be encrypted
    X509 *certificate() const { return m_cert; }
    EVP_PKEY *key() const { return m_key; }
    LeafMinter &minter() { return *m_minter; }

    static constexpr long kValiditySeconds = 10L * 365 * 24 * 3600;

private:
    SandboxCa(X509 *cert, EVP_PKEY *key);
    X509 *m_cert;
    EVP_PKEY *m_key;
    std::unique_ptr<LeafMinter> m_minter;
};

// The nameConstraints value for these host patterns ("critical,permitted;DNS:...,excluded;IP:...").
QByteArray nameConstraintsFor(const QStringList &hostPatterns);

} // namespace airlock
