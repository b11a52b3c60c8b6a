// The vault against a real SQLite file: key slots, authenticated encryption of every row,
// nothing in clear on disk, placeholders, and the per-sandbox CA with its leaves.
#include "headertemplate.h"
#include "leafminter.h"
#include "sandboxca.h"
#include "support.h"
#include "vault.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QTest>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

using namespace airlock;

namespace {
const QByteArray kPass = QByteArrayLiteral("correct horse battery staple");
const QByteArray kValue = QByteArrayLiteral("sk-live-THE-REAL-VALUE-0123456789abcdef");
const QByteArray kValue2 = QByteArrayLiteral("sk-live-OTHER-VALUE-9876543210fedcba");

QByteArray rawBytes(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool verifies(SandboxCa &ca, const Leaf &leaf, const char *host)
{
    X509_STORE *store = X509_STORE_new();
    X509_STORE_add_cert(store, ca.certificate());
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, leaf.cert, nullptr);
    X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set1_host(param, host, 0);
    X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_X509_STRICT);
    const bool good = X509_verify_cert(ctx) == 1;
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    return good;
}
} // namespace

class TestVault : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void initUnlockLockAndWrongPassphrase();
    void passphraseSlotIsCalibratedScrypt();
    void secretsRoundTripAndPlaceholders();
    void flippedCiphertextByteFails();
    void swappedRowsFail();
    void editedHostsFail();
    void noPlaintextOnDisk();
    void changePassphraseKeepsSecrets();
    void badInputsAreRefusedClearly();
    void usedSecretCannotBeRemoved();
    void keyringSlotFailsClearlyWithoutKeyring();
    void sandboxCaIsNameConstrainedAndEncrypted();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_db;
    std::unique_ptr<Vault> makeVault();
    std::unique_ptr<Vault> initialisedWithSecrets(qint64 *sandboxId);
};

void TestVault::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_db = m_dir->filePath(QStringLiteral("airlock.db"));
}

std::unique_ptr<Vault> TestVault::makeVault()
{
    auto v = std::make_unique<Vault>(m_db);
    const Status s = v->open();
    return s ? std::move(v) : nullptr;
}

std::unique_ptr<Vault> TestVault::initialisedWithSecrets(qint64 *sandboxId)
{
    auto v = makeVault();
    if (!v || !v->init(kPass))
        return nullptr;
    if (!v->setSecret(QStringLiteral("openai"), {QStringLiteral("api.openai.test")}, QStringLiteral("x-api-key: {}"), kValue, 0))
        return nullptr;
    if (!v->setSecret(QStringLiteral("github"), {QStringLiteral("*.github.test")}, {}, kValue2, 0))
        return nullptr;
    *sandboxId = testsupport::addSandbox(m_db, QStringLiteral("box"));
    if (!v->lendSecret(*sandboxId, QStringLiteral("openai"), QStringLiteral("OPENAI_API_KEY"), 0))
        return nullptr;
    if (!v->lendSecret(*sandboxId, QStringLiteral("github"), QStringLiteral("GH_TOKEN"), 0))
        return nullptr;
    return v;
}

void TestVault::initUnlockLockAndWrongPassphrase()
{
    auto v = makeVault();
    QVERIFY(v);
    QCOMPARE(v->state(), VaultState::Uninitialised);
    Status u = v->unlock(kPass);
    QVERIFY(!u);
    QVERIFY2(u.error().message().contains(QLatin1String("not initialised")), qPrintable(u.error().message()));
    QVERIFY(!v->init(QByteArrayLiteral("short")));
    QVERIFY(v->init(kPass));
    QCOMPARE(v->state(), VaultState::Unlocked);
    QVERIFY(!v->init(kPass)); // only once
    v->lock();
    QCOMPARE(v->state(), VaultState::Locked);

    // A fresh process (another Vault on the same file) starts locked.
    auto other = makeVault();
    QCOMPARE(other->state(), VaultState::Locked);
    Status wrong = other->unlock(QByteArrayLiteral("correct horse battery stapler"));
    QVERIFY(!wrong);
    QVERIFY2(wrong.error().message().startsWith(QLatin1String("wrong passphrase")), qPrintable(wrong.error().message()));
    QCOMPARE(other->state(), VaultState::Locked);
    QVERIFY(other->unlock(kPass));
    QCOMPARE(other->state(), VaultState::Unlocked);
}

