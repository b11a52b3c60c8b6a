#pragma once
#include "daemon/service.h"
#include "vault.h"

#include <QThreadPool>
#include <memory>

namespace airlock {

class Daemon;
class Call;

// vault.* and secret.* (docs: cli.md; design.md "Secrets: lent, never handed over").
// Values are write-only: no method returns one. Deriving a key from a passphrase takes
// ~0.3 s of scrypt, so every call runs on the service's own worker thread, one at a time.
class VaultService : public Service {
public:
    explicit VaultService(Daemon &daemon);
    ~VaultService() override;

    QString name() const override { return QStringLiteral("vault"); }
    Status start() override;
    void stop() override;
    void registerMethods(ApiServer &api) override;
    void contributeStatus(QJsonObject &status) const override;

    // For the sandbox engine (lendSecret, issueSandboxCa at create) and the proxy (interceptor).
    Vault &vault() { return *m_vault; }

private:
    void onWorker(const Call &call, std::function<void(const Call &)> work);
    Daemon &m_daemon;
    std::unique_ptr<Vault> m_vault;
    QThreadPool m_worker;
};

} // namespace airlock
