// The vault's part in sign-ins (Vault::bindLogin ... storeLoginTokens): which sandboxes use a
// login, and the tokens it issued, sealed like any other secret.
#include "core/logging.h"
#include "placeholder.h"
#include "vault.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutexLocker>
#include <QSqlRecord>

namespace airlock {

namespace {

QString compactJson(const QJsonArray &a) { return QString::fromUtf8(QJsonDocument(a).toJson(QJsonDocument::Compact)); }

// Where a token may travel: its API hosts, or (a token only ever sent back to be exchanged)
// the token URLs' hosts.
QStringList tokenHosts(const LoginSpec &spec, const LoginToken &t)
{
    if (!t.hosts.isEmpty())
        return t.hosts;
    QStringList hosts;
    for (const LoginUrl &u : spec.tokenUrls)
        if (!hosts.contains(u.host))
            hosts << u.host;
    return hosts;
}

} // namespace

Status Vault::bindLogin(Store &db, qint64 sandboxId, const LoginSpec &spec)
{
    const QString json = QString::fromUtf8(QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact));
    const Result<qint64> bound = db.write(QStringLiteral("INSERT OR REPLACE INTO sandbox_logins(sandbox_id, login, spec_json) VALUES(?, ?, ?)"),
                                          {sandboxId, spec.name, json});
    if (!bound)
        return Error{QStringLiteral("cannot record the sign-in %1 of the sandbox").arg(spec.name), bound.error().why};
    return reloadLoans(db, sandboxId);
}

Status Vault::readLogins(Store &db, qint64 sandboxId, LoanSnapshot::Map *loans)
{
    const auto rows = db.rows(QStringLiteral("SELECT sb.name, sl.login, sl.spec_json FROM sandbox_logins sl "
                                             "JOIN sandboxes sb ON sb.id = sl.sandbox_id") +
                                  (sandboxId ? QStringLiteral(" WHERE sb.id = ?") : QString()) + QStringLiteral(" ORDER BY sb.name, sl.login"),
                              sandboxId ? QVariantList{sandboxId} : QVariantList{});
    if (!rows)
        return Error{QStringLiteral("cannot read the sign-ins sandboxes use"), rows.error().why};
    for (const QSqlRecord &q : *rows) {
        const QString login = q.value(1).toString();
        Result<LoginSpec> spec = LoginSpec::fromJson(login, QJsonDocument::fromJson(q.value(2).toString().toUtf8()).object(),
                                                     QStringLiteral("stored for sandbox %1").arg(q.value(0).toString()));
        if (!spec)
            return spec.error(); // written by this daemon: a row that does not read back is damage, not input
        SandboxLoans &l = (*loans)[q.value(0).toString()];
        for (const QString &h : spec->hosts())
            if (!l.hosts.contains(h))
                l.hosts.append(h);
        l.logins.append(*spec);
    }
    return ok();
}

QList<LoginSpec> Vault::logins(const QString &sandboxName) { return m_loans.of(sandboxName).logins; }

QByteArray Vault::loginPlaceholder(const QString &sandboxName, const QString &secretName, int length)
{
    // A secret's own placeholder comes first in the snapshot, before its base64 forms.
    for (const auto &[name, placeholder] : m_loans.of(sandboxName).placeholders) {
        if (name == secretName)
            return placeholder.size() == length ? placeholder : makePlaceholder(length);
    }
    return makePlaceholder(length);
}

Status Vault::storeLoginTokens(const QString &sandboxName, const LoginSpec &spec, const QList<LoginTokenValue> &tokens)
{
    Result<SecureBytes> key = keyCopy();
    if (!key)
        return key.error();
    Store &db = store();
    const Status stored = db.transaction([&]() -> Status {
        const auto sandbox = db.firstRow(QStringLiteral("SELECT id, owner_uid FROM sandboxes WHERE name = ?"), {sandboxName});
        if (!sandbox || !*sandbox)
            return Error{QStringLiteral("cannot store the sign-in of sandbox %1").arg(sandboxName),
                         sandbox ? QStringLiteral("the sandbox is gone") : sandbox.error().why};
        const qint64 sandboxId = (*sandbox)->value(0).toLongLong();
        const uid_t owner = uid_t((*sandbox)->value(1).toLongLong());
        for (const LoginTokenValue &t : tokens) {
            const QString name = spec.secretName(*t.token);
            Result<qint64> id = sealSecret(db, key.value(), {name, compactJson(QJsonArray::fromStringList(tokenHosts(spec, *t.token))),
                                                             t.token->header, t.real, owner, spec.name, t.expires});
            if (!id)
                return id.error();
            const Result<qint64> lent = db.write(QStringLiteral("INSERT INTO sandbox_secrets(sandbox_id, secret_id, env_var, placeholder) "
                                                                "VALUES(?, ?, '', ?) ON CONFLICT(sandbox_id, secret_id) DO UPDATE SET "
                                                                "placeholder = excluded.placeholder"),
                                                 {sandboxId, id.value(), QString::fromLatin1(t.placeholder)});
            if (!lent)
                return Error{QStringLiteral("cannot lend the token %1 to sandbox %2").arg(name, sandboxName), lent.error().why};
        }
        return ok();
    });
    if (!stored)
        return stored;
    {
        QMutexLocker locker(&m_mutex);
        dropLentSecrets(); // every sandbox borrowing these tokens now gets the new values
    }
    QStringList names;
    for (const LoginTokenValue &t : tokens)
        names << spec.secretName(*t.token);
    qCInfo(lcVault) << "sign-in" << spec.name << "of sandbox" << sandboxName << "stored:" << names; // never a value
    return reloadLoans(db, 0);
}