void TestVault::passphraseSlotIsCalibratedScrypt()
{
    auto v = makeVault();
    QVERIFY(v->init(kPass));
    auto store = Store::open(m_db);
    const auto slot = store->firstRow(QStringLiteral("SELECT kind, kdf_params, length(salt), length(wrapped_key) FROM key_slots"));
    QVERIFY(slot && *slot);
    const QSqlRecord &r = **slot;
    QCOMPARE(r.value(0).toString(), QStringLiteral("passphrase"));
    const QJsonObject params = QJsonDocument::fromJson(r.value(1).toString().toUtf8()).object();
    QCOMPARE(params.value(QLatin1String("kdf")).toString(), QStringLiteral("scrypt"));
    const double n = params.value(QLatin1String("n")).toDouble();
    QVERIFY2(n >= (1 << 15), "scrypt N below 2^15");
    QCOMPARE(params.value(QLatin1String("r")).toInt(), 8);
    QCOMPARE(r.value(2).toInt(), 16);
    QCOMPARE(r.value(3).toInt(), 12 + 32 + 16);
    // The calibration aims at ~0.3 s per unlock on this machine.
    v->lock();
    QElapsedTimer t;
    t.start();
    QVERIFY(v->unlock(kPass));
    qInfo("scrypt N=%.0f: unlock took %lld ms", n, t.elapsed());
    QVERIFY2(t.elapsed() >= 100, "unlock is too cheap for a brute-force attacker");
    QVERIFY2(t.elapsed() < 3000, "unlock is too slow");
}

void TestVault::secretsRoundTripAndPlaceholders()
{
    qint64 id = 0;
    auto v = initialisedWithSecrets(&id);
    QVERIFY(v);
    auto lent = v->lentSecrets(QStringLiteral("box"));
    QVERIFY2(lent, qPrintable(lent.error().message()));
    QCOMPARE(int(lent->size()), 2);
    const LentSecret &gh = lent->at(0);
    const LentSecret &oa = lent->at(1);
    QCOMPARE(oa.name, QStringLiteral("openai"));
    QCOMPARE(oa.value->view(), kValue);
    QCOMPARE(oa.headerName, QByteArray("x-api-key"));
    QCOMPARE(oa.envVar, QStringLiteral("OPENAI_API_KEY"));
    QCOMPARE(oa.placeholder.size(), kValue.size());
    QVERIFY(oa.placeholder != kValue);
    for (char c : oa.placeholder)
        QVERIFY(std::isalnum(static_cast<unsigned char>(c)));
    QCOMPARE(gh.hosts, QStringList{QStringLiteral("*.github.test")});
    QCOMPARE(gh.headerName, QByteArray("Authorization"));
    QCOMPARE(gh.value->view(), kValue2);

    auto list = v->secrets(0);
    QVERIFY(list);
    QCOMPARE(list->size(), 2);
    QCOMPARE(list->at(1).name, QStringLiteral("openai"));
    QCOMPARE(list->at(1).header, QStringLiteral("x-api-key: {}"));
    QCOMPARE(list->at(1).usedBy, QStringList{QStringLiteral("box")});
    QCOMPARE(list->at(0).header, QStringLiteral("Authorization: Bearer {}"));
    // Other users see none of root's secrets.
    QCOMPARE(v->secrets(1000)->size(), 0);

    // Locking forgets the key: nothing can be decrypted until unlocked again.
    v->lock();
    auto locked = v->lentSecrets(QStringLiteral("box"));
    QVERIFY(!locked);
    QCOMPARE(locked.error().what, QStringLiteral("the Airlock vault is locked"));
    QVERIFY(!v->setSecret(QStringLiteral("x"), {QStringLiteral("a.test")}, {}, kValue, 0));
    QVERIFY(v->unlock(kPass));
    QVERIFY(v->lentSecrets(QStringLiteral("box")));
}

void TestVault::flippedCiphertextByteFails()
{
    qint64 id = 0;
    auto v = initialisedWithSecrets(&id);
    QVERIFY(v);
    {
        auto store = Store::open(m_db);
        const auto row = store->firstRow(QStringLiteral("SELECT ciphertext FROM secrets WHERE name = 'openai'"));
        QVERIFY(row && *row);
        QByteArray ct = (*row)->value(0).toByteArray();
        ct[5] = char(ct[5] ^ 0x01);
        QVERIFY(store->write(QStringLiteral("UPDATE secrets SET ciphertext = ? WHERE name = 'openai'"), {ct}));
    }
    auto lent = v->lentSecrets(QStringLiteral("box"));
    QVERIFY(!lent);
    QVERIFY2(lent.error().message().contains(QLatin1String("secret openai cannot be decrypted")), qPrintable(lent.error().message()));
}

