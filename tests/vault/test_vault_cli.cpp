// End to end through a real airlockd and airlockctl --json: vault and secret commands, bad
// input, exit codes, and that a value never comes back out (replies, log, database).
#include "support.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace airlock;

namespace {
const QByteArray kValue = QByteArrayLiteral("sk-ant-REALVALUE-cli-0123456789-abcdef");
const QByteArray kPass = QByteArrayLiteral("a fine long passphrase");

struct Run {
    int code = -1;
    QByteArray out;
    QByteArray err;
    QJsonValue json() const
    {
        const QJsonDocument d = QJsonDocument::fromJson(out);
        return d.isArray() ? QJsonValue(d.array()) : QJsonValue(d.object());
    }
};
} // namespace

class TestVaultCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void vaultLifecycle();
    void secretsAreWriteOnly();
    void badInputsFailClearly();
    void usedSecretCannotBeRemoved();
    void aSecretKindNeedsNoHostOrHeader();

private:
    Run ctl(const QStringList &args, const QByteArray &input = {});
    QTemporaryDir m_dir;
    QProcess m_daemon;
    QString m_socket;
    QString m_log;
};

Run TestVaultCli::ctl(const QStringList &args, const QByteArray &input)
{
    QProcess p;
    p.start(qEnvironmentVariable("AIRLOCKCTL_BIN"), QStringList{QStringLiteral("--socket"), m_socket} + args);
    p.waitForStarted();
    p.write(input);
    p.closeWriteChannel();
    p.waitForFinished(30000);
    return Run{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

void TestVaultCli::initTestCase()
{
    QVERIFY2(!qEnvironmentVariable("AIRLOCKD_BIN").isEmpty(), "AIRLOCKD_BIN is not set (run through ctest)");
    m_socket = m_dir.filePath(QStringLiteral("airlockd.sock"));
    m_log = m_dir.filePath(QStringLiteral("airlockd.log"));
    m_daemon.setStandardOutputFile(m_log);
    m_daemon.setStandardErrorFile(m_log);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("airlock.*.debug=true"));
    m_daemon.setProcessEnvironment(env);
    m_daemon.start(qEnvironmentVariable("AIRLOCKD_BIN"),
                   {QStringLiteral("--foreground"), QStringLiteral("--socket"), m_socket, QStringLiteral("--data-dir"),
                    m_dir.filePath(QStringLiteral("data"))});
    QVERIFY(m_daemon.waitForStarted());
    for (int i = 0; i < 100 && !QFile::exists(m_socket); ++i)
        QThread::msleep(50);
    QVERIFY2(QFile::exists(m_socket), "airlockd did not start listening");
}

void TestVaultCli::cleanupTestCase()
{
    m_daemon.terminate();
    m_daemon.waitForFinished(10000);
    // The daemon's whole log, debug included, never shows the value or the passphrase.
    QFile log(m_log);
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QByteArray text = log.readAll();
    QVERIFY(!text.contains(kValue));
    QVERIFY(!text.contains(kPass));
}

void TestVaultCli::vaultLifecycle()
{
    Run r = ctl({QStringLiteral("--json"), QStringLiteral("vault"), QStringLiteral("status")});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.json().toObject().value(QLatin1String("vault")).toString(), QStringLiteral("uninitialised"));
    r = ctl({QStringLiteral("--json"), QStringLiteral("vault"), QStringLiteral("unlock")}, kPass + "\n");
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.startsWith("airlockctl: vault unlock : the Airlock vault is not initialised"), r.err.constData());
    r = ctl({QStringLiteral("vault"), QStringLiteral("init")}, QByteArrayLiteral("short\n"));
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("too short"), r.err.constData());
    r = ctl({QStringLiteral("vault"), QStringLiteral("init")});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("no passphrase on standard input"), r.err.constData());
    r = ctl({QStringLiteral("--json"), QStringLiteral("vault"), QStringLiteral("init")}, kPass + "\n");
    QCOMPARE(r.code, 0);
    QCOMPARE(r.json().toObject().value(QLatin1String("vault")).toString(), QStringLiteral("unlocked"));
    QVERIFY(!r.out.contains(kPass));
    r = ctl({QStringLiteral("vault"), QStringLiteral("init")}, kPass + "\n");
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains("already initialised"));

    r = ctl({QStringLiteral("--json"), QStringLiteral("vault"), QStringLiteral("lock")});
    QCOMPARE(r.json().toObject().value(QLatin1String("vault")).toString(), QStringLiteral("locked"));
    r = ctl({QStringLiteral("--json"), QStringLiteral("status")});
    QCOMPARE(r.json().toObject().value(QLatin1String("vault")).toString(), QStringLiteral("locked"));
    r = ctl({QStringLiteral("vault"), QStringLiteral("unlock")}, QByteArrayLiteral("not the passphrase\n"));
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.startsWith("airlockctl: vault unlock : wrong passphrase"), r.err.constData());
    r = ctl({QStringLiteral("--json"), QStringLiteral("vault"), QStringLiteral("unlock")}, kPass + "\n");
    QCOMPARE(r.code, 0);
    QCOMPARE(r.json().toObject().value(QLatin1String("vault")).toString(), QStringLiteral("unlocked"));

    const QByteArray newPass = QByteArrayLiteral("an even finer passphrase");
    r = ctl({QStringLiteral("vault"), QStringLiteral("change-passphrase")}, "wrong one\n" + newPass + "\n");
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains("wrong passphrase"));
    r = ctl({QStringLiteral("vault"), QStringLiteral("change-passphrase")}, kPass + "\n" + newPass + "\n");
    QCOMPARE(r.code, 0);
    ctl({QStringLiteral("vault"), QStringLiteral("lock")});
    QCOMPARE(ctl({QStringLiteral("vault"), QStringLiteral("unlock")}, kPass + "\n").code, 1);
    QCOMPARE(ctl({QStringLiteral("vault"), QStringLiteral("unlock")}, newPass + "\n").code, 0);
    // Put the original passphrase back for the other tests' log check.
    QCOMPARE(ctl({QStringLiteral("vault"), QStringLiteral("change-passphrase")}, newPass + "\n" + kPass + "\n").code, 0);
}

