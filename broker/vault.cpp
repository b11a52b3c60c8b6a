#include "vault.h"
#include "aesgcm.h"
#include "basicauth.h"
#include "core/crashpoint.h"
#include "core/logging.h"
#include "headertemplate.h"
#include "keyringslot.h"
#include "passphraseslot.h"
#include "placeholder.h"
#include "sandboxca.h"
#include "secrethosts.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutexLocker>
#include <QRegularExpression>
#include <QSqlRecord>
#include <map>
#include <openssl/rand.h>

namespace airlock {

namespace {

constexpr int kSaltBytes = 16;

QString now() { return QDateTime::currentDateTimeUtc().toString(Qt::ISODate); }

// Qt binds a null QString as SQL NULL; these columns hold "" for none.
QString notNull(const QString &s) { return s.isNull() ? QStringLiteral("") : s; }

// The store's error under what this file was doing.
template <typename T>
Error sqlError(const QString &what, const Result<T> &failed)
{
    return Error{what, failed.error().why};
}

Error lockedError()
{
    return Error{Vault::lockedMessage(), QStringLiteral("unlock it with `airlockctl vault unlock`"), ErrorKind::Unavailable};
}

Error uninitialisedError()
{
    return Error{QStringLiteral("the Airlock vault is not initialised"),
                 QStringLiteral("create it with `airlockctl vault init` (you choose its passphrase)"), ErrorKind::Unavailable};
}

QByteArray slotAad(const QString &kind, const QString &params)
{
    return QByteArrayLiteral("airlock key slot v1") + '\0' + kind.toUtf8() + '\0' + params.toUtf8();
}

QByteArray secretAad(qint64 id, const QString &name, const QString &hostsJson, const QString &header, int length)
{
    return QByteArrayLiteral("airlock secret v1") + '\0' + QByteArray::number(id) + '\0' + name.toUtf8() + '\0' +
           hostsJson.toUtf8() + '\0' + header.toUtf8() + '\0' + QByteArray::number(length);
}

QByteArray caAad(qint64 sandboxId, const QByteArray &certPem)
{
    return QByteArrayLiteral("airlock sandbox ca v1") + '\0' + QByteArray::number(sandboxId) + '\0' + certPem;
}

Status checkPassphrase(const QByteArray &passphrase)
{
    if (passphrase.size() < 8)
        return Error{QStringLiteral("the passphrase is too short"),
                     QStringLiteral("use at least 8 characters (a few words are easiest to remember)"), ErrorKind::InvalidParams};
    if (passphrase.size() > 1024)
        return Error{QStringLiteral("the passphrase is too long"), QStringLiteral("use at most 1024 bytes"),
                     ErrorKind::InvalidParams};
    return ok();
}

Status checkSecretName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"));
    if (!re.match(name).hasMatch())
        return Error{QStringLiteral("invalid secret name \"%1\"").arg(name),
                     QStringLiteral("use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"),
                     ErrorKind::InvalidParams};
    return ok();
}

Status checkValue(const QByteArray &value)
{
    if (value.isEmpty())
        return Error{QStringLiteral("the secret's value is empty"),
                     QStringLiteral("pass it on standard input, e.g. `printf %s \"$KEY\" | airlockctl secret set ...`"),
                     ErrorKind::InvalidParams};
    if (value.size() < kMinSecretLength || value.size() > kMaxSecretLength)
        return Error{QStringLiteral("the secret's value has %1 bytes").arg(value.size()),
                     QStringLiteral("it must have %1 to %2 (a shorter placeholder could occur in traffic by chance)")
                         .arg(kMinSecretLength).arg(kMaxSecretLength),
                     ErrorKind::InvalidParams};
    for (char c : value) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f)
            return Error{QStringLiteral("the secret's value contains a line break, control or non-ASCII character"),
                         QStringLiteral("it is sent in an HTTP header, which cannot carry those; check for a stray "
                                        "newline or paste"),
                         ErrorKind::InvalidParams};
    }
    return ok();
}

QStringList hostsFromJson(const QString &json)
{
    QStringList hosts;
    const QJsonArray a = QJsonDocument::fromJson(json.toUtf8()).array();
    for (const QJsonValue &v : a)
        hosts.append(v.toString());
    return hosts;
}

struct SlotRow {
    qint64 id = 0;
    QString params;
    QByteArray salt;
    QByteArray wrapped;
};

Result<std::optional<SlotRow>> readSlot(Store &store, const QString &kind)
{
    const auto row = store.firstRow(
        QStringLiteral("SELECT id, kdf_params, salt, wrapped_key FROM key_slots WHERE kind = ? ORDER BY id LIMIT 1"), {kind});
    if (!row)
        return sqlError(QStringLiteral("cannot read the vault's key slots"), row);
    if (!*row)
        return std::optional<SlotRow>();
    const QSqlRecord &r = **row;
    return std::optional<SlotRow>(SlotRow{r.value(0).toLongLong(), r.value(1).toString(), r.value(2).toByteArray(),
                                          r.value(3).toByteArray()});
}