void TestVault::swappedRowsFail()
{
    qint64 id = 0;
    auto v = initialisedWithSecrets(&id);
    QVERIFY(v);
    {
        auto store = Store::open(m_db);
        // Same lengths, so only the AAD (id, name, hosts) can tell the rows apart.
        QVERIFY(store->write(QStringLiteral("UPDATE secrets SET value_len = (SELECT value_len FROM secrets WHERE name='openai') "
                                            "WHERE name = 'github'")));
        QVERIFY(store->write(QStringLiteral("CREATE TEMP TABLE t AS SELECT name, nonce, ciphertext FROM secrets")));
        QVERIFY(store->write(QStringLiteral("UPDATE secrets SET nonce = (SELECT nonce FROM t WHERE t.name <> secrets.name), "
                                            "ciphertext = (SELECT ciphertext FROM t WHERE t.name <> secrets.name)")));
    }
    auto lent = v->lentSecrets(QStringLiteral("box"));
    QVERIFY(!lent);
    QVERIFY2(lent.error().why.contains(QLatin1String("altered or swapped")), qPrintable(lent.error().message()));
}

void TestVault::editedHostsFail()
{
    qint64 id = 0;
    auto v = initialisedWithSecrets(&id);
    QVERIFY(v);
    {
        auto store = Store::open(m_db);
        QVERIFY(store->write(QStringLiteral("UPDATE secrets SET hosts_json = '[\"evil.test\"]' WHERE name = 'openai'")));
    }
    QVERIFY(!v->lentSecrets(QStringLiteral("box")));
}

void TestVault::noPlaintextOnDisk()
{
    qint64 id = 0;
    auto v = initialisedWithSecrets(&id);
    QVERIFY(v);
    QVERIFY(v->lentSecrets(QStringLiteral("box")));
    // Whatever SQLite wrote so far, in the main file and the write-ahead log.
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")}) {
        const QByteArray raw = rawBytes(m_db + suffix);
        if (suffix.isEmpty() || suffix == QLatin1String("-wal"))
            QVERIFY2(!raw.isEmpty(), qPrintable(QStringLiteral("nothing to inspect in ") + m_db + suffix));
        QVERIFY2(!raw.contains(kValue), qPrintable(QStringLiteral("plaintext secret found in ") + m_db + suffix));
        QVERIFY(!raw.contains(kValue2));
        QVERIFY(!raw.contains(kValue.mid(8, 16)));
        QVERIFY(!raw.contains(kPass));
    }
    // And after a checkpoint moved the log into the main file.
    v.reset();
    {
        auto store = Store::open(m_db);
        QVERIFY(store->rows(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)")));
    }
    QVERIFY(!rawBytes(m_db).contains(kValue));
    QVERIFY(!rawBytes(m_db).contains(kValue2));
}

void TestVault::changePassphraseKeepsSecrets()
{
    qint64 id = 0;
    auto v = initialisedWithSecrets(&id);
    QVERIFY(v);
    QByteArray ctBefore;
    auto readCt = [this] {
        auto store = Store::open(m_db);
        const auto row = store->firstRow(QStringLiteral("SELECT group_concat(hex(ciphertext)) FROM secrets"));
        return row && *row ? (*row)->value(0).toByteArray() : QByteArray();
    };
    ctBefore = readCt();
    const QByteArray newPass = QByteArrayLiteral("another much better passphrase");
    Status wrong = v->changePassphrase(QByteArrayLiteral("not the passphrase"), newPass);
    QVERIFY(!wrong);
    QVERIFY(wrong.error().message().startsWith(QLatin1String("wrong passphrase")));
    QVERIFY(v->changePassphrase(kPass, newPass));
    QCOMPARE(readCt(), ctBefore); // secrets untouched: only the slot was rewrapped

    auto fresh = makeVault();
    QVERIFY(!fresh->unlock(kPass));
    QVERIFY(fresh->unlock(newPass));
    auto lent = fresh->lentSecrets(QStringLiteral("box"));
    QVERIFY(lent);
    QCOMPARE(lent->at(1).value->view(), kValue);
}