void TestVaultCli::secretsAreWriteOnly()
{
    Run r = ctl({QStringLiteral("--json"), QStringLiteral("secret"), QStringLiteral("set"), QStringLiteral("anthropic"),
                 QStringLiteral("--host"), QStringLiteral("api.anthropic.test"), QStringLiteral("--host"),
                 QStringLiteral("*.anthropic.test"), QStringLiteral("--header"), QStringLiteral("x-api-key: {}")},
                kValue + "\n");
    QCOMPARE(r.code, 0);
    const QJsonObject set = r.json().toObject();
    QCOMPARE(set.value(QLatin1String("name")).toString(), QStringLiteral("anthropic"));
    QCOMPARE(set.value(QLatin1String("hosts")).toArray().size(), 2);
    QCOMPARE(set.value(QLatin1String("header")).toString(), QStringLiteral("x-api-key: {}"));
    QVERIFY(!r.out.contains(kValue));

    r = ctl({QStringLiteral("--json"), QStringLiteral("secret"), QStringLiteral("ls")});
    QCOMPARE(r.code, 0);
    const QJsonArray list = r.json().toArray();
    QCOMPARE(list.size(), 1);
    const QJsonObject s = list.at(0).toObject();
    QCOMPARE(s.keys(), (QStringList{QStringLiteral("expires"), QStringLiteral("header"), QStringLiteral("hosts"),
                                     QStringLiteral("login"), QStringLiteral("name"), QStringLiteral("used_by")}));
    QVERIFY(!r.out.contains(kValue));
    r = ctl({QStringLiteral("secret"), QStringLiteral("ls")});
    QVERIFY(r.out.contains("anthropic"));
    QVERIFY(!r.out.contains(kValue));

    // The database on disk holds no plaintext.
    const QString db = m_dir.filePath(QStringLiteral("data/airlock.db"));
    for (const QString &suffix : {QString(), QStringLiteral("-wal")}) {
        QFile f(db + suffix);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY2(!f.readAll().contains(kValue), qPrintable(db + suffix));
    }

    // While locked nothing can be set.
    ctl({QStringLiteral("vault"), QStringLiteral("lock")});
    r = ctl({QStringLiteral("secret"), QStringLiteral("set"), QStringLiteral("other"), QStringLiteral("--host"),
             QStringLiteral("a.test")}, kValue);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("the Airlock vault is locked"), r.err.constData());
    QCOMPARE(ctl({QStringLiteral("vault"), QStringLiteral("unlock")}, kPass + "\n").code, 0);
}

