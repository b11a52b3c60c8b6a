// The vault's OS keyring slot against a real Secret Service (GNOME Keyring in a private D-Bus
// session, see keyring-session.sh), through a real airlockd and airlockctl.
#include "daemonprocess.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

namespace {
const QByteArray kPass = QByteArrayLiteral("a fine long passphrase for the keyring test");

QJsonObject json(const DaemonProcess::CtlResult &r) { return QJsonDocument::fromJson(r.out).object(); }

// What the Secret Service holds for Airlock (secret-tool talks to it directly, not through us).
// QtKeychain's libsecret schema names the service "server" and the key "user"; its KWallet-
// style fallback uses "service": look under both.
QByteArray keyringEntries()
{
    QByteArray all;
    for (const char *attribute : {"server", "service"}) {
        QProcess p;
        p.start(QStringLiteral("secret-tool"), {QStringLiteral("search"), QStringLiteral("--all"), QLatin1String(attribute),
                                                QStringLiteral("airlock")});
        p.waitForFinished(20000);
        all += p.readAllStandardOutput() + p.readAllStandardError();
    }
    return all;
}
} // namespace

class TestVaultKeyring : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void theKeyringUnlocksAndAutoUnlocksAtStart();
    void turningItOffLeavesOnlyThePassphrase();
    void cleanupTestCase() { m_daemon.stop(); }

private:
    DaemonProcess m_daemon;
};

void TestVaultKeyring::initTestCase()
{
    QVERIFY2(!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"),
             "no D-Bus session: run through ctest, which starts this test in tests/vault/keyring-session.sh");
    QVERIFY2(m_daemon.start(), qPrintable(m_daemon.log()));
    const auto init = m_daemon.ctl({QStringLiteral("vault"), QStringLiteral("init")}, kPass + '\n');
    QVERIFY2(init.exitCode == 0, init.err.constData());
}

void TestVaultKeyring::theKeyringUnlocksAndAutoUnlocksAtStart()
{
    auto on = m_daemon.ctl({QStringLiteral("--json"), QStringLiteral("vault"), QStringLiteral("keyring"), QStringLiteral("on")});
    QVERIFY2(on.exitCode == 0, on.err.constData());
    QCOMPARE(json(on).value(QLatin1String("keyring")).toBool(), true);
    QVERIFY2(keyringEntries().contains("vault-key:"), keyringEntries().constData());

    QCOMPARE(m_daemon.ctl({QStringLiteral("vault"), QStringLiteral("lock")}).exitCode, 0);
    auto unlocked = m_daemon.ctl({QStringLiteral("--json"), QStringLiteral("vault"), QStringLiteral("unlock"), QStringLiteral("--keyring")});
    QVERIFY2(unlocked.exitCode == 0, unlocked.err.constData());
    QCOMPARE(json(unlocked).value(QLatin1String("vault")).toString(), QStringLiteral("unlocked"));

    // A daemon started in this session opens the vault without being asked.
    QCOMPARE(m_daemon.stop(), 0);
    QVERIFY2(m_daemon.start(), qPrintable(m_daemon.log()));
    QString state;
    for (int i = 0; i < 100 && state != QLatin1String("unlocked"); ++i) {
        state = json(m_daemon.ctl({QStringLiteral("--json"), QStringLiteral("vault"), QStringLiteral("status")}))
                    .value(QLatin1String("vault")).toString();
        if (state != QLatin1String("unlocked"))
            QTest::qWait(100);
    }
    QVERIFY2(state == QLatin1String("unlocked"), qPrintable(m_daemon.log()));
}

void TestVaultKeyring::turningItOffLeavesOnlyThePassphrase()
{
    auto off = m_daemon.ctl({QStringLiteral("--json"), QStringLiteral("vault"), QStringLiteral("keyring"), QStringLiteral("off")});
    QVERIFY2(off.exitCode == 0, off.err.constData());
    QCOMPARE(json(off).value(QLatin1String("keyring")).toBool(), false);
    QVERIFY2(!keyringEntries().contains("vault-key:"), "the key stayed in the OS keyring");
    QCOMPARE(m_daemon.ctl({QStringLiteral("vault"), QStringLiteral("lock")}).exitCode, 0);
    const auto refused = m_daemon.ctl({QStringLiteral("vault"), QStringLiteral("unlock"), QStringLiteral("--keyring")});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("no OS keyring slot"), refused.err.constData());
    const auto bad = m_daemon.ctl({QStringLiteral("vault"), QStringLiteral("keyring"), QStringLiteral("maybe")});
    QCOMPARE(bad.exitCode, 2);
    QCOMPARE(m_daemon.ctl({QStringLiteral("vault"), QStringLiteral("unlock")}, kPass + '\n').exitCode, 0);
}

QTEST_GUILESS_MAIN(TestVaultKeyring)
#include "test_vault_keyring.moc"