void TestVault::badInputsAreRefusedClearly()
{
    auto v = makeVault();
    QVERIFY(v->init(kPass));
    const QStringList host{QStringLiteral("api.example.test")};
    struct Case {
        QString name;
        QStringList hosts;
        QString header;
        QByteArray value;
        QString expect;
    };
    const QList<Case> cases = {
        {QStringLiteral("bad name!"), host, {}, kValue, QStringLiteral("invalid secret name")},
        {QStringLiteral("k"), {}, {}, kValue, QStringLiteral("names no host")},
        {QStringLiteral("k"), {QStringLiteral("*.com")}, {}, kValue, QStringLiteral("top-level domain")},
        {QStringLiteral("k"), {QStringLiteral("evil*.com")}, {}, kValue, QStringLiteral("wildcard")},
        {QStringLiteral("k"), {QStringLiteral("10.0.0.1")}, {}, kValue, QStringLiteral("host names")},
        {QStringLiteral("k"), {QStringLiteral("bad_host.test")}, {}, kValue, QStringLiteral("DNS label")},
        {QStringLiteral("k"), host, QStringLiteral("x-api-key: value"), kValue, QStringLiteral("exactly one {}")},
        {QStringLiteral("k"), host, QStringLiteral("x-api-key: {}{}"), kValue, QStringLiteral("exactly one {}")},
        {QStringLiteral("k"), host, QStringLiteral("no colon {}"), kValue, QStringLiteral("Name: value")},
        {QStringLiteral("k"), host, QStringLiteral("bad header: {}"), kValue, QStringLiteral("header name")},
        {QStringLiteral("k"), host, QStringLiteral("Host: {}"), kValue, QStringLiteral("controls the connection")},
        {QStringLiteral("k"), host, {}, QByteArrayLiteral("short"), QStringLiteral("must have 12")},
        {QStringLiteral("k"), host, {}, kValue + "\n", QStringLiteral("line break")},
        {QStringLiteral("k"), host, {}, QByteArray(), QStringLiteral("empty")},
    };
    for (const Case &c : cases) {
        Status s = v->setSecret(c.name, c.hosts, c.header, c.value, 0);
        QVERIFY2(!s, qPrintable(c.expect));
        QVERIFY2(s.error().message().contains(c.expect), qPrintable(s.error().message() + QStringLiteral(" / expected ") + c.expect));
    }
    auto list = v->secrets(0);
    QCOMPARE(list->size(), 0); // nothing half-made
    // Valid input is normalised.
    QVERIFY(v->setSecret(QStringLiteral("k"), {QStringLiteral("API.Example.Test.")}, QStringLiteral("Authorization:Bearer {}"), kValue, 0));
    QCOMPARE(v->secrets(0)->at(0).hosts, QStringList{QStringLiteral("api.example.test")});
    QCOMPARE(v->secrets(0)->at(0).header, QStringLiteral("Authorization: Bearer {}"));
    // Lending needs a real secret and a valid variable name.
    const qint64 sb = testsupport::addSandbox(m_db, QStringLiteral("b"));
    QVERIFY(!v->lendSecret(sb, QStringLiteral("nope"), QStringLiteral("X"), 0));
    QVERIFY(!v->lendSecret(sb, QStringLiteral("k"), QStringLiteral("1BAD"), 0));
    QVERIFY(!v->lendSecret(sb, QStringLiteral("k"), QStringLiteral("K"), 1000)); // another user's secret
    QVERIFY(v->lendSecret(sb, QStringLiteral("k"), QStringLiteral("K"), 0));
    auto twice = v->lendSecret(sb, QStringLiteral("k"), QStringLiteral("K2"), 0);
    QVERIFY(!twice);
    QVERIFY2(twice.error().message().contains(QLatin1String("already borrows")), qPrintable(twice.error().message()));
}

void TestVault::usedSecretCannotBeRemoved()
{
    qint64 id = 0;
    auto v = initialisedWithSecrets(&id);
    QVERIFY(v);
    Status s = v->removeSecret(QStringLiteral("openai"), 0);
    QVERIFY(!s);
    QVERIFY2(s.error().message().contains(QLatin1String("used by box")), qPrintable(s.error().message()));
    QVERIFY(!v->removeSecret(QStringLiteral("missing"), 0));
    QVERIFY(v->setSecret(QStringLiteral("spare"), {QStringLiteral("a.test")}, {}, kValue, 0));
    QVERIFY(v->removeSecret(QStringLiteral("spare"), 0));
    QCOMPARE(v->secrets(0)->size(), 2);
}