void TestVaultCli::badInputsFailClearly()
{
    const QStringList set{QStringLiteral("secret"), QStringLiteral("set"), QStringLiteral("bad")};
    struct Case {
        QStringList args;
        QByteArray input;
        int code;
        QByteArray expect;
    };
    const QList<Case> cases = {
        {set, kValue, 2, "name at least one --host"},
        {set + QStringList{QStringLiteral("--host")}, kValue, 2, "--host needs a value"},
        {set + QStringList{QStringLiteral("--host"), QStringLiteral("a.test")}, {}, 1, "no value on standard input"},
        {set + QStringList{QStringLiteral("--host"), QStringLiteral("*.test")}, kValue, 1, "top-level domain"},
        {set + QStringList{QStringLiteral("--host"), QStringLiteral("a.test"), QStringLiteral("--header"),
                           QStringLiteral("Authorization: Bearer")}, kValue, 1, "exactly one {}"},
        {set + QStringList{QStringLiteral("--host"), QStringLiteral("a.test"), QStringLiteral("--header"),
                           QStringLiteral("Bad Name: {}")}, kValue, 1, "header name"},
        {set + QStringList{QStringLiteral("--host"), QStringLiteral("a.test")}, QByteArrayLiteral("tiny"), 1, "must have 12"},
        {set + QStringList{QStringLiteral("--host"), QStringLiteral("a.test")}, kValue + "\nsecond line", 1, "line break"},
        {{QStringLiteral("secret"), QStringLiteral("rm"), QStringLiteral("nope")}, {}, 1, "no secret named nope"},
        {{QStringLiteral("secret"), QStringLiteral("rm")}, {}, 2, "usage: airlockctl secret rm NAME"},
        {{QStringLiteral("vault"), QStringLiteral("lock"), QStringLiteral("extra")}, {}, 2, "usage"},
    };
    for (const Case &c : cases) {
        const Run r = ctl(c.args, c.input);
        QVERIFY2(r.code == c.code, qPrintable(c.args.join(QLatin1Char(' ')) + QStringLiteral(" -> ") + QString::number(r.code) +
                                              QStringLiteral(" ") + QString::fromUtf8(r.err)));
        QVERIFY2(r.err.startsWith("airlockctl: "), r.err.constData());
        QVERIFY2(r.err.contains(c.expect), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }
    const Run list = ctl({QStringLiteral("--json"), QStringLiteral("secret"), QStringLiteral("ls")});
    QCOMPARE(list.json().toArray().size(), 1); // nothing half-made
}

void TestVaultCli::usedSecretCannotBeRemoved()
{
    // A sandbox borrowing the secret (the engine records this at create).
    const QString db = m_dir.filePath(QStringLiteral("data/airlock.db"));
    const qint64 sandbox = testsupport::addSandbox(db, QStringLiteral("agent1"));
    QVERIFY(sandbox > 0);
    {
        auto store = Store::open(db);
        QVERIFY(store->write(QStringLiteral("INSERT INTO sandbox_secrets SELECT ?, id, 'KEY', 'placeholder' FROM secrets "
                                            "WHERE name = 'anthropic'"),
                             {sandbox}));
    }
    Run r = ctl({QStringLiteral("--json"), QStringLiteral("secret"), QStringLiteral("ls")});
    QCOMPARE(r.json().toArray().at(0).toObject().value(QLatin1String("used_by")).toArray().at(0).toString(),
             QStringLiteral("agent1"));
    r = ctl({QStringLiteral("secret"), QStringLiteral("rm"), QStringLiteral("anthropic")});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("secret anthropic is used by agent1"), r.err.constData());
    {
        auto store = Store::open(db);
        QVERIFY(store->write(QStringLiteral("DELETE FROM sandboxes WHERE id = ?"), {sandbox}));
    }
    r = ctl({QStringLiteral("secret"), QStringLiteral("rm"), QStringLiteral("anthropic")});
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(ctl({QStringLiteral("--json"), QStringLiteral("secret"), QStringLiteral("ls")}).json().toArray().size(), 0);
}

void TestVaultCli::aSecretKindNeedsNoHostOrHeader()
{
    Run r = ctl({QStringLiteral("--json"), QStringLiteral("secret"), QStringLiteral("kinds")});
    QVERIFY2(r.code == 0, r.err.constData());
    QStringList kinds;
    for (const QJsonValue &k : r.json().toArray())
        kinds << k.toObject().value(QLatin1String("name")).toString();
    QCOMPARE(kinds, (QStringList{QStringLiteral("github"), QStringLiteral("gitlab"), QStringLiteral("npm")}));
    r = ctl({QStringLiteral("--json"), QStringLiteral("secret"), QStringLiteral("set"), QStringLiteral("gh"), QStringLiteral("--kind"),
             QStringLiteral("github")},
            kValue);
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(r.json().toObject().value(QLatin1String("hosts")).toArray(), QJsonArray{QStringLiteral("github.com")});
    QCOMPARE(r.json().toObject().value(QLatin1String("header")).toString(), QStringLiteral("Authorization: Basic {}"));
    // A self-hosted forge: the kind's shape, the caller's host.
    r = ctl({QStringLiteral("--json"), QStringLiteral("secret"), QStringLiteral("set"), QStringLiteral("forge"), QStringLiteral("--kind"),
             QStringLiteral("gitlab"), QStringLiteral("--host"), QStringLiteral("git.example.org")},
            kValue);
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(r.json().toObject().value(QLatin1String("hosts")).toArray(), QJsonArray{QStringLiteral("git.example.org")});
    QCOMPARE(r.json().toObject().value(QLatin1String("header")).toString(), QStringLiteral("Authorization: Basic {}"));
    r = ctl({QStringLiteral("secret"), QStringLiteral("set"), QStringLiteral("x"), QStringLiteral("--kind"), QStringLiteral("nosuch")}, kValue);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("no secret kind named \"nosuch\"") && r.err.contains("github, gitlab, npm"), r.err.constData());
    for (const char *name : {"gh", "forge"})
        QCOMPARE(ctl({QStringLiteral("secret"), QStringLiteral("rm"), QString::fromLatin1(name)}).code, 0);
}

QTEST_GUILESS_MAIN(TestVaultCli)
#include "test_vault_cli.moc"
