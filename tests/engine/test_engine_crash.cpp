// airlockd dies (SIGKILL, at a chosen step through AIRLOCK_TEST_CRASH_AT) in the middle of
// create, fork, snapshot and restore; the next airlockd reconciles: nothing is orphaned or
// half-made in libvirt, on disk or in the store, and what had really happened is finished.
#include "daemonharness.h"
#include "libvirtview.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

class TestEngineCrash : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void createInterrupted_data();
    void createInterrupted();
    void forkInterrupted();
    void snapshotInterruptedIsFinished();
    void restoreInterruptedIsFinished();
    void cleanupTestCase();

private:
    void crashDuring(const QString &step, const QStringList &command);
    void restart();
    void expectNothingOf(const QString &name);
    QByteArray run(const QString &script);
    DaemonHarness *m_daemon = nullptr;
    QString m_box;
    QString db() const { return DaemonHarness::sharedDataDir() + QStringLiteral("/airlock.db"); }
};

void TestEngineCrash::restart()
{
    delete m_daemon;
    m_daemon = new DaemonHarness;
    QString error;
    QVERIFY2(m_daemon->start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
}

void TestEngineCrash::crashDuring(const QString &step, const QStringList &command)
{
    delete m_daemon;
    m_daemon = new DaemonHarness;
    QString error;
    QVERIFY2(m_daemon->start(DaemonHarness::sharedDataDir(), &error, {}, {QStringLiteral("AIRLOCK_TEST_CRASH_AT=") + step}),
             qPrintable(error));
    const CtlResult r = m_daemon->ctl(command);
    QCOMPARE(r.exitCode, 1); // the daemon went away mid-call
    QVERIFY(m_daemon->waitForExit(10000));
    QVERIFY2(!m_daemon->running(), "airlockd did not die at the crash point");
    restart(); // reconcile runs here
}

void TestEngineCrash::expectNothingOf(const QString &name)
{
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + name);
    QVERIFY2(view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty(),
             qPrintable((view.domains + view.networks + view.volumes).join(QLatin1Char(','))));
    QCOMPARE(storeRows(db(), QStringLiteral("sandboxes"), QStringLiteral("name"), name), 0);
    QCOMPARE(storeRows(db(), QStringLiteral("operations"), QStringLiteral("subject"), name), 0);
}

QByteArray TestEngineCrash::run(const QString &script)
{
    const CtlResult r = m_daemon->ctl({QStringLiteral("exec"), m_box, QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
    return QByteArray::fromBase64(r.json().toObject().value(QLatin1String("stdout_b64")).toString().toLatin1());
}

void TestEngineCrash::initTestCase()
{
    restart();
    m_box = uniqueName(QStringLiteral("crash"));
    const CtlResult created = m_daemon->ctl({QStringLiteral("create"), m_box, QStringLiteral("--start")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
}

void TestEngineCrash::createInterrupted_data()
{
    QTest::addColumn<QString>("step");
    QTest::newRow("after the network") << QStringLiteral("create:network");
    QTest::newRow("after the domain") << QStringLiteral("create:domain");
}

void TestEngineCrash::createInterrupted()
{
    QFETCH(QString, step);
    const QString name = uniqueName(QStringLiteral("half"));
    crashDuring(step, {QStringLiteral("create"), name});
    expectNothingOf(name);
    // The name is free again.
    QCOMPARE(m_daemon->ctl({QStringLiteral("create"), name}).exitCode, 0);
    QCOMPARE(m_daemon->ctl({QStringLiteral("rm"), name}).exitCode, 0);
    expectNothingOf(name);
}

void TestEngineCrash::forkInterrupted()
{
    run(QStringLiteral("echo one > /root/note; sync"));
    const CtlResult snap = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box});
    QVERIFY2(snap.exitCode == 0, snap.err.constData());
    const QString id = QString::number(snap.json().toObject().value(QLatin1String("id")).toInteger());
    const QString name = uniqueName(QStringLiteral("halffork"));
    crashDuring(QStringLiteral("create:domain"), {QStringLiteral("fork"), m_box, id, name});
    expectNothingOf(name);
    QCOMPARE(run(QStringLiteral("cat /root/note")), QByteArray("one\n")); // the original runs on
}

void TestEngineCrash::snapshotInterruptedIsFinished()
{
    const int before = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray().size();
    run(QStringLiteral("echo two > /root/note; sync"));
    // The domain already writes into the new overlay when airlockd dies: reconcile keeps it.
    crashDuring(QStringLiteral("snapshot:switched"), {QStringLiteral("snapshot"), QStringLiteral("create"), m_box});
    const QJsonArray after = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray();
    QCOMPARE(after.size(), before + 1);
    QVERIFY(after.last().toObject().value(QLatin1String("current")).toBool());
    QCOMPARE(storeRows(db(), QStringLiteral("operations"), QStringLiteral("subject"), m_box), 0);
    run(QStringLiteral("echo three > /root/note; sync"));
    QCOMPARE(run(QStringLiteral("cat /root/note")), QByteArray("three\n"));
}

void TestEngineCrash::restoreInterruptedIsFinished()
{
    const QJsonArray snaps = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray();
    const QString id = QString::number(snaps.last().toObject().value(QLatin1String("id")).toInteger());
    crashDuring(QStringLiteral("restore:switched"), {QStringLiteral("snapshot"), QStringLiteral("restore"), m_box, id});
    QCOMPARE(storeRows(db(), QStringLiteral("operations"), QStringLiteral("subject"), m_box), 0);
    const CtlResult started = m_daemon->ctl({QStringLiteral("start"), m_box});
    QVERIFY2(started.exitCode == 0, started.err.constData());
    QCOMPARE(run(QStringLiteral("cat /root/note")), QByteArray("two\n"));
    const QJsonArray after = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray();
    QVERIFY(after.last().toObject().value(QLatin1String("current")).toBool());
}

void TestEngineCrash::cleanupTestCase()
{
    if (!m_daemon)
        return;
    m_daemon->ctl({QStringLiteral("kill"), m_box});
    QCOMPARE(m_daemon->ctl({QStringLiteral("rm"), m_box}).exitCode, 0);
    expectNothingOf(m_box);
    delete m_daemon;
    m_daemon = nullptr;
}

QTEST_GUILESS_MAIN(TestEngineCrash)
#include "test_engine_crash.moc"