Result<SecureBytes> openPassphraseSlot(const SlotRow &slot, const QByteArray &passphrase)
{
    Result<ScryptParams> params = ScryptParams::fromJson(QJsonDocument::fromJson(slot.params.toUtf8()).object());
    if (!params)
        return params.error();
    Result<SecureBytes> kek = deriveKeyFromPassphrase(passphrase, slot.salt, *params);
    if (!kek)
        return kek.error();
    Result<SecureBytes> key = unwrapVaultKey(kek.value(), slot.wrapped, slotAad(QStringLiteral("passphrase"), slot.params));
    if (!key || key->size() != std::size_t(aesgcm::kKeyBytes))
        return Error{QStringLiteral("wrong passphrase"),
                     QStringLiteral("the vault stays locked; try again (the passphrase is the one given at "
                                    "`airlockctl vault init` or the last change)"),
                     ErrorKind::PermissionDenied};
    return std::move(key.value());
}

struct NewSlot {
    QString params;
    QByteArray salt;
    QByteArray wrapped;
};

Result<NewSlot> makePassphraseSlot(const SecureBytes &vaultKey, const QByteArray &passphrase)
{
    NewSlot slot;
    const ScryptParams params = calibrateScrypt();
    slot.params = QString::fromUtf8(QJsonDocument(params.toJson()).toJson(QJsonDocument::Compact));
    slot.salt.resize(kSaltBytes);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(slot.salt.data()), kSaltBytes) != 1)
        return Error{QStringLiteral("cannot create the passphrase slot"), QStringLiteral("no randomness for the salt")};
    Result<SecureBytes> kek = deriveKeyFromPassphrase(passphrase, slot.salt, params);
    if (!kek)
        return kek.error();
    Result<QByteArray> wrapped = wrapVaultKey(kek.value(), vaultKey, slotAad(QStringLiteral("passphrase"), slot.params));
    if (!wrapped)
        return wrapped.error();
    slot.wrapped = wrapped.value();
    qCInfo(lcVault) << "passphrase slot: scrypt" << slot.params;
    return slot;
}

// Other threads (API workers, proxy connections) each get their own connection.
Store *threadStore(const QString &path, Error *error)
{
    thread_local std::map<QString, std::unique_ptr<Store>> stores;
    auto it = stores.find(path);
    if (it != stores.end())
        return it->second.get();
    Result<Store> opened = Store::open(path);
    if (!opened) {
        *error = opened.error();
        return nullptr;
    }
    auto owned = std::make_unique<Store>(std::move(opened.value()));
    Store *raw = owned.get();
    stores.emplace(path, std::move(owned));
    return raw;
}

} // namespace

QString Vault::lockedMessage() { return QStringLiteral("the Airlock vault is locked"); }

Vault::Vault(QString databasePath) : m_path(std::move(databasePath)), m_ownerThread(QThread::currentThread())
{
    initSecureHeap();
}

Vault::~Vault() { lock(); }

Status Vault::open()
{
    Result<Store> s = Store::open(m_path);
    if (!s)
        return s.error();
    m_store = std::move(s.value());
    // Whether a key slot exists is read once here: only this Vault writes key slots (one
    // daemon per data directory), so state() answers from memory and never touches SQLite.
    const auto slots = m_store.firstRow(QStringLiteral("SELECT count(*) FROM key_slots"));
    if (!slots || !*slots)
        return Error{QStringLiteral("cannot read the vault's key slots"), slots ? QString() : slots.error().why};
    m_initialised = (*slots)->value(0).toInt() > 0;
    return reloadLoans(m_store, 0);
}

Store &Vault::store()
{
    if (QThread::currentThread() == m_ownerThread)
        return m_store;
    Error error;
    Store *s = threadStore(m_path, &error);
    if (!s) {
        qCWarning(lcVault) << "cannot open the store on a worker thread:" << error.message();
        return m_store; // QtSql refuses it on this thread: the caller then gets an SQL error
    }
    return *s;
}

VaultState Vault::state() const
{
    {
        QMutexLocker locker(&m_mutex);
        if (m_key)
            return VaultState::Unlocked;
    }
    return m_initialised ? VaultState::Locked : VaultState::Uninitialised;
}

Result<SecureBytes> Vault::keyCopy() const
{
    QMutexLocker locker(&m_mutex);
    if (!m_key)
        return lockedError();
    return SecureBytes::copyOf(m_key->chars(), m_key->size());
}

Status Vault::init(const QByteArray &passphrase)
{
    if (Status s = checkPassphrase(passphrase); !s)
        return s;
    if (state() != VaultState::Uninitialised)
        return Error{QStringLiteral("the Airlock vault is already initialised"),
                     QStringLiteral("unlock it with `airlockctl vault unlock`; to change its passphrase use "
                                    "vault.change_passphrase"),
                     ErrorKind::Conflict};
    SecureBytes key = SecureBytes::random(aesgcm::kKeyBytes);
    if (key.isEmpty())
        return Error{QStringLiteral("cannot create the vault key"), QStringLiteral("no randomness available")};
    Result<NewSlot> slot = makePassphraseSlot(key, passphrase);
    if (!slot)
        return slot.error();
    // One statement: the slot goes in only while there is none.
    const Result<int> written = store().change(QStringLiteral("INSERT INTO key_slots(kind, kdf_params, salt, wrapped_key, created) "
                                                              "SELECT 'passphrase', ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM key_slots)"),
                                               {slot->params, slot->salt, slot->wrapped, now()});
    if (!written)
        return sqlError(QStringLiteral("cannot store the passphrase slot"), written);
    if (*written != 1)
        return Error{QStringLiteral("the Airlock vault is already initialised"),
                     QStringLiteral("another client initialised it just now; unlock it instead"), ErrorKind::Conflict};
    m_initialised = true; // a passphrase slot is never removed
    QMutexLocker locker(&m_mutex);
    m_key = std::make_unique<SecureBytes>(std::move(key));
    qCInfo(lcVault) << "vault initialised and unlocked";
    return ok();
}