Result<int> Vault::lendLoginTokens(Store &db, qint64 sandboxId, const LoginSpec &spec, uid_t owner)
{
    int lent = 0;
    std::optional<SecureBytes> key; // only a JWT needs its real value read
    for (const LoginToken &t : spec.tokens) {
        const QString name = spec.secretName(t);
        const auto row = db.firstRow(QStringLiteral("SELECT id, owner_uid, login, hosts_json, header, value_len, nonce, ciphertext "
                                                    "FROM secrets WHERE name = ?"),
                                     {name});
        if (!row)
            return Error{QStringLiteral("cannot read the sign-in token %1").arg(name), row.error().why};
        // Another user's token of the same name, or a secret someone set by hand under it, is not this sign-in.
        if (!*row || uid_t((*row)->value(1).toLongLong()) != owner || (*row)->value(2).toString() != spec.name)
            continue;
        const QSqlRecord &q = **row;
        QByteArray placeholder = makePlaceholder(q.value(5).toInt());
        if (t.jwt) {
            if (!key) {
                Result<SecureBytes> k = keyCopy();
                if (!k)
                    return k.error();
                key = std::move(k.value());
            }
            Result<SecureBytes> real = decryptSecretRow(*key, q.value(0).toLongLong(), name, q.value(3).toString(), q.value(4).toString(),
                                                        q.value(5).toInt(), q.value(6).toByteArray(), q.value(7).toByteArray());
            if (!real)
                return real.error();
            placeholder = makeJwtPlaceholder(real->view());
            if (placeholder.isEmpty())
                continue; // sealed by a sign-in as a JWT, so this is damage: the sandbox signs in anew
        }
        const Result<qint64> written = db.write(QStringLiteral("INSERT INTO sandbox_secrets(sandbox_id, secret_id, env_var, placeholder) "
                                                               "VALUES(?, ?, '', ?) ON CONFLICT(sandbox_id, secret_id) DO NOTHING"),
                                                {sandboxId, q.value(0).toLongLong(), QString::fromLatin1(placeholder)});
        if (!written)
            return Error{QStringLiteral("cannot lend the sign-in token %1 to the sandbox").arg(name), written.error().why};
        ++lent;
    }
    if (lent == 0)
        return 0;
    {
        QMutexLocker locker(&m_mutex);
        dropLentSecrets();
    }
    if (Status s = reloadLoans(db, sandboxId); !s)
        return s.error();
    return lent;
}

Result<QMap<QString, HeldLoginToken>> Vault::heldLoginTokens(const QString &sandboxName, const LoginSpec &spec)
{
    const auto rows = store().rows(QStringLiteral("SELECT s.name, ss.placeholder, s.expires FROM sandbox_secrets ss "
                                                  "JOIN secrets s ON s.id = ss.secret_id JOIN sandboxes sb ON sb.id = ss.sandbox_id "
                                                  "WHERE sb.name = ? AND s.login = ?"),
                                   {sandboxName, spec.name});
    if (!rows)
        return Error{QStringLiteral("cannot read the sign-in of sandbox %1").arg(sandboxName), rows.error().why};
    QMap<QString, HeldLoginToken> held;
    for (const QSqlRecord &q : *rows) {
        for (const LoginToken &t : spec.tokens) {
            if (spec.secretName(t) == q.value(0).toString())
                held.insert(t.name, {q.value(1).toString().toLatin1(), QDateTime::fromString(q.value(2).toString(), Qt::ISODate)});
        }
    }
    return held;
}

} // namespace airlock
