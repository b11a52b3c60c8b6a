// Bad input and faults get clear errors and leave nothing half-made.
#include "daemonharness.h"
#include "libvirtview.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

class TestEngineBadInput : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void invalidNamesAreRefused_data();
    void invalidNamesAreRefused();
    void duplicateIsRefusedAndOriginalKept();
    void missingImageAndTooLittleMemory();
    void createWithAPolicyFile();
    void unknownSandboxAndStoppedExec();
    void usageErrorsExitTwo();
    void libvirtdDownSaysHowToStartIt();
    void cleanupTestCase();

private:
    DaemonHarness m_daemon;
    QString m_box;
};

void TestEngineBadInput::initTestCase()
{
    QString error;
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
    m_box = uniqueName(QStringLiteral("bad"));
}

void TestEngineBadInput::invalidNamesAreRefused_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("upper") << QStringLiteral("Box");
    QTest::newRow("leading dash") << QStringLiteral("-box");
    QTest::newRow("too long") << QString(33, QLatin1Char('a'));
    QTest::newRow("slash") << QStringLiteral("a/b");
    QTest::newRow("space") << QStringLiteral("a b");
}

void TestEngineBadInput::invalidNamesAreRefused()
{
    QFETCH(QString, name);
    const CtlResult r = m_daemon.ctl({QStringLiteral("create"), name});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.startsWith("airlockctl: create : invalid sandbox name"), r.err.constData());
    QVERIFY2(r.err.contains("a-z, 0-9"), r.err.constData());
}

void TestEngineBadInput::duplicateIsRefusedAndOriginalKept()
{
    QCOMPARE(m_daemon.ctl({QStringLiteral("create"), m_box}).exitCode, 0);
    const CtlResult dup = m_daemon.ctl({QStringLiteral("create"), m_box});
    QCOMPARE(dup.exitCode, 1);
    QVERIFY2(dup.err.contains("already exists"), dup.err.constData());
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + m_box);
    QCOMPARE(view.domains.size(), 1);
    QCOMPARE(view.networks.size(), 1);
    QCOMPARE(view.volumes.size(), 1);
}

void TestEngineBadInput::missingImageAndTooLittleMemory()
{
    const QString name = uniqueName(QStringLiteral("bad2"));
    const CtlResult noImage = m_daemon.ctl({QStringLiteral("create"), name, QStringLiteral("--image"), QStringLiteral("nope")});
    QCOMPARE(noImage.exitCode, 1);
    QVERIFY2(noImage.err.contains("no image named nope") && noImage.err.contains("image build"), noImage.err.constData());
    const CtlResult memory = m_daemon.ctl({QStringLiteral("create"), name, QStringLiteral("--memory"), QStringLiteral("16")});
    QCOMPARE(memory.exitCode, 1);
    QVERIFY2(memory.err.contains("16 MiB of memory is too little"), memory.err.constData());
    const CtlResult cpus = m_daemon.ctl({QStringLiteral("create"), name, QStringLiteral("--cpus"), QStringLiteral("0")});
    QCOMPARE(cpus.exitCode, 1);
    const CtlResult env = m_daemon.ctl({QStringLiteral("create"), name, QStringLiteral("--env"), QStringLiteral("1BAD=x")});
    QCOMPARE(env.exitCode, 1);
    QVERIFY2(env.err.contains("invalid environment variable"), env.err.constData());
    // More environment than the guest kernel's command line holds: refused, not cut short.
    const CtlResult longEnv = m_daemon.ctl({QStringLiteral("create"), name, QStringLiteral("--env"),
                                            QStringLiteral("BIG=") + QString(1600, QLatin1Char('x'))});
    QCOMPARE(longEnv.exitCode, 1);
    QVERIFY2(longEnv.err.contains("does not fit on the guest kernel's command line") && longEnv.err.contains("fewer or shorter --env"),
             longEnv.err.constData());
    const CtlResult tmpl = m_daemon.ctl({QStringLiteral("create"), name, QStringLiteral("--template"), QStringLiteral("no-such-agent")});
    QCOMPARE(tmpl.exitCode, 1);
    QVERIFY2(tmpl.err.contains("no agent template named") && tmpl.err.contains("claude-code, codex, shell"), tmpl.err.constData());
    // None of these left anything behind.
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + name);
    QVERIFY(view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty());
    QCOMPARE(storeRows(DaemonHarness::sharedDataDir() + QStringLiteral("/airlock.db"), QStringLiteral("sandboxes"),
                       QStringLiteral("name"), name), 0);
}