Status Vault::unlock(const QByteArray &passphrase)
{
    if (passphrase.isEmpty())
        return Error{QStringLiteral("no passphrase given"), QStringLiteral("type the vault's passphrase"), ErrorKind::InvalidParams};
    Result<std::optional<SlotRow>> slot = readSlot(store(), QStringLiteral("passphrase"));
    if (!slot)
        return slot.error();
    if (!slot->has_value())
        return uninitialisedError();
    Result<SecureBytes> key = openPassphraseSlot(**slot, passphrase);
    if (!key) {
        qCInfo(lcVault) << "unlock refused: wrong passphrase";
        return key.error();
    }
    QMutexLocker locker(&m_mutex);
    m_key = std::make_unique<SecureBytes>(std::move(key.value()));
    qCInfo(lcVault) << "vault unlocked";
    return ok();
}

void Vault::lock()
{
    QMutexLocker locker(&m_mutex);
    if (m_key)
        qCInfo(lcVault) << "vault locked";
    m_key.reset(); // SecureBytes cleanses on destruction
    dropLentSecrets();
}

Status Vault::changePassphrase(const QByteArray &oldPassphrase, const QByteArray &newPassphrase)
{
    if (Status s = checkPassphrase(newPassphrase); !s)
        return s;
    Result<std::optional<SlotRow>> slot = readSlot(store(), QStringLiteral("passphrase"));
    if (!slot)
        return slot.error();
    if (!slot->has_value())
        return uninitialisedError();
    Result<SecureBytes> key = openPassphraseSlot(**slot, oldPassphrase);
    if (!key)
        return Error{QStringLiteral("wrong passphrase"), QStringLiteral("the current passphrase did not open the vault; "
                                                                        "nothing was changed"), ErrorKind::PermissionDenied};
    Result<NewSlot> fresh = makePassphraseSlot(key.value(), newPassphrase);
    if (!fresh)
        return fresh.error();
    // Only the slot is rewritten, and only the slot read above: the vault key, and so every
    // secret, stays as it is.
    Store &db = store();
    const Status rewrapped = db.transaction([&]() -> Status {
        const Result<int> changed = db.change(QStringLiteral("UPDATE key_slots SET kdf_params = ?, salt = ?, wrapped_key = ?, "
                                                             "created = ? WHERE id = ? AND wrapped_key = ?"),
                                              {fresh->params, fresh->salt, fresh->wrapped, now(), (*slot)->id, (*slot)->wrapped});
        if (!changed)
            return sqlError(QStringLiteral("cannot store the new passphrase slot"), changed);
        if (*changed != 1)
            return Error{QStringLiteral("the passphrase changed meanwhile"), QStringLiteral("try again"), ErrorKind::Conflict};
        crashPoint("vault:rewrapped"); // not committed: the old passphrase must still open the vault
        return ok();
    });
    if (!rewrapped)
        return rewrapped;
    crashPoint("vault:rekeyed"); // committed: only the new passphrase opens it
    qCInfo(lcVault) << "passphrase changed (vault key rewrapped)";
    return ok();
}

bool Vault::hasKeyringSlot()
{
    Result<std::optional<SlotRow>> slot = readSlot(store(), QStringLiteral("keyring"));
    return slot && slot->has_value();
}

Status Vault::disableKeyringSlot()
{
    Result<std::optional<SlotRow>> slot = readSlot(store(), QStringLiteral("keyring"));
    if (!slot)
        return slot.error();
    if (!slot->has_value())
        return Error{QStringLiteral("the vault has no OS keyring slot"), QStringLiteral("nothing to turn off"), ErrorKind::NotFound};
    const QJsonArray account = QJsonDocument::fromJson((*slot)->params.toUtf8()).object().value(QLatin1String("account")).toArray();
    Result<qint64> removed = store().write(QStringLiteral("DELETE FROM key_slots WHERE kind = 'keyring'"));
    if (!removed)
        return Error{QStringLiteral("cannot remove the keyring slot"), removed.error().why};
    if (Status s = keyring::remove(account.at(0).toString()); !s)
        qCWarning(lcVault) << "keyring slot removed; its key stays in the OS keyring:" << s.error().message();
    return ok();
}

Status Vault::enableKeyringSlot()
{
    Result<SecureBytes> key = keyCopy();
    if (!key)
        return key.error();
    SecureBytes slotKey = SecureBytes::random(aesgcm::kKeyBytes);
    const QString account = QStringLiteral("vault-key:%1").arg(m_path);
    if (Status s = keyring::store(account, slotKey); !s)
        return s;
    const QString params = QStringLiteral("{\"account\":%1}")
                               .arg(QString::fromUtf8(QJsonDocument(QJsonArray{account}).toJson(QJsonDocument::Compact)));
    Result<QByteArray> wrapped = wrapVaultKey(slotKey, key.value(), slotAad(QStringLiteral("keyring"), params));
    if (!wrapped)
        return wrapped.error();
    Store &db = store();
    return db.transaction([&]() -> Status {
        if (const Result<qint64> removed = db.write(QStringLiteral("DELETE FROM key_slots WHERE kind = 'keyring'")); !removed)
            return sqlError(QStringLiteral("cannot replace the keyring slot"), removed);
        const Result<qint64> added = db.write(
            QStringLiteral("INSERT INTO key_slots(kind, kdf_params, wrapped_key, created) VALUES('keyring', ?, ?, ?)"),
            {params, wrapped.value(), now()});
        return added ? ok() : Status(sqlError(QStringLiteral("cannot store the keyring slot"), added));
    });
}

