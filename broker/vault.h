#pragma once
#include "core/loginspec.h"
#include "core/result.h"
#include "store/store.h"
#include "core/vaultstate.h"
#include "gitcredentials.h"
#include "loansnapshot.h"
#include "securebytes.h"

#include <QHash>
#include <QMutex>
#include <QString>
#include <QStringList>
#include <QThread>
#include <atomic>
#include <memory>
#include <sys/types.h>
#include <vector>

namespace airlock {

class SandboxCa;


// What `secret ls` shows: never the value.
struct SecretInfo {
    qint64 id = 0;
    QString name;
    QStringList hosts;
    QString header;
    QStringList usedBy; // sandbox names
    uid_t owner = 0;
    QString login;      // the sign-in that issued it (a template's name), "" for a secret set by hand
    QString expires;    // ISO 8601 UTC, "" when not known
};

// A token a sign-in issued, on its way into the vault (Vault::storeLoginTokens).
struct LoginTokenValue {
    const LoginToken *token = nullptr;
    QByteArrayView real;
    QByteArray placeholder; // what the sandbox's guest got instead
    QString expires;        // ISO 8601 UTC or ""
};

// A secret as one sandbox borrows it: the placeholder its guest sees and, for the proxy,
// the real value (secure memory, shared so a connection can hold it without copying).
struct LentSecret {
    QString name;
    QString envVar;
    QByteArray placeholder;
    QStringList hosts;
    QByteArray headerName;
    std::shared_ptr<const SecureBytes> value;
    QList<QByteArray> encoded; // base64Forms(placeholder): how it looks inside base64 text
    bool basic = false;        // template "Authorization: Basic {}": swapped inside Basic credentials too
    QByteArray queryName;      // template "?name={}": swapped in that query parameter (headerName empty)
};

// The vault: a random 256-bit vault key,
// wrapped by key slots (passphrase via scrypt; optionally the OS keyring), encrypting each
// secret with AES-256-GCM under a fresh nonce and an AAD that binds the row to its id,
// name, hosts, header and length. Thread-safe: the key lives under a mutex, and a thread
// other than the constructing one gets its own connection to the database.
class Vault {
public:
    explicit Vault(QString databasePath);
    ~Vault();
    Vault(const Vault &) = delete;
    Vault &operator=(const Vault &) = delete;

    Status open(); // opens the constructing thread's connection; call once
    // From memory (any thread, no SQLite): `status` asks it on the API thread.
    VaultState state() const;

    // Passphrases are taken as bytes (UTF-8) and never stored or logged.
    Status init(const QByteArray &passphrase); // leaves the vault unlocked
    Status unlock(const QByteArray &passphrase);
    void lock(); // forgets the vault key and every decrypted value
    Status changePassphrase(const QByteArray &oldPassphrase, const QByteArray &newPassphrase);

    // Optional OS keyring slot (fails clearly where no keyring exists).
    Status enableKeyringSlot();
    Status unlockFromKeyring();
    // Removes the slot and its key from the OS keyring (the keyring part is best effort: the
    // slot row alone can no longer open anything once its key is gone from either side).
    Status disableKeyringSlot();
    bool hasKeyringSlot();

    // Creates or replaces a secret (value validated, then encrypted; needs an unlocked vault).
    Status setSecret(const QString &name, const QStringList &hosts, const QString &headerTemplate,
                     const QByteArray &value, uid_t caller);
    Result<QList<SecretInfo>> secrets(uid_t viewer);
    Status removeSecret(const QString &name, uid_t caller);

    // Called by sandbox creation: records that `sandboxId` borrows `secretName` as `envVar`
    // and returns the placeholder to put in the guest's environment. Works while locked
    // (only the stored length is needed). `store` lets the caller do it inside its own
    // transaction on its own connection.
    Result<QByteArray> lendSecret(Store &store, qint64 sandboxId, const QString &secretName, const QString &envVar,
                                  uid_t caller);
    Result<QByteArray> lendSecret(qint64 sandboxId, const QString &secretName, const QString &envVar, uid_t caller);
    // A fork borrows what its origin borrows, under the same placeholders (its disk may hold
    // them already). Returns variable -> placeholder; empty when the origin borrows nothing.
    Result<QMap<QString, QString>> inheritLoans(Store &store, const QString &originSandbox, qint64 forkId);
    // The sandbox's loans of secrets sent as Basic credentials (`Authorization: Basic {}`):
    // what the guest's git needs to offer their placeholders (gitcredentials.h). No key needed.
    Result<QList<GitCredentialLoan>> gitCredentialLoans(Store &store, qint64 sandboxId);

    // The host patterns of every secret the sandbox borrows (no key needed: works while locked).
    // This and placeholders() answer from memory (LoanSnapshot): the proxy's loop asks them
    // per flow and must never wait on SQLite. The snapshot follows every change made here
    // (secret set/rm, lend, inherit, forgetSandbox); call reloadLoans() after a transaction
    // that lent (a sandbox create or fork) has committed or rolled back.
    Result<QStringList> boundHosts(const QString &sandboxName);
    // Every name the sandbox's CA may speak for (empty without a CA), from memory as boundHosts.
    QStringList caHosts(const QString &sandboxName);

    // (secret name, placeholder) of every secret the sandbox borrows; works while locked.
    Result<QList<QPair<QString, QByteArray>>> placeholders(const QString &sandboxName);
    // Rereads every loan from the committed rows (any thread: its own connection).
    Status reloadLoans();

