#pragma once
// Joins the vault to the sandboxes and to the egress broker, end to end:
// - sandbox.create's `secrets`: checked before anything is made, then lent inside the
//   engine's create transaction (placeholder per secret, the sandbox's CA) and turned into
//   guest environment (the placeholders and the trust variables);
// - once a guest's agent answers: the sandbox CA joins the guest's system roots in
//   /etc/ssl/certs/ca-certificates.crt (every trust variable points there);
// - the transparent proxy's FlowHandoff: allowed TLS flows to a bound host go to the vault's
//   Interceptor; a placeholder in plain HTTP is refused and alerted;
// - intercepted requests become egress events.
#include "daemon/service.h"
#include "agenttemplate.h"
#include "flowhandoff.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <libvirt/libvirt.h>
#include <sys/types.h>

namespace airlock {

class ApiServer;
class EgressService;
class Store;
class VaultService;

// What a guest gets from the bridge once its agent answers; read on the engine thread.
struct GuestSetup {
    QByteArray caPem;       // empty: the sandbox borrows nothing, and nothing below applies
    QString signInPath;     // "": no sign-in file to write
    QByteArray signInFile;  // the CLI's credentials file, holding this sandbox's placeholders
};

// One `--secret SECRET[=ENVVAR]`.
struct SecretLoan {
    QString secret;
    QString envVar;
};

class SecretBridge : public Service, public FlowHandoff {
public:
    // Where the guest's trust bundle lives (the tiny image's curl reads it).
    static QString guestBundlePath() { return QStringLiteral("/etc/ssl/certs/ca-certificates.crt"); }
    // The guest's console waits (30 s at most) for this file while this variable is set, so the
    // agent there starts with the sandbox CA and its sign-in in place (the images' guest-init).
    static QString hostReadyVariable() { return QStringLiteral("AIRLOCK_HOST_SETUP"); }
    static QString hostReadyPath() { return QStringLiteral("/run/airlock-host-ready"); }

    SecretBridge(VaultService &vault, EgressService &egress, ApiServer &api);

    QString name() const override { return QStringLiteral("secret-bridge"); }
    Status start() override;
    void stop() override; // before egress stops: intercepted requests no longer reach its event log
    void registerMethods(ApiServer &) override {}

    // Before create makes anything: the vault is unlocked, every secret exists for `owner`,
    // no variable is named twice or clashes with `env`.
    Status check(const QList<SecretLoan> &loans, const QMap<QString, QString> &env, uid_t owner);
    // An agent template expects `expected`: the vault holds it for `owner`, bound to the
    // template's hosts with its header, or the error says how to add it (before anything is made).
    Status checkBinding(const TemplateSecret &expected, const QString &templateName, uid_t owner);
    // Inside create's transaction: the loans and the sandbox CA; returns the guest variables.
    // `login`: the template's sign-in; the sandbox intercepts its hosts from the start.
    // `ruleNames`: the names of the request rules it starts with (Policy::requestRuleNames);
    // its CA covers them too, so their requests can be read over TLS. A sandbox that borrows
    // nothing gets a CA for them only while the vault is unlocked (its key is sealed by it);
    // without one those rules decide its TLS connections whole (caPem says which).
    Result<QMap<QString, QString>> lend(Store &store, qint64 sandboxId, const QList<SecretLoan> &loans,
                                        const std::optional<LoginSpec> &login, uid_t owner, const QStringList &ruleNames = {});
    // Inside a fork's create transaction: the origin's loans and a CA of the fork's own.
    Result<QMap<QString, QString>> inherit(Store &store, qint64 forkId, const QString &origin, const QStringList &ruleNames = {});
    // The sandbox CA's certificate, or empty when it has none (engine thread).
    QByteArray caPem(const QString &sandbox);
    // The sandbox is gone (or its create failed): its CA and decrypted secrets leave memory.
    void forget(const QString &sandbox);
    // A create or fork transaction that lent has ended: the proxy's in-memory view of the
    // loans (Vault::boundHosts / placeholders) is reread from what was committed.
    void loansCommitted();
    // The CA and, when it borrows a sign-in its template keeps in a file, that file (engine thread).
    GuestSetup guestSetup(const QString &sandbox);
    // Puts `caPem` in front of the guest's system roots (any thread; the agent must answer).
    static Status installTrust(virDomainPtr domain, const QByteArray &caPem);
    // Writes the sign-in file where the guest has none (a guest that signed in or out keeps
    // its own); `written` says whether it did. Any thread; the agent must answer.
    static Status installSignIn(virDomainPtr domain, const GuestSetup &setup, bool *written);
    // Tells the guest's console the setup is done (hostReadyPath).
    static Status markHostReady(virDomainPtr domain);

    // FlowHandoff (the proxy's epoll thread).
    bool wants(const QString &sandbox, const QString &host, bool perRequest) override;
    void take(int guestFd, const QString &sandbox, const QString &host, const QByteArray &alreadyRead,
              const QHostAddress &upstream, quint16 port, bool perRequest, GuestProcessLookup whoAsks,
              std::function<void()> done) override;
    std::optional<QString> placeholderIn(const QString &sandbox, QByteArrayView bytes) override;
    void endFlowsOf(const QString &sandbox) override;
    void exfiltration(const QString &sandbox, const QString &host, const QString &secret) override;

private:
    Status prepareGuest(Store &store, qint64 sandboxId, QMap<QString, QString> *env, const QStringList &ruleNames);
    // With nothing borrowed: does the sandbox get a CA for its request rules' names?
    bool caForRulesOnly(const QStringList &ruleNames) const;
    VaultService &m_vault;
    EgressService &m_egress;
    ApiServer &m_api;
};

} // namespace airlock