Status Vault::unlockFromKeyring()
{
    Result<std::optional<SlotRow>> slot = readSlot(store(), QStringLiteral("keyring"));
    if (!slot)
        return slot.error();
    if (!slot->has_value())
        return Error{QStringLiteral("the vault has no OS keyring slot"),
                     QStringLiteral("unlock with the passphrase, then enable the keyring slot"), ErrorKind::NotFound};
    const QJsonArray account = QJsonDocument::fromJson((*slot)->params.toUtf8()).object().value(QLatin1String("account")).toArray();
    Result<SecureBytes> slotKey = keyring::load(account.at(0).toString());
    if (!slotKey)
        return slotKey.error();
    Result<SecureBytes> key = unwrapVaultKey(slotKey.value(), (*slot)->wrapped, slotAad(QStringLiteral("keyring"), (*slot)->params));
    if (!key)
        return Error{QStringLiteral("the OS keyring's key does not open the vault"),
                     QStringLiteral("unlock with the passphrase and enable the keyring slot again"), ErrorKind::PermissionDenied};
    QMutexLocker locker(&m_mutex);
    m_key = std::make_unique<SecureBytes>(std::move(key.value()));
    return ok();
}

Status Vault::setSecret(const QString &name, const QStringList &hosts, const QString &headerTemplate,
                        const QByteArray &value, uid_t caller)
{
    if (Status s = checkSecretName(name); !s)
        return s;
    if (hosts.isEmpty())
        return Error{QStringLiteral("secret %1 names no host").arg(name),
                     QStringLiteral("bind it with --host (e.g. --host api.example.com or --host '*.example.com'); "
                                    "it is only ever sent there"),
                     ErrorKind::InvalidParams};
    QStringList normalized;
    for (const QString &h : hosts) {
        Result<QString> n = secrethosts::normalize(h);
        if (!n)
            return n.error();
        if (!normalized.contains(n.value()))
            normalized.append(n.value());
    }
    Result<HeaderTemplate> header =
        HeaderTemplate::parse(headerTemplate.isEmpty() ? QString::fromLatin1(kDefaultHeaderTemplate) : headerTemplate);
    if (!header)
        return header.error();
    if (Status s = checkValue(value); !s)
        return s;
    Result<SecureBytes> key = keyCopy();
    if (!key)
        return state() == VaultState::Uninitialised ? uninitialisedError() : key.error();

    const QString hostsJson =
        QString::fromUtf8(QJsonDocument(QJsonArray::fromStringList(normalized)).toJson(QJsonDocument::Compact));
    const QString headerText = header->text();
    Store &db = store();
    const Status stored = db.transaction([&]() -> Status {
        Result<qint64> id = sealSecret(db, key.value(), {name, hostsJson, headerText, value, caller, {}, {}});
        if (!id)
            return id.error();
        crashPoint("secret:sealed"); // the statement ran; its transaction has not committed
        qCInfo(lcVault) << "secret" << name << "set for" << normalized; // never the value
        QMutexLocker locker(&m_mutex);
        dropLentSecrets();
        return ok();
    });
    if (!stored)
        return stored;
    crashPoint("secret:stored");
    return reloadLoans(db, 0); // its hosts may have changed for every sandbox borrowing it
}

void Vault::dropLentSecrets(const QString &sandboxName)
{
    if (sandboxName.isEmpty())
        m_lentCache.clear();
    else
        m_lentCache.remove(sandboxName);
    m_lentGeneration.fetch_add(1, std::memory_order_release);
}

Result<qint64> Vault::sealSecret(Store &db, const SecureBytes &key, const SealedRow &row)
{
    const auto existing = db.firstRow(QStringLiteral("SELECT id, owner_uid FROM secrets WHERE name = ?"), {row.name});
    if (!existing)
        return sqlError(QStringLiteral("cannot read secret %1").arg(row.name), existing);
    qint64 id = 0;
    if (*existing) {
        id = (*existing)->value(0).toLongLong();
        const uid_t owner = uid_t((*existing)->value(1).toLongLong());
        if (row.caller != 0 && row.caller != owner)
            return Error{QStringLiteral("secret %1 belongs to another user").arg(row.name), QStringLiteral("choose another name"),
                         ErrorKind::PermissionDenied};
    } else {
        const Result<qint64> added = db.write(QStringLiteral("INSERT INTO secrets(name, owner_uid, hosts_json, header, value_len, "
                                                             "nonce, ciphertext, created) VALUES(?, ?, '[]', '', 0, x'', x'', ?)"),
                                              {row.name, qint64(row.caller), now()});
        if (!added)
            return sqlError(QStringLiteral("cannot store secret %1").arg(row.name), added);
        id = *added;
    }
    const int length = int(row.value.size());
    Result<aesgcm::Sealed> sealed = aesgcm::seal(key, reinterpret_cast<const unsigned char *>(row.value.data()), std::size_t(length),
                                                 secretAad(id, row.name, row.hostsJson, row.header, length));
    if (!sealed)
        return sealed.error();
    const Result<qint64> sealedIn = db.write(QStringLiteral("UPDATE secrets SET hosts_json = ?, header = ?, value_len = ?, nonce = ?, "
                                                            "ciphertext = ?, login = ?, expires = ? WHERE id = ?"),
                                             {row.hostsJson, notNull(row.header), length, sealed->nonce, sealed->ciphertext,
                                              notNull(row.login), notNull(row.expires), id});
    if (!sealedIn)
        return sqlError(QStringLiteral("cannot store secret %1").arg(row.name), sealedIn);
    return id;
}

