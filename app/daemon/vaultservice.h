#pragma once
#include "daemon/service.h"
#include "interceptor.h"
#include "vault.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QThreadPool>
#include <memory>
#include <mutex>

namespace airlock {

class Daemon;
class Call;

// vault.* and secret.* over the Vault (broker/vault.h); params and results in app/PROTOCOL.md.
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
    void contributeStatus(proto::DaemonStatus &status) const override;

    // For the sandbox engine (lendSecret, issueSandboxCa at create) and the proxy (interceptor).
    Vault &vault() { return *m_vault; }
    // The egress broker hands flows to bound hosts here (needsInterception, then handle).
    Interceptor &interceptor() { return *m_interceptor; }
    // The egress broker records intercepted requests as egress events; called on connection
    // threads. Alerts (exfiltration, vault_locked) are published on topic "alert" by this
    // service itself.
    void setInterceptListener(Interceptor::EventSink listener);
    // Decides the requests of flows handed over per request (the egress policy); set before start().
    void setRequestDecider(RequestDecider decider) { m_requestDecider = std::move(decider); }
    // Asks the person about a request no rule answers (the egress broker's pending items); set before start().
    void setRequestAsking(RequestAsking asking) { m_requestAsking = std::move(asking); }

private:
    void registerVaultMethods(ApiServer &api);
    void registerSecretMethods(ApiServer &api);
    void onWorker(const Call &call, std::function<void(const Call &)> work);
    Daemon &m_daemon;
    std::unique_ptr<Vault> m_vault;
    std::unique_ptr<Interceptor> m_interceptor;
    RequestDecider m_requestDecider;
    RequestAsking m_requestAsking;
    bool shouldAlert(const InterceptEvent &e); // any connection thread
    std::mutex m_listenerMutex;
    Interceptor::EventSink m_listener;
    std::mutex m_alertMutex;
    QHash<QString, QDeadlineTimer> m_lockedAlerted; // sandbox -> until when it is not told again
    QThreadPool m_worker;
};

} // namespace airlock
