// Checkpoints as a user relies on them: a process counts in the guest, a memory snapshot is
// taken, the process is killed and a file written, the checkpoint is restored: the same
// process counts on from where it was, the file is gone and the guest's clock is the host's.
// A stopped sandbox is refused with what to do, and removing the checkpoint deletes its
// memory file.
#include "daemonharness.h"
#include "libvirtview.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTest>
#include <sys/stat.h>

class TestEngineCheckpoints : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void restoreResumesTheCountingProcess();
    void memoryOfAStoppedSandboxIsRefused();
    void removingTheCheckpointDeletesItsMemoryFile();
    void cleanupTestCase();

private:
    QByteArray sh(const QString &script);
    qint64 count(); // the guest's /tmp/n, -1 when unreadable
    QStringList memoryFiles() const;
    DaemonHarness m_daemon;
    QString m_box;
    qint64 m_checkpoint = 0;
};

void TestEngineCheckpoints::initTestCase()
{
    QString error;
    QVERIFY2(m_daemon.startWithTinyImage(&error), qPrintable(error));
    m_box = uniqueName(QStringLiteral("ckpt"));
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), m_box, QStringLiteral("--start")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
}

QByteArray TestEngineCheckpoints::sh(const QString &script)
{
    const CtlResult r = m_daemon.guestSh(m_box, script);
    if (r.exitCode != 0)
        qWarning() << "exec failed:" << r.err;
    return r.out.trimmed(); // guestSh prints the guest's own output
}

qint64 TestEngineCheckpoints::count()
{
    bool okNumber = false;
    const qint64 n = sh(QStringLiteral("cat /tmp/n")).toLongLong(&okNumber);
    return okNumber ? n : -1;
}

QStringList TestEngineCheckpoints::memoryFiles() const
{
    return QDir(DaemonHarness::sharedDataDir() + QStringLiteral("/checkpoints"))
        .entryList({QStringLiteral("*-%1-*.mem").arg(m_box)}, QDir::Files);
}

void TestEngineCheckpoints::restoreResumesTheCountingProcess()
{
    // A process that lives only in the guest's memory: its count, its PID.
    const QByteArray pid = sh(QStringLiteral("sh -c 'i=0; while :; do i=$((i+1)); echo $i > /tmp/n; sleep 1; done' "
                                             "</dev/null >/dev/null 2>&1 & echo $!"));
    QVERIFY2(pid.toLongLong() > 1, pid.constData());
    QTRY_VERIFY_WITH_TIMEOUT(count() >= 3, 60000);

    const qint64 before = count();
    const CtlResult snap = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box, QStringLiteral("--memory"),
                                         QStringLiteral("--label"), QStringLiteral("counting")});
    QVERIFY2(snap.exitCode == 0, snap.err.constData());
    const QJsonObject s = snap.json().toObject();
    m_checkpoint = s.value(QLatin1String("id")).toInteger();
    QVERIFY(m_checkpoint > 0);
    QCOMPARE(s.value(QLatin1String("memory")).toBool(), true);
    QVERIFY(s.value(QLatin1String("memory_bytes")).toInteger() > 0);
    const QStringList files = memoryFiles();
    QCOMPARE(files.size(), 1);
    struct stat st {};
    QCOMPARE(::stat(QFile::encodeName(DaemonHarness::sharedDataDir() + QStringLiteral("/checkpoints/") + files.first()).constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0600u); // the guest's whole RAM: nobody else reads it

    const QJsonArray ls = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray();
    QCOMPARE(ls.size(), 1);
    QCOMPARE(ls.first().toObject().value(QLatin1String("memory")).toBool(), true);
    QCOMPARE(ls.first().toObject().value(QLatin1String("memory_bytes")).toInteger(), s.value(QLatin1String("memory_bytes")).toInteger());

    // The guest goes on after the checkpoint; then the process dies and a file appears.
    const qint64 atSnapshot = count();
    QVERIFY2(atSnapshot >= before, qPrintable(QStringLiteral("%1 < %2").arg(atSnapshot).arg(before)));
    QTRY_VERIFY_WITH_TIMEOUT(count() >= atSnapshot + 15, 90000);
    sh(QStringLiteral("kill %1; echo later > /root/after; sync").arg(QString::fromLatin1(pid)));
    QCOMPARE(sh(QStringLiteral("kill -0 %1 2>/dev/null && echo alive || echo dead").arg(QString::fromLatin1(pid))), QByteArray("dead"));
    const qint64 killedAt = count();

    QElapsedTimer restoring;
    restoring.start();
    const CtlResult restore = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("restore"), m_box, QString::number(m_checkpoint)});
    QVERIFY2(restore.exitCode == 0, restore.err.constData());
    qInfo() << "restored in" << restoring.elapsed() << "ms";
    QCOMPARE(restore.json().toObject().value(QLatin1String("state")).toString(), QStringLiteral("running"));

    // Not a reboot: the same process, counting on from the checkpoint's count.
    QCOMPARE(sh(QStringLiteral("kill -0 %1 2>/dev/null && echo alive || echo dead").arg(QString::fromLatin1(pid))), QByteArray("alive"));
    const qint64 resumed = count();
    QVERIFY2(resumed >= before && resumed < killedAt,
             qPrintable(QStringLiteral("count %1 after the restore; %2 at the checkpoint, %3 when killed").arg(resumed).arg(before).arg(killedAt)));
    QTRY_VERIFY_WITH_TIMEOUT(count() > resumed, 30000);
    QCOMPARE(sh(QStringLiteral("test -e /root/after && echo there || echo gone")), QByteArray("gone"));

    // The checkpoint's clock was set to now, not left where the save stopped it.
    const qint64 guestNow = sh(QStringLiteral("date +%s")).toLongLong();
    const qint64 hostNow = QDateTime::currentSecsSinceEpoch();
    QVERIFY2(qAbs(guestNow - hostNow) <= 5, qPrintable(QStringLiteral("guest %1, host %2").arg(guestNow).arg(hostNow)));
}

void TestEngineCheckpoints::memoryOfAStoppedSandboxIsRefused()
{
    QCOMPARE(m_daemon.ctl({QStringLiteral("stop"), m_box}).exitCode, 0);
    const CtlResult snap = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box, QStringLiteral("--memory")});
    QCOMPARE(snap.exitCode, 1);
    QVERIFY2(snap.err.contains("start it, or take a disk snapshot"), snap.err.constData());
    QCOMPARE(m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray().size(), 1);
    QCOMPARE(memoryFiles().size(), 1);
}

void TestEngineCheckpoints::removingTheCheckpointDeletesItsMemoryFile()
{
    QVERIFY(m_checkpoint > 0);
    const CtlResult rm = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("rm"), m_box, QString::number(m_checkpoint)});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    QCOMPARE(m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray().size(), 0);
    QCOMPARE(memoryFiles(), QStringList());
}

void TestEngineCheckpoints::cleanupTestCase()
{
    QVERIFY(m_daemon.killAndRemove(m_box));
    QCOMPARE(memoryFiles(), QStringList());
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + m_box);
    QVERIFY2(view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty(),
             qPrintable((view.domains + view.networks + view.volumes).join(QLatin1Char(','))));
}

QTEST_GUILESS_MAIN(TestEngineCheckpoints)
#include "test_engine_checkpoints.moc"