Result<QList<SecretInfo>> Vault::secrets(uid_t viewer)
{
    const auto rows = store().rows(QStringLiteral("SELECT s.id, s.name, s.hosts_json, s.header, s.owner_uid, "
                                                  "(SELECT group_concat(sb.name, char(10)) FROM sandbox_secrets ss "
                                                  " JOIN sandboxes sb ON sb.id = ss.sandbox_id WHERE ss.secret_id = s.id), "
                                                  "s.login, s.expires FROM secrets s ORDER BY s.name"));
    if (!rows)
        return sqlError(QStringLiteral("cannot list secrets"), rows);
    QList<SecretInfo> out;
    for (const QSqlRecord &q : *rows) {
        SecretInfo info;
        info.id = q.value(0).toLongLong();
        info.name = q.value(1).toString();
        info.hosts = hostsFromJson(q.value(2).toString());
        info.header = q.value(3).toString();
        info.owner = uid_t(q.value(4).toLongLong());
        const QString usedBy = q.value(5).toString();
        info.usedBy = usedBy.isEmpty() ? QStringList() : usedBy.split(QLatin1Char('\n'));
        info.usedBy.sort();
        info.login = q.value(6).toString();
        info.expires = q.value(7).toString();
        if (viewer == 0 || viewer == info.owner)
            out.append(info);
    }
    return out;
}

Status Vault::removeSecret(const QString &name, uid_t caller)
{
    Result<QList<SecretInfo>> all = secrets(caller);
    if (!all)
        return all.error();
    for (const SecretInfo &s : all.value()) {
        if (s.name != name)
            continue;
        if (!s.usedBy.isEmpty())
            return Error{QStringLiteral("secret %1 is used by %2").arg(name, s.usedBy.join(QStringLiteral(", "))),
                         QStringLiteral("remove those sandboxes first (they hold its placeholder)"), ErrorKind::Conflict};
        if (const Result<qint64> removed = store().write(QStringLiteral("DELETE FROM secrets WHERE id = ?"), {s.id}); !removed)
            return sqlError(QStringLiteral("cannot remove secret %1").arg(name), removed);
        qCInfo(lcVault) << "secret" << name << "removed";
        {
            QMutexLocker locker(&m_mutex);
            dropLentSecrets();
        }
        return reloadLoans(store(), 0);
    }
    return Error{QStringLiteral("no secret named %1").arg(name), QStringLiteral("see `airlockctl secret ls`"), ErrorKind::NotFound};
}

Result<QByteArray> Vault::lendSecret(qint64 sandboxId, const QString &secretName, const QString &envVar, uid_t caller)
{
    return lendSecret(store(), sandboxId, secretName, envVar, caller);
}

Result<QByteArray> Vault::lendSecret(Store &db, qint64 sandboxId, const QString &secretName, const QString &envVar,
                                     uid_t caller)
{
    static const QRegularExpression envRe(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,127}$"));
    if (!envRe.match(envVar).hasMatch())
        return Error{QStringLiteral("invalid environment variable name \"%1\" for secret %2").arg(envVar, secretName),
                     QStringLiteral("use letters, digits and '_', not starting with a digit (e.g. API_KEY)"),
                     ErrorKind::InvalidParams};
    const auto secret = db.firstRow(QStringLiteral("SELECT id, owner_uid, value_len FROM secrets WHERE name = ?"), {secretName});
    if (!secret)
        return sqlError(QStringLiteral("cannot read secret %1").arg(secretName), secret);
    if (!*secret || (caller != 0 && uid_t((*secret)->value(1).toLongLong()) != caller))
        return Error{QStringLiteral("no secret named %1").arg(secretName),
                     QStringLiteral("add it first with `airlockctl secret set %1 --host ...`").arg(secretName), ErrorKind::NotFound};
    const qint64 secretId = (*secret)->value(0).toLongLong();
    const QByteArray placeholder = makePlaceholder((*secret)->value(2).toInt());
    const Result<qint64> lent =
        db.write(QStringLiteral("INSERT INTO sandbox_secrets(sandbox_id, secret_id, env_var, placeholder) VALUES(?, ?, ?, ?)"),
                 {sandboxId, secretId, envVar, QString::fromLatin1(placeholder)});
    // SQLite says "UNIQUE constraint failed" for the primary key (sandbox, secret) too.
    if (!lent)
        return Error{QStringLiteral("cannot lend secret %1 to the sandbox").arg(secretName),
                     lent.error().why.contains(QLatin1String("UNIQUE")) ? QStringLiteral("the sandbox already borrows it; name it once")
                                                                        : lent.error().why,
                     ErrorKind::Conflict};
    {
        QMutexLocker locker(&m_mutex);
        dropLentSecrets();
    }
    // Read inside the caller's transaction: the snapshot holds the loan once it commits.
    if (Status s = reloadLoans(db, sandboxId); !s)
        return s.error();
    return placeholder;
}