    // For the intercepting proxy: every secret the sandbox borrows, decrypted.
    // Fails with code Unavailable and "the Airlock vault is locked" while locked.
    Result<std::vector<LentSecret>> lentSecrets(const QString &sandboxName);
    // Changes whenever what lentSecrets() answers may have changed (a secret set, a sign-in
    // refreshed, a loan, a lock): a connection holding its values compares before each request.
    quint64 lentGeneration() const { return m_lentGeneration.load(std::memory_order_acquire); }

    // The sandbox's own CA (created at sandbox creation, name-constrained to the hosts of the
    // secrets it borrows, of its sign-ins and `ruleHosts`, the names of request rules it starts
    // with; key encrypted under the vault key). Returns the certificate PEM.
    Result<QByteArray> issueSandboxCa(Store &store, qint64 sandboxId, const QStringList &ruleHosts = {});
    Result<QByteArray> issueSandboxCa(qint64 sandboxId);
    Result<QByteArray> sandboxCaPem(const QString &sandboxName);
    // The loaded CA for minting leaves. Loading needs an unlocked vault; once loaded it stays
    // in memory after lock() so a locked vault can still be reported over TLS (it guards only
    // this sandbox's own traffic, not any secret).
    Result<std::shared_ptr<SandboxCa>> sandboxCa(const QString &sandboxName);

    // Sign-ins (vaultlogins.cpp). A sandbox made from a template with a login intercepts the
    // login's hosts from its creation on (recorded inside the create transaction, before
    // the CA, which is name-constrained to them).
    Status bindLogin(Store &db, qint64 sandboxId, const LoginSpec &spec);
    Status bindLogin(qint64 sandboxId, const LoginSpec &spec) { return bindLogin(store(), sandboxId, spec); }
    // The logins of a sandbox, from memory (LoanSnapshot).
    QList<LoginSpec> logins(const QString &sandboxName);
    // The placeholder `sandboxName` has for a token secret, when it has one of `length`;
    // else a new one (a client may check a token's length).
    QByteArray loginPlaceholder(const QString &sandboxName, const QString &secretName, int length);
    // Seals the tokens a token endpoint issued as the secrets <login>.<name>, bound to the
    // token's hosts (or the token URLs' for one only sent back there), owned by the sandbox's
    // owner, and lends each to the sandbox under `placeholder`. One transaction: all or none.
    Status storeLoginTokens(const QString &sandboxName, const LoginSpec &spec, const QList<LoginTokenValue> &tokens);
    // A sandbox made after a sign-in borrows the tokens the vault holds of `spec` for `owner`
    // (inside the create transaction), each under a placeholder of its own: a JWT keeps its
    // header and claims. Returns how many it borrows (0: the sandbox starts signed out).
    Result<int> lendLoginTokens(Store &db, qint64 sandboxId, const LoginSpec &spec, uid_t owner);
    Result<int> lendLoginTokens(qint64 sandboxId, const LoginSpec &spec, uid_t owner) { return lendLoginTokens(store(), sandboxId, spec, owner); }
    // What `sandboxName` holds of `spec`'s tokens: token name -> placeholder and expiry.
    Result<QMap<QString, HeldLoginToken>> heldLoginTokens(const QString &sandboxName, const LoginSpec &spec);

    // The engine calls this when a sandbox is removed: its CA and decrypted secrets leave memory.
    void forgetSandbox(const QString &sandboxName);

    static QString lockedMessage();

private:
    Store &store();
    // Creates or reseals the row of secret `name` (db inside a transaction); its id.
    struct SealedRow {
        QString name;
        QString hostsJson;
        QString header;
        QByteArrayView value;
        uid_t caller = 0;   // 0 (root) may reseal another user's secret
        QString login;
        QString expires;
    };
    Result<qint64> sealSecret(Store &db, const SecureBytes &key, const SealedRow &row);
    // Forgets decrypted loans (all, or one sandbox's) and moves lentGeneration on (m_mutex held).
    void dropLentSecrets(const QString &sandboxName = {});
    // Every loan (sandboxId 0), or one sandbox's, read on `db` (inside its transaction).
    Status reloadLoans(Store &db, qint64 sandboxId);
    // Adds the sign-ins of every sandbox (sandboxId 0), or of one, to `loans` (vaultlogins.cpp).
    static Status readLogins(Store &db, qint64 sandboxId, LoanSnapshot::Map *loans);
    static Status readCaHosts(Store &db, qint64 sandboxId, LoanSnapshot::Map *loans);
    Result<SecureBytes> keyCopy() const;
    Result<SecureBytes> decryptSecretRow(const SecureBytes &key, qint64 id, const QString &name, const QString &hostsJson,
                                         const QString &header, int valueLength, const QByteArray &nonce,
                                         const QByteArray &ciphertext) const;

    QString m_path;
    QThread *m_ownerThread = nullptr;
    Store m_store;
    mutable QMutex m_mutex;
    std::atomic<bool> m_initialised{false}; // a passphrase slot exists (read by open(), set by init())
    std::unique_ptr<SecureBytes> m_key; // null while locked
    QHash<QString, std::shared_ptr<SandboxCa>> m_cas;
    // Decrypted secrets per sandbox while unlocked, so a new intercepted connection costs no
    // database round trip; dropped on lock and on any change to secrets or loans.
    QHash<QString, std::vector<LentSecret>> m_lentCache;
    std::atomic<quint64> m_lentGeneration{0};
    LoanSnapshot m_loans;
};

} // namespace airlock