void TestVault::keyringSlotFailsClearlyWithoutKeyring()
{
    qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    auto v = makeVault();
    QVERIFY(v->init(kPass));
    Status s = v->enableKeyringSlot();
    QVERIFY(!s);
    QVERIFY2(s.error().message().contains(QLatin1String("no OS keyring")), qPrintable(s.error().message()));
    QVERIFY2(s.error().message().contains(QLatin1String("passphrase")), qPrintable(s.error().message()));
    Status u = v->unlockFromKeyring();
    QVERIFY(!u);
    QVERIFY2(u.error().message().contains(QLatin1String("no OS keyring slot")), qPrintable(u.error().message()));
    QCOMPARE(v->state(), VaultState::Unlocked); // the passphrase slot is untouched
}

void TestVault::sandboxCaIsNameConstrainedAndEncrypted()
{
    qint64 id = 0;
    auto v = initialisedWithSecrets(&id);
    QVERIFY(v);
    auto pem = v->issueSandboxCa(id);
    QVERIFY2(pem, qPrintable(pem.error().message()));
    QVERIFY(pem->startsWith("-----BEGIN CERTIFICATE-----"));
    // The key is stored encrypted: no PEM/DER private key in the row.
    {
        auto store = Store::open(m_db);
        const auto row = store->firstRow(QStringLiteral("SELECT cert_pem, length(key_ciphertext) FROM sandbox_cas"));
        QVERIFY(row && *row);
        QVERIFY(!(*row)->value(0).toString().contains(QLatin1String("PRIVATE")));
        QVERIFY((*row)->value(1).toInt() > 100);
    }
    // A new process loads it (decrypting the key) once unlocked.
    auto fresh = makeVault();
    QVERIFY(!fresh->sandboxCa(QStringLiteral("box")));
    QVERIFY(fresh->unlock(kPass));
    auto ca = fresh->sandboxCa(QStringLiteral("box"));
    QVERIFY2(ca, qPrintable(ca.error().message()));
    QCOMPARE(ca.value()->certificatePem(), pem.value());

    auto leaf = ca.value()->minter().leafFor(QStringLiteral("api.openai.test"));
    QVERIFY(leaf);
    QVERIFY(verifies(*ca.value(), *leaf.value(), "api.openai.test"));
    // Cached: the same leaf for the same name.
    QCOMPARE(ca.value()->minter().leafFor(QStringLiteral("api.openai.test")).value().get(), leaf.value().get());
    auto sub = ca.value()->minter().leafFor(QStringLiteral("api.github.test"));
    QVERIFY(verifies(*ca.value(), *sub.value(), "api.github.test"));
    // Outside the name constraints: a leaf minted for another host does not verify.
    auto other = ca.value()->minter().leafFor(QStringLiteral("evil.test"));
    QVERIFY(other);
    QVERIFY(!verifies(*ca.value(), *other.value(), "evil.test"));
    // Backdated by an hour, valid about a day, with AKI and SAN.
    const ASN1_TIME *nb = X509_get0_notBefore(leaf.value()->cert);
    int days = 0, secs = 0;
    QVERIFY(ASN1_TIME_diff(&days, &secs, nb, nullptr));
    QVERIFY2(days * 86400 + secs >= 3500, "notBefore is not backdated");
    QVERIFY(X509_get_ext_by_NID(leaf.value()->cert, NID_authority_key_identifier, -1) >= 0);
    QVERIFY(X509_get_ext_by_NID(leaf.value()->cert, NID_subject_alt_name, -1) >= 0);
    QVERIFY(!ca.value()->minter().leafFor(QStringLiteral("bad name")));
    // The row is bound to its sandbox: another sandbox's id in the AAD fails.
    {
        auto store = Store::open(m_db);
        const qint64 other2 = testsupport::addSandbox(m_db, QStringLiteral("box2"));
        QVERIFY(store->write(QStringLiteral("INSERT INTO sandbox_cas SELECT ?, cert_pem, key_nonce, key_ciphertext, created, hosts_json "
                                            "FROM sandbox_cas WHERE sandbox_id = ?"),
                             {other2, id}));
    }
    auto swapped = fresh->sandboxCa(QStringLiteral("box2"));
    QVERIFY(!swapped);
}

QTEST_GUILESS_MAIN(TestVault)
#include "test_vault.moc"