Result<QMap<QString, QString>> Vault::inheritLoans(Store &db, const QString &originSandbox, qint64 forkId)
{
    Result<qint64> copied = db.write(
        QStringLiteral("INSERT INTO sandbox_secrets(sandbox_id, secret_id, env_var, placeholder) "
                       "SELECT ?, ss.secret_id, ss.env_var, ss.placeholder FROM sandbox_secrets ss "
                       "JOIN sandboxes s ON s.id = ss.sandbox_id WHERE s.name = ?"),
        {forkId, originSandbox});
    if (!copied)
        return Error{QStringLiteral("cannot lend the fork the secrets of %1").arg(originSandbox), copied.error().why};
    Result<qint64> logins = db.write(QStringLiteral("INSERT INTO sandbox_logins(sandbox_id, login, spec_json) "
                                                    "SELECT ?, sl.login, sl.spec_json FROM sandbox_logins sl "
                                                    "JOIN sandboxes s ON s.id = sl.sandbox_id WHERE s.name = ?"),
                                     {forkId, originSandbox});
    if (!logins)
        return Error{QStringLiteral("cannot give the fork the sign-ins of %1").arg(originSandbox), logins.error().why};
    // A sign-in's tokens have no variable: their placeholders are in the guest's own files.
    Result<QList<QSqlRecord>> rows =
        db.rows(QStringLiteral("SELECT env_var, placeholder FROM sandbox_secrets WHERE sandbox_id = ? AND env_var <> ''"), {forkId});
    if (!rows)
        return rows.error();
    QMap<QString, QString> env;
    for (const QSqlRecord &r : rows.value())
        env.insert(r.value(0).toString(), r.value(1).toString());
    {
        QMutexLocker locker(&m_mutex);
        dropLentSecrets();
    }
    if (Status s = reloadLoans(db, forkId); !s)
        return s.error();
    return env;
}

Result<QList<GitCredentialLoan>> Vault::gitCredentialLoans(Store &db, qint64 sandboxId)
{
    Result<QList<QSqlRecord>> rows = db.rows(QStringLiteral("SELECT ss.env_var, s.hosts_json, s.header FROM sandbox_secrets ss "
                                                            "JOIN secrets s ON s.id = ss.secret_id WHERE ss.sandbox_id = ? "
                                                            "ORDER BY ss.env_var"),
                                             {sandboxId});
    if (!rows)
        return sqlError(QStringLiteral("cannot read the sandbox's loans"), rows);
    QList<GitCredentialLoan> loans;
    for (const QSqlRecord &r : rows.value()) {
        Result<HeaderTemplate> t = HeaderTemplate::parse(r.value(2).toString());
        if (t && basicauth::isBasicTemplate(*t))
            loans.append({r.value(0).toString(), hostsFromJson(r.value(1).toString())});
    }
    return loans;
}

void Vault::forgetSandbox(const QString &sandboxName)
{
    {
        QMutexLocker locker(&m_mutex);
        dropLentSecrets(sandboxName);
        m_cas.remove(sandboxName);
    }
    // Its loans went with its row (or with a rolled-back create): what is committed now.
    if (Status s = reloadLoans(); !s)
        qCWarning(lcVault) << "cannot reload the loans after" << sandboxName << ":" << s.error().message();
}

Status Vault::reloadLoans() { return reloadLoans(store(), 0); }

Status Vault::reloadLoans(Store &db, qint64 sandboxId)
{
    const auto rows = db.rows(QStringLiteral("SELECT sb.name, s.name, s.hosts_json, ss.placeholder FROM sandbox_secrets ss "
                                             "JOIN secrets s ON s.id = ss.secret_id JOIN sandboxes sb ON sb.id = ss.sandbox_id") +
                                  (sandboxId ? QStringLiteral(" WHERE sb.id = ?") : QString()) + QStringLiteral(" ORDER BY sb.name, s.name"),
                              sandboxId ? QVariantList{sandboxId} : QVariantList{});
    if (!rows)
        return Error{QStringLiteral("cannot read the secrets sandboxes borrow"), rows.error().why};
    LoanSnapshot::Map all;
    for (const QSqlRecord &q : *rows) {
        SandboxLoans &loans = all[q.value(0).toString()];
        for (const QString &h : hostsFromJson(q.value(2).toString())) {
            if (!loans.hosts.contains(h))
                loans.hosts.append(h);
        }
        const QByteArray placeholder = q.value(3).toString().toLatin1();
        loans.placeholders.append({q.value(1).toString(), placeholder});
        for (const QByteArray &form : base64Forms(placeholder)) {
            const QPair<QString, QByteArray> entry{q.value(1).toString(), form}; // base64-encoded, as much a leak
            if (!loans.placeholders.contains(entry))
                loans.placeholders.append(entry);
        }
    }
    if (Status s = readLogins(db, sandboxId, &all); !s)
        return s;
    if (Status s = readCaHosts(db, sandboxId, &all); !s)
        return s;
    if (!sandboxId) {
        m_loans.replace(std::move(all));
        return ok();
    }
    Result<std::optional<QSqlRecord>> name = db.firstRow(QStringLiteral("SELECT name FROM sandboxes WHERE id = ?"), {sandboxId});
    if (!name)
        return name.error();
    if (name->has_value())
        m_loans.replaceSandbox(name->value().value(0).toString(), all.value(name->value().value(0).toString()));
    return ok();
}