// create --policy FILE: the sandbox starts life with the file's rules, each naming the file;
// a bad file makes nothing, not a sandbox without its rules.
void TestEngineBadInput::createWithAPolicyFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto write = [&](const QString &name, const QByteArray &text) {
        QFile f(dir.filePath(name));
        f.open(QIODevice::WriteOnly);
        f.write(text);
        return f.fileName();
    };
    const QString bad = write(QStringLiteral("bad.json"), R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "ok.example"},
                                                           {"action": "allow", "host": "ok.example", "port": 443, "prot": 1}]})");
    const QString refused = uniqueName(QStringLiteral("pol1"));
    const CtlResult r = m_daemon.ctl({QStringLiteral("create"), refused, QStringLiteral("--policy"), bad});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(bad.toUtf8()) && r.err.contains("rules[1]: unknown key 'prot'"), r.err.constData());
    const LibvirtView none = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + refused);
    QVERIFY(none.domains.isEmpty() && none.networks.isEmpty() && none.volumes.isEmpty());
    QCOMPARE(storeRows(DaemonHarness::sharedDataDir() + QStringLiteral("/airlock.db"), QStringLiteral("sandboxes"),
                       QStringLiteral("name"), refused), 0);

    const QString good = write(QStringLiteral("good.json"), R"({"airlock_policy": 1, "rules": [
        {"action": "allow", "host": "api.example.org", "port": 443, "why": "the agent's API"},
        {"action": "deny", "host": "*.ads.example"}]})");
    const QString name = uniqueName(QStringLiteral("pol2"));
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), name, QStringLiteral("--policy"), good});
    QVERIFY2(created.exitCode == 0, created.err.constData());
    const CtlResult rules = m_daemon.ctl({QStringLiteral("rule"), QStringLiteral("ls"), name});
    QStringList got;
    for (const QJsonValue &v : rules.json().toArray()) {
        const QJsonObject o = v.toObject();
        if (o.value(QLatin1String("sandbox")).toString() != name)
            continue;
        got << o.value(QLatin1String("action")).toString() + QLatin1Char(' ') + o.value(QLatin1String("pattern")).toString();
        QVERIFY2(o.value(QLatin1String("origin")).toString().startsWith(QStringLiteral("policy file ") + good),
                 qPrintable(o.value(QLatin1String("origin")).toString()));
    }
    got.sort();
    QCOMPARE(got, (QStringList{QStringLiteral("allow api.example.org"), QStringLiteral("deny *.ads.example")}));
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), name}).exitCode, 0);
}

void TestEngineBadInput::unknownSandboxAndStoppedExec()
{
    for (const char *cmd : {"start", "stop", "kill", "pause", "resume", "rm"}) {
        const CtlResult r = m_daemon.ctl({QString::fromLatin1(cmd), QStringLiteral("no-such-box")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no sandbox named no-such-box"), r.err.constData());
    }
    const CtlResult exec = m_daemon.ctl({QStringLiteral("exec"), m_box, QStringLiteral("--"), QStringLiteral("true")});
    QCOMPARE(exec.exitCode, 1);
    QVERIFY2(exec.err.contains("is not running; start it first"), exec.err.constData());
    const CtlResult pause = m_daemon.ctl({QStringLiteral("pause"), m_box});
    QCOMPARE(pause.exitCode, 1);
}

void TestEngineBadInput::usageErrorsExitTwo()
{
    QCOMPARE(m_daemon.ctl({QStringLiteral("create")}).exitCode, 2);
    QCOMPARE(m_daemon.ctl({QStringLiteral("exec"), m_box}).exitCode, 2);
    QCOMPARE(m_daemon.ctl({QStringLiteral("cp"), QStringLiteral("a"), QStringLiteral("b")}).exitCode, 2);
    QCOMPARE(m_daemon.ctl({QStringLiteral("create"), QStringLiteral("x"), QStringLiteral("--memory"), QStringLiteral("lots")}).exitCode, 2);
}

void TestEngineBadInput::libvirtdDownSaysHowToStartIt()
{
    // A libvirt URI whose socket does not exist is what a stopped libvirtd looks like.
    QTemporaryDir dir;
    DaemonHarness lonely;
    QString error;
    QVERIFY2(lonely.start(dir.path(), &error, {QStringLiteral("--libvirt-uri"),
                                                QStringLiteral("qemu+unix:///system?socket=") + dir.filePath(QStringLiteral("none.sock"))}),
             qPrintable(error));
    const CtlResult r = lonely.ctl({QStringLiteral("create"), QStringLiteral("x")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("libvirtd running?") && r.err.contains("libvirtd -d"), r.err.constData());
}

void TestEngineBadInput::cleanupTestCase()
{
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), m_box}).exitCode, 0);
}

QTEST_GUILESS_MAIN(TestEngineBadInput)
#include "test_engine_badinput.moc"
