#include "daemon/secretbridge.h"
#include "api/apiserver.h"
#include "core/logging.h"
#include "daemon/egressservice.h"
#include "daemon/vaultservice.h"
#include "api/jsonrpc.h"
#include "guestagent.h"
#include "gitcredentials.h"
#include "guesttrust.h"

#include <QDateTime>
#include <QSet>

namespace airlock {

namespace {
// The sandbox CA sits between these lines in the guest's bundle, so installing it again
// (every start) replaces it instead of piling copies up. PEM readers skip text between
// certificates.
constexpr char kBegin[] = "# Airlock sandbox CA (lent secrets are injected by the host proxy)\n";
constexpr char kEnd[] = "# end of the Airlock sandbox CA\n";
// Debian's whole bundle is about 220 KiB; a guest file far beyond that is not one.
constexpr qint64 kMaxGuestBundle = 4 << 20;
} // namespace

SecretBridge::SecretBridge(VaultService &vault, EgressService &egress, ApiServer &api)
    : m_vault(vault), m_egress(egress), m_api(api)
{
}

Status SecretBridge::start()
{
    // Each intercepted request is an egress event (with method and path), like any other flow.
    EventLog &log = m_egress.eventLog();
    m_vault.setInterceptListener([&log](const InterceptEvent &e) {
        // A request that was asked about keeps its pending record's id: now decided.
        EgressEvent ev = EgressEvent::interceptedRequest(e.eventId ? e.eventId : log.nextId(), e.sandbox, e.host, e.port, e.method, e.path);
        ev.decision = e.allowed ? Decision::Allowed : Decision::Denied;
        ev.rule = e.rule;
        // An allowed request's own note (a sign-in's tokens kept) says more than the default.
        ev.reason = e.allowed && e.reason.isEmpty() ? QStringLiteral("intercepted: secret injected where bound") : e.reason;
        ev.bytesUp = e.bytesUp;
        ev.bytesDown = e.bytesDown;
        ev.guestProcess = e.process;
        log.record(ev);
    });
    return ok();
}

void SecretBridge::stop()
{
    m_vault.setInterceptListener({});
}

Status SecretBridge::check(const QList<SecretLoan> &loans, const QMap<QString, QString> &env, uid_t owner)
{
    if (loans.isEmpty())
        return ok();
    Vault &vault = m_vault.vault();
    const VaultState state = vault.state();
    if (state != VaultState::Unlocked)
        return Error{QStringLiteral("cannot lend secrets: the Airlock vault is %1").arg(vaultStateName(state)),
                     state == VaultState::Uninitialised
                         ? QStringLiteral("create it (airlockctl vault init) and add the secret (airlockctl secret set)")
                         : QStringLiteral("unlock it first (airlockctl vault unlock); nothing was created"),
                     ErrorKind::Unavailable};
    auto all = vault.secrets(owner);
    if (!all)
        return all.error();
    QSet<QString> known, vars, secrets;
    for (const SecretInfo &s : all.value())
        known.insert(s.name);
    for (const SecretLoan &l : loans) {
        if (!known.contains(l.secret))
            return Error{QStringLiteral("no secret named %1").arg(l.secret),
                         QStringLiteral("add it first (airlockctl secret set %1 --host ...) or see `airlockctl secret ls`; "
                                        "nothing was created").arg(l.secret),
                         ErrorKind::NotFound};
        if (secrets.contains(l.secret))
            return Error{QStringLiteral("secret %1 is named twice").arg(l.secret), QStringLiteral("give each --secret once"),
                         ErrorKind::InvalidParams};
        if (vars.contains(l.envVar) || env.contains(l.envVar))
            return Error{QStringLiteral("environment variable %1 is set twice").arg(l.envVar),
                         QStringLiteral("give the secret another variable (--secret %1=OTHER_NAME)").arg(l.secret),
                         ErrorKind::InvalidParams};
        secrets.insert(l.secret);
        vars.insert(l.envVar);
    }
    return ok();
}

Status SecretBridge::checkBinding(const TemplateSecret &expected, const QString &templateName, uid_t owner)
{
    const QString add = QStringLiteral("printf %s \"$KEY\" | airlockctl secret set %1 --host %2 --header '%3'")
                            .arg(expected.name, expected.hosts.join(QStringLiteral(" --host ")), expected.header);
    const QString alternative = QStringLiteral("or lend another secret with --secret NAME=%1").arg(expected.envVar);
    Vault &vault = m_vault.vault();
    const VaultState state = vault.state();
    if (state != VaultState::Unlocked)
        return Error{QStringLiteral("template %1 lends the secret %2 but the Airlock vault is %3")
                         .arg(templateName, expected.name, vaultStateName(state)),
                     state == VaultState::Uninitialised
                         ? QStringLiteral("create it (airlockctl vault init), then add the key: %1; nothing was created").arg(add)
                         : QStringLiteral("unlock it first (airlockctl vault unlock); nothing was created"),
                     ErrorKind::Unavailable};
    auto all = vault.secrets(owner);
    if (!all)
        return all.error();
    for (const SecretInfo &s : all.value()) {
        if (s.name != expected.name)
            continue;
        for (const QString &host : expected.hosts)
            if (!s.hosts.contains(host, Qt::CaseInsensitive))
                return Error{QStringLiteral("secret %1 is not bound to %2, where template %3 sends it")
                                 .arg(expected.name, host, templateName),
                             QStringLiteral("set it again with: %1; %2").arg(add, alternative), ErrorKind::InvalidParams};
        const auto headerName = [](const QString &h) { return h.section(QLatin1Char(':'), 0, 0).trimmed().toLower(); };
        if (headerName(s.header) != headerName(expected.header))
            return Error{QStringLiteral("secret %1 is injected as '%2' but %3 sends its key as '%4'")
                             .arg(expected.name, s.header, templateName, expected.header),
                         QStringLiteral("set it again with: %1; %2").arg(add, alternative), ErrorKind::InvalidParams};
        return ok();
    }
    return Error{QStringLiteral("template %1 lends the secret %2 and the vault has none").arg(templateName, expected.name),
                 QStringLiteral("add the key: %1; %2; nothing was created").arg(add, alternative), ErrorKind::NotFound};
}

bool SecretBridge::caForRulesOnly(const QStringList &ruleNames) const
{
    return !ruleNames.isEmpty() && m_vault.vault().state() == VaultState::Unlocked;
}

Result<QMap<QString, QString>> SecretBridge::lend(Store &store, qint64 sandboxId, const QList<SecretLoan> &loans,
                                                  const std::optional<LoginSpec> &login, uid_t owner, const QStringList &ruleNames)
{
    QMap<QString, QString> env;
    if (loans.isEmpty() && !login && !caForRulesOnly(ruleNames))
        return env;
    Vault &vault = m_vault.vault();
    if (login) {
        if (Status s = vault.bindLogin(store, sandboxId, *login); !s)
            return s.error();
        // One sign-in serves every later sandbox of the template: it starts signed in.
        if (Result<int> lent = vault.lendLoginTokens(store, sandboxId, *login, owner); !lent)
            return lent.error();
    }
    for (const SecretLoan &l : loans) {
        Result<QByteArray> placeholder = vault.lendSecret(store, sandboxId, l.secret, l.envVar, owner);
        if (!placeholder)
            return placeholder.error();
        env.insert(l.envVar, QString::fromLatin1(placeholder.value()));
    }
    // The CA is name-constrained to the bound hosts, so it is made after the loans.
    if (Status s = prepareGuest(store, sandboxId, &env, ruleNames); !s)
        return s.error();
    return env;
}

// The sandbox's own CA, the environment that points the guest's TLS clients at the trust
// bundle holding it, and git's credential helper for the loans sent as Basic credentials.
Status SecretBridge::prepareGuest(Store &store, qint64 sandboxId, QMap<QString, QString> *env, const QStringList &ruleNames)
{
    Result<QByteArray> ca = m_vault.vault().issueSandboxCa(store, sandboxId, ruleNames);
    if (!ca)
        return ca.error();
    Result<QList<GitCredentialLoan>> gitLoans = m_vault.vault().gitCredentialLoans(store, sandboxId);
    if (!gitLoans)
        return gitLoans.error();
    env->insert(trustEnvironment(guestBundlePath()));
    env->insert(hostReadyVariable(), QStringLiteral("1"));
    env->insert(gitCredentialEnvironment(gitLoans.value()));
    return ok();
}

Result<QMap<QString, QString>> SecretBridge::inherit(Store &store, qint64 forkId, const QString &origin, const QStringList &ruleNames)
{
    Vault &vault = m_vault.vault();
    Result<QMap<QString, QString>> env = vault.inheritLoans(store, origin, forkId);
    if (!env || (env->isEmpty() && !caForRulesOnly(ruleNames)))
        return env;
    if (vault.state() != VaultState::Unlocked)
        return Error{QStringLiteral("cannot fork: %1 borrows secrets and the Airlock vault is %2")
                         .arg(origin, vaultStateName(vault.state())),
                     QStringLiteral("unlock it first (airlockctl vault unlock); nothing was created"), ErrorKind::Unavailable};
    if (Status s = prepareGuest(store, forkId, &env.value(), ruleNames); !s)
        return s.error();
    return env;
}

QByteArray SecretBridge::caPem(const QString &sandbox)
{
    Result<QByteArray> pem = m_vault.vault().sandboxCaPem(sandbox);
    return pem ? pem.value() : QByteArray();
}

GuestSetup SecretBridge::guestSetup(const QString &sandbox)
{
    GuestSetup setup{caPem(sandbox), {}, {}};
    if (setup.caPem.isEmpty())
        return setup;
    Vault &vault = m_vault.vault();
    for (const LoginSpec &spec : vault.logins(sandbox)) {
        if (!spec.credentialsFile)
            continue;
        Result<QMap<QString, HeldLoginToken>> held = vault.heldLoginTokens(sandbox, spec);
        if (!held) {
            qCWarning(lcVault) << "cannot read the sign-in of" << sandbox << ":" << held.error().message();
            continue;
        }
        if (held->isEmpty())
            continue; // never signed in: the CLI starts signed out and signs in as usual
        if (std::optional<QByteArray> file = spec.credentialsFile->render(*held, QDateTime::currentDateTimeUtc())) {
            setup.signInPath = spec.credentialsFile->path;
            setup.signInFile = std::move(*file);
            break;
        }
    }
    return setup;
}

void SecretBridge::forget(const QString &sandbox)
{
    m_vault.vault().forgetSandbox(sandbox);
}

void SecretBridge::loansCommitted()
{
    if (Status s = m_vault.vault().reloadLoans(); !s)
        qCWarning(lcVault) << "cannot reread the loans:" << s.error().message();
}

Status SecretBridge::installTrust(virDomainPtr domain, const QByteArray &caPem)
{
    const QString path = guestBundlePath();
    GuestAgent agent(domain);
    QByteArray current;
    if (Result<qint64> h = agent.openFile(path, QStringLiteral("r"))) {
        // The guest controls this file and the replies: read a bounded amount, never to its EOF.
        Result<QByteArray> read = agent.readAll(h.value(), kMaxGuestBundle);
        agent.closeFile(h.value());
        if (!read)
            return Error{QStringLiteral("cannot install the sandbox CA in the guest (%1)").arg(path), read.error().message()};
        current = read.value();
    }
    // Drop an earlier copy (a restart), keep the guest's own roots.
    const qsizetype begin = current.indexOf(kBegin);
    const qsizetype end = current.indexOf(kEnd);
    if (begin >= 0 && end > begin)
        current.remove(begin, end + qsizetype(strlen(kEnd)) - begin);
    QByteArray bundle = QByteArray(kBegin) + caPem;
    if (!bundle.endsWith('\n'))
        bundle += '\n';
    bundle += QByteArray(kEnd) + current;
    Result<qint64> h = agent.openFile(path, QStringLiteral("w"));
    if (!h)
        return Error{QStringLiteral("cannot install the sandbox CA in the guest (%1)").arg(path), h.error().message()};
    Status written = agent.write(h.value(), bundle);
    agent.closeFile(h.value());
    if (!written)
        return Error{QStringLiteral("cannot install the sandbox CA in the guest (%1)").arg(path), written.error().message()};
    return ok();
}

Status SecretBridge::installSignIn(virDomainPtr domain, const GuestSetup &setup, bool *written)
{
    *written = false;
    if (setup.signInPath.isEmpty())
        return ok();
    // Exit 3: the guest has a sign-in of its own (signed in or out there) and keeps it. The file
    // is only readable by its owner, like the CLI's own, and appears whole or not at all.
    static const QString script = QStringLiteral(
        "[ -e \"$1\" ] && exit 3; umask 077; mkdir -p \"$(dirname \"$1\")\" && cat > \"$1.airlock-new\" && mv -f \"$1.airlock-new\" \"$1\"");
    Result<ExecResult> r = GuestAgent(domain).exec({QStringLiteral("/bin/sh"), QStringLiteral("-c"), script, QStringLiteral("airlock-sign-in"),
                                                    setup.signInPath},
                                                   setup.signInFile, 30);
    if (!r)
        return Error{QStringLiteral("cannot write the sign-in file %1 in the guest").arg(setup.signInPath), r.error().message()};
    if (r->exitCode == 3)
        return ok();
    if (r->exitCode != 0) {
        // The guest's words, for an alert: printable ASCII only, bounded.
        QByteArray said = r->err.left(512);
        for (char &c : said)
            if (c < 0x20 || c > 0x7e)
                c = ' ';
        return Error{QStringLiteral("cannot write the sign-in file %1 in the guest").arg(setup.signInPath),
                     QStringLiteral("the guest said: %1").arg(QString::fromLatin1(said.simplified()))};
    }
    *written = true;
    return ok();
}

Status SecretBridge::markHostReady(virDomainPtr domain)
{
    GuestAgent agent(domain);
    Result<qint64> h = agent.openFile(hostReadyPath(), QStringLiteral("w"));
    if (!h)
        return h.error();
    return agent.closeFile(h.value());
}

bool SecretBridge::wants(const QString &sandbox, const QString &host, bool perRequest)
{
    return m_vault.interceptor().needsInterception(sandbox, host, perRequest);
}

void SecretBridge::take(int guestFd, const QString &sandbox, const QString &host, const QByteArray &alreadyRead,
                        const QHostAddress &upstream, quint16 port, bool perRequest, GuestProcessLookup whoAsks,
                        std::function<void()> done)
{
    m_vault.interceptor().handle(guestFd, sandbox, host, alreadyRead, UpstreamAddress{host, upstream, port}, perRequest,
                                 std::move(done), std::move(whoAsks));
}

void SecretBridge::endFlowsOf(const QString &sandbox)
{
    m_vault.interceptor().endSandbox(sandbox);
}

std::optional<QString> SecretBridge::placeholderIn(const QString &sandbox, QByteArrayView bytes)
{
    return m_vault.interceptor().placeholderOwner(sandbox, bytes);
}

void SecretBridge::exfiltration(const QString &sandbox, const QString &host, const QString &secret)
{
    m_api.postAlert(sandbox, QStringLiteral("exfiltration"),
                    QStringLiteral("%1 sent the placeholder of secret %2 to %3 over plain HTTP; the request was blocked")
                        .arg(sandbox, secret, host));
}

} // namespace airlock