Result<SecureBytes> Vault::decryptSecretRow(const SecureBytes &key, qint64 id, const QString &name, const QString &hostsJson,
                                            const QString &header, int valueLength, const QByteArray &nonce,
                                            const QByteArray &ciphertext) const
{
    Result<SecureBytes> plain = aesgcm::open(key, nonce, ciphertext, secretAad(id, name, hostsJson, header, valueLength));
    if (!plain)
        return Error{QStringLiteral("secret %1 cannot be decrypted").arg(name),
                     QStringLiteral("its stored row was altered or swapped (authentication failed); set it again "
                                    "with `airlockctl secret set %1`").arg(name)};
    return plain;
}

Result<QStringList> Vault::boundHosts(const QString &sandboxName)
{
    return m_loans.of(sandboxName).hosts;
}

QStringList Vault::caHosts(const QString &sandboxName)
{
    return m_loans.of(sandboxName).caHosts;
}

Result<QList<QPair<QString, QByteArray>>> Vault::placeholders(const QString &sandboxName)
{
    return m_loans.of(sandboxName).placeholders;
}

Result<std::vector<LentSecret>> Vault::lentSecrets(const QString &sandboxName)
{
    {
        QMutexLocker locker(&m_mutex);
        if (auto it = m_lentCache.constFind(sandboxName); it != m_lentCache.constEnd() && m_key)
            return it.value();
    }
    Result<SecureBytes> key = keyCopy();
    if (!key)
        return key.error();
    const auto rows = store().rows(QStringLiteral("SELECT s.id, s.name, s.hosts_json, s.header, s.value_len, s.nonce, s.ciphertext, "
                                                  "ss.env_var, ss.placeholder FROM sandbox_secrets ss "
                                                  "JOIN secrets s ON s.id = ss.secret_id JOIN sandboxes sb ON sb.id = ss.sandbox_id "
                                                  "WHERE sb.name = ? ORDER BY s.name"),
                                   {sandboxName});
    if (!rows)
        return sqlError(QStringLiteral("cannot read the secrets of sandbox %1").arg(sandboxName), rows);
    std::vector<LentSecret> out;
    for (const QSqlRecord &q : *rows) {
        LentSecret s;
        s.name = q.value(1).toString();
        const QString hostsJson = q.value(2).toString();
        const QString header = q.value(3).toString();
        Result<SecureBytes> value = decryptSecretRow(key.value(), q.value(0).toLongLong(), s.name, hostsJson, header,
                                                     q.value(4).toInt(), q.value(5).toByteArray(), q.value(6).toByteArray());
        if (!value)
            return value.error();
        s.hosts = hostsFromJson(hostsJson);
        Result<HeaderTemplate> t = HeaderTemplate::parse(header);
        s.headerName = t ? t->name : QByteArray();
        s.basic = t && basicauth::isBasicTemplate(*t);
        s.queryName = t ? t->query : QByteArray();
        s.envVar = q.value(7).toString();
        s.placeholder = q.value(8).toString().toLatin1();
        for (const QByteArray &form : base64Forms(s.placeholder)) {
            if (!s.encoded.contains(form)) // the two alphabets often agree
                s.encoded.append(form);
        }
        s.value = std::make_shared<const SecureBytes>(std::move(value.value()));
        out.push_back(std::move(s));
    }
    QMutexLocker locker(&m_mutex);
    if (m_key) // not locked meanwhile
        m_lentCache.insert(sandboxName, out);
    return out;
}

Status Vault::readCaHosts(Store &db, qint64 sandboxId, LoanSnapshot::Map *loans)
{
    const auto rows = db.rows(QStringLiteral("SELECT sb.name, c.hosts_json FROM sandbox_cas c JOIN sandboxes sb ON sb.id = c.sandbox_id") +
                                  (sandboxId ? QStringLiteral(" WHERE sb.id = ?") : QString()),
                              sandboxId ? QVariantList{sandboxId} : QVariantList{});
    if (!rows)
        return Error{QStringLiteral("cannot read the names the sandboxes' CAs speak for"), rows.error().why};
    for (const QSqlRecord &q : *rows) {
        const QStringList hosts = hostsFromJson(q.value(1).toString());
        if (!hosts.isEmpty())
            (*loans)[q.value(0).toString()].caHosts = hosts;
    }
    return ok();
}

Result<QByteArray> Vault::issueSandboxCa(qint64 sandboxId) { return issueSandboxCa(store(), sandboxId); }

Result<QByteArray> Vault::issueSandboxCa(Store &db, qint64 sandboxId, const QStringList &ruleHosts)
{
    Result<SecureBytes> key = keyCopy();
    if (!key)
        return Error{QStringLiteral("cannot create the sandbox's CA: ") + lockedMessage(),
                     QStringLiteral("a sandbox that borrows secrets needs it unlocked at creation; run "
                                    "`airlockctl vault unlock`"),
                     ErrorKind::Unavailable};
    const auto rows = db.rows(QStringLiteral("SELECT sb.name, s.hosts_json FROM sandboxes sb "
                                             "LEFT JOIN sandbox_secrets ss ON ss.sandbox_id = sb.id "
                                             "LEFT JOIN secrets s ON s.id = ss.secret_id WHERE sb.id = ?"),
                              {sandboxId});
    if (!rows)
        return sqlError(QStringLiteral("cannot read sandbox %1").arg(sandboxId), rows);
    QString sandboxName;
    QStringList hosts;
    for (const QSqlRecord &q : *rows) {
        sandboxName = q.value(0).toString();
        for (const QString &h : hostsFromJson(q.value(1).toString())) {
            if (!hosts.contains(h))
                hosts.append(h);
        }
    }
    if (sandboxName.isEmpty())
        return Error{QStringLiteral("no sandbox with id %1").arg(sandboxId), QString(), ErrorKind::NotFound};
    LoanSnapshot::Map logins;
    if (Status s = readLogins(db, sandboxId, &logins); !s)
        return s.error();
    for (const QString &h : logins.value(sandboxName).hosts + ruleHosts)
        if (!hosts.contains(h))
            hosts.append(h);
    if (hosts.isEmpty()) // a CA without name constraints could speak for any name
        return Error{QStringLiteral("sandbox %1 has no host for its CA").arg(sandboxName),
                     QStringLiteral("it borrows no secret and no request rule names a host")};
    Result<std::shared_ptr<SandboxCa>> ca = SandboxCa::generate(sandboxName, hosts);
    if (!ca)
        return ca.error();
    const QByteArray pem = ca.value()->certificatePem();
    Result<SecureBytes> caKey = ca.value()->privateKeyDer();
    if (!caKey)
        return caKey.error();
    Result<aesgcm::Sealed> sealed = aesgcm::seal(key.value(), caKey.value(), caAad(sandboxId, pem));
    if (!sealed)
        return sealed.error();
    const Result<qint64> stored =
        db.write(QStringLiteral("INSERT INTO sandbox_cas(sandbox_id, cert_pem, key_nonce, key_ciphertext, created, hosts_json) "
                                "VALUES(?, ?, ?, ?, ?, ?) ON CONFLICT(sandbox_id) DO UPDATE SET cert_pem = excluded.cert_pem, "
                                "key_nonce = excluded.key_nonce, key_ciphertext = excluded.key_ciphertext, "
                                "created = excluded.created, hosts_json = excluded.hosts_json"),
                 {sandboxId, QString::fromLatin1(pem), sealed->nonce, sealed->ciphertext, now(),
                  QString::fromUtf8(QJsonDocument(QJsonArray::fromStringList(hosts)).toJson(QJsonDocument::Compact))});
    if (!stored)
        return sqlError(QStringLiteral("cannot store the CA of sandbox %1").arg(sandboxName), stored);
    QMutexLocker locker(&m_mutex);
    m_cas.insert(sandboxName, ca.value());
    return pem;
}

namespace {

// The row of a sandbox's CA: sandbox_id, cert_pem, key_nonce, key_ciphertext.
Result<QSqlRecord> caRow(Store &db, const QString &sandboxName)
{
    const auto row = db.firstRow(QStringLiteral("SELECT c.sandbox_id, c.cert_pem, c.key_nonce, c.key_ciphertext FROM sandbox_cas c "
                                                "JOIN sandboxes sb ON sb.id = c.sandbox_id WHERE sb.name = ?"),
                                 {sandboxName});
    if (!row)
        return sqlError(QStringLiteral("cannot read the CA of sandbox %1").arg(sandboxName), row);
    if (!*row)
        return Error{QStringLiteral("sandbox %1 has no CA").arg(sandboxName),
                     QStringLiteral("only sandboxes that borrow secrets or start with request rules get one"), ErrorKind::NotFound};
    return **row;
}

} // namespace

Result<QByteArray> Vault::sandboxCaPem(const QString &sandboxName)
{
    const Result<QSqlRecord> row = caRow(store(), sandboxName);
    if (!row)
        return row.error();
    return row->value(1).toString().toLatin1();
}

Result<std::shared_ptr<SandboxCa>> Vault::sandboxCa(const QString &sandboxName)
{
    {
        QMutexLocker locker(&m_mutex);
        if (auto it = m_cas.constFind(sandboxName); it != m_cas.constEnd())
            return it.value();
    }
    Result<SecureBytes> key = keyCopy();
    if (!key)
        return key.error();
    const Result<QSqlRecord> q = caRow(store(), sandboxName);
    if (!q)
        return q.error();
    const QByteArray pem = q->value(1).toString().toLatin1();
    Result<SecureBytes> der = aesgcm::open(key.value(), q->value(2).toByteArray(), q->value(3).toByteArray(),
                                           caAad(q->value(0).toLongLong(), pem));
    if (!der)
        return Error{QStringLiteral("the CA key of sandbox %1 cannot be decrypted").arg(sandboxName),
                     QStringLiteral("its stored row was altered (authentication failed); recreate the sandbox")};
    Result<std::shared_ptr<SandboxCa>> ca = SandboxCa::load(pem, der.value());
    if (!ca)
        return ca.error();
    QMutexLocker locker(&m_mutex);
    m_cas.insert(sandboxName, ca.value());
    return ca.value();
}

} // namespace airlock
