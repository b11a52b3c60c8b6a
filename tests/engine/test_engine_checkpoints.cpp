// Checkpoints as a user relies on them: a process counts in the guest, a memory snapshot is
// taken, the process is killed and a file written, the checkpoint is restored: the same
// process counts on from where it was, the file is gone and the guest's clock is the host's.
// A stopped sandbox is refused with what to do, and removing the checkpoint deletes its
// memory file. An airlockd killed in the middle of a checkpoint finishes it at its next start.
// A schedule takes checkpoints on its own while the sandbox runs and keeps only the latest,
// never one a person labelled.
#include "daemonharness.h"
#include "libvirtview.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QSet>
#include <QTest>
#include <sys/stat.h>

class TestEngineCheckpoints : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void restoreResumesTheCountingProcess();
    void aLiveForkCountsOnAtItsOwnAddress();
    void aLiveForkInterruptedIsStopped();
    void checkpointInterruptedIsFinished();
    void memoryOfAStoppedSandboxIsRefused();
    void removingTheCheckpointDeletesItsMemoryFile();
    void automaticCheckpointsKeepTheLatest();
    void scheduleIsCheckedAndGivenAtCreate();
    void cleanupTestCase();

private:
    QByteArray sh(const QString &script, const QString &sandbox = {});
    qint64 count(const QString &sandbox = {}); // the guest's /tmp/n, -1 when unreadable
    QStringList memoryFiles() const;
    DaemonHarness m_daemon;
    QString m_box;
    QString m_ip; // the sandbox's address
    QString m_fork; // a live fork while it lives
    qint64 m_checkpoint = 0;
    qint64 m_atCheckpoint = 0; // the count when the checkpoint was taken (at least)
    QByteArray m_pid; // the counting process
};

void TestEngineCheckpoints::initTestCase()
{
    QString error;
    QVERIFY2(m_daemon.startWithTinyImage(&error), qPrintable(error));
    m_box = uniqueName(QStringLiteral("ckpt"));
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), m_box, QStringLiteral("--start")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
    m_ip = created.json().toObject().value(QLatin1String("ip")).toString();
}

QByteArray TestEngineCheckpoints::sh(const QString &script, const QString &sandbox)
{
    const CtlResult r = m_daemon.guestSh(sandbox.isEmpty() ? m_box : sandbox, script);
    if (r.exitCode != 0)
        qWarning() << "exec failed:" << r.err;
    return r.out.trimmed(); // guestSh prints the guest's own output
}

qint64 TestEngineCheckpoints::count(const QString &sandbox)
{
    bool okNumber = false;
    const qint64 n = sh(QStringLiteral("cat /tmp/n"), sandbox).toLongLong(&okNumber);
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
    m_pid = pid;
    QTRY_VERIFY_WITH_TIMEOUT(count() >= 3, 60000);

    const qint64 before = count();
    m_atCheckpoint = before;
    QElapsedTimer saving;
    saving.start();
    const CtlResult snap = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box, QStringLiteral("--memory"),
                                         QStringLiteral("--label"), QStringLiteral("counting")});
    QVERIFY2(snap.exitCode == 0, snap.err.constData());
    const QJsonObject s = snap.json().toObject();
    m_checkpoint = s.value(QLatin1String("id")).toInteger();
    QVERIFY(m_checkpoint > 0);
    QCOMPARE(s.value(QLatin1String("memory")).toBool(), true);
    QVERIFY(s.value(QLatin1String("memory_bytes")).toInteger() > 0);
    qInfo() << "checkpoint of" << s.value(QLatin1String("memory_bytes")).toInteger() << "bytes in" << saving.elapsed() << "ms";
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

// A fork of the checkpoint, started: the same process counts on in the copy from the
// checkpoint's count, while the origin counts on too; the copy has its own MAC, address and
// name, its connections are its own egress attempts, and the origin is out of its reach.
void TestEngineCheckpoints::aLiveForkCountsOnAtItsOwnAddress()
{
    QVERIFY(m_checkpoint > 0 && !m_pid.isEmpty());
    const QString pid = QString::fromLatin1(m_pid);
    // The origin listens; whatever reaches it lands in /tmp/got.
    sh(QStringLiteral("(nc -l -p 8080 > /tmp/got 2>&1 &) ; echo listening"));
    const QByteArray originMac = sh(QStringLiteral("cat /sys/class/net/eth0/address"));
    // The origin counts well past the checkpoint (a restore above took it back there).
    QTRY_VERIFY_WITH_TIMEOUT(count() >= m_atCheckpoint + 20, 90000);
    const qint64 originCount = count();

    m_fork = uniqueName(QStringLiteral("ckfork"));
    const QString &fork = m_fork;
    QElapsedTimer forking;
    forking.start();
    const CtlResult forked = m_daemon.ctl({QStringLiteral("fork"), m_box, QString::number(m_checkpoint), fork, QStringLiteral("--start")});
    QVERIFY2(forked.exitCode == 0, forked.err.constData());
    qInfo() << "live fork running in" << forking.elapsed() << "ms";
    const QJsonObject row = forked.json().toObject();
    QCOMPARE(row.value(QLatin1String("state")).toString(), QStringLiteral("running"));
    const QString forkIp = row.value(QLatin1String("ip")).toString();
    QVERIFY2(!forkIp.isEmpty() && forkIp != m_ip, qPrintable(forkIp));

    // Not a boot: the checkpoint's process, counting on from where it was then.
    QCOMPARE(sh(QStringLiteral("kill -0 %1 2>/dev/null && echo alive || echo dead").arg(pid), fork), QByteArray("alive"));
    const qint64 resumed = count(fork);
    QVERIFY2(resumed >= m_atCheckpoint && resumed < originCount,
             qPrintable(QStringLiteral("fork counts %1; %2 at the checkpoint, the origin at %3").arg(resumed).arg(m_atCheckpoint).arg(originCount)));
    QTRY_VERIFY_WITH_TIMEOUT(count(fork) > resumed, 30000);
    QVERIFY(count() >= originCount); // the origin runs on

    // Its own MAC, address, route and name.
    QVERIFY(sh(QStringLiteral("cat /sys/class/net/eth0/address"), fork) != originMac);
    const QByteArray addresses = sh(QStringLiteral("ip -4 -o addr show dev eth0"), fork);
    QVERIFY2(addresses.contains(QByteArray(' ' + forkIp.toLatin1() + '/')) && !addresses.contains(QByteArray(' ' + m_ip.toLatin1() + '/')), addresses.constData());
    QCOMPARE(sh(QStringLiteral("hostname"), fork), fork.toLatin1());

    // Its attempt on the origin is its own egress attempt (its guard took the new MAC and
    // address), decided by the broker, and never reaches the origin.
    sh(QStringLiteral("curl -s -m 5 http://%1:8080/ >/dev/null 2>&1; echo tried").arg(m_ip), fork);
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const QJsonArray attempts = m_daemon.ctl({QStringLiteral("egress"), QStringLiteral("ls"), fork}).json().toArray();
            for (const QJsonValue &a : attempts)
                if (a.toObject().value(QLatin1String("ip")).toString() == m_ip && a.toObject().value(QLatin1String("port")).toInt() == 8080)
                    return a.toObject().value(QLatin1String("decision")).toString() != QLatin1String("allowed");
            return false;
        }(),
        30000);
    QCOMPARE(sh(QStringLiteral("cat /tmp/got; echo end")), QByteArray("end"));
    const QStringList resumeCopies =
        QDir(DaemonHarness::sharedDataDir() + QStringLiteral("/checkpoints")).entryList({QStringLiteral("*.resume")}, QDir::Files);
    QCOMPARE(resumeCopies, QStringList());
    QVERIFY(m_daemon.killAndRemove(fork));
    m_fork.clear();
}

// airlockd dies once the fork's guest is resumed, before it took its own address: the next
// start stops it (with its origin's address it reached nothing, and nothing would move it
// now) and removes the copy of the memory file; a start then boots it as itself.
void TestEngineCheckpoints::aLiveForkInterruptedIsStopped()
{
    QVERIFY(m_checkpoint > 0);
    m_daemon.stop();
    QString error;
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error, {}, {QStringLiteral("AIRLOCK_TEST_CRASH_AT=fork:resumed")}),
             qPrintable(error));
    m_fork = uniqueName(QStringLiteral("ckcut"));
    const CtlResult crashed = m_daemon.ctl({QStringLiteral("fork"), m_box, QString::number(m_checkpoint), m_fork, QStringLiteral("--start")});
    QVERIFY2(crashed.exitCode == 1, crashed.err.constData()); // the daemon went away mid-call
    QVERIFY(m_daemon.waitForExit(10000));
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error)); // reconcile runs here

    const QJsonArray rows = m_daemon.ctl({QStringLiteral("ls")}).json().toArray();
    QString state;
    for (const QJsonValue &r : rows)
        if (r.toObject().value(QLatin1String("name")).toString() == m_fork)
            state = r.toObject().value(QLatin1String("state")).toString();
    QCOMPARE(state, QStringLiteral("stopped"));
    QCOMPARE(QDir(DaemonHarness::sharedDataDir() + QStringLiteral("/checkpoints")).entryList({QStringLiteral("*.resume")}, QDir::Files),
             QStringList());
    const CtlResult started = m_daemon.ctl({QStringLiteral("start"), m_fork});
    QVERIFY2(started.exitCode == 0, started.err.constData());
    QCOMPARE(sh(QStringLiteral("hostname"), m_fork), m_fork.toLatin1());
    QVERIFY(m_daemon.killAndRemove(m_fork));
    m_fork.clear();
}

// airlockd dies once libvirt has saved the memory and switched the disk: the next start
// records the checkpoint with its memory, and it restores like any other.
void TestEngineCheckpoints::checkpointInterruptedIsFinished()
{
    QVERIFY(!m_pid.isEmpty());
    m_daemon.stop();
    QString error;
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error, {}, {QStringLiteral("AIRLOCK_TEST_CRASH_AT=snapshot:switched")}),
             qPrintable(error));
    const CtlResult crashed = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box, QStringLiteral("--memory")});
    QVERIFY2(crashed.exitCode == 1, crashed.err.constData()); // the daemon went away mid-call
    QVERIFY(m_daemon.waitForExit(10000));
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error)); // reconcile runs here

    const QJsonArray ls = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray();
    QCOMPARE(ls.size(), 2);
    const QJsonObject finished = ls.last().toObject();
    QCOMPARE(finished.value(QLatin1String("memory")).toBool(), true);
    QVERIFY(finished.value(QLatin1String("memory_bytes")).toInteger() > 0);
    QCOMPARE(memoryFiles().size(), 2);

    sh(QStringLiteral("kill %1").arg(QString::fromLatin1(m_pid)));
    const CtlResult restore = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("restore"), m_box,
                                            QString::number(finished.value(QLatin1String("id")).toInteger())});
    QVERIFY2(restore.exitCode == 0, restore.err.constData());
    QCOMPARE(sh(QStringLiteral("kill -0 %1 2>/dev/null && echo alive || echo dead").arg(QString::fromLatin1(m_pid))), QByteArray("alive"));
}

void TestEngineCheckpoints::memoryOfAStoppedSandboxIsRefused()
{
    QCOMPARE(m_daemon.ctl({QStringLiteral("stop"), m_box}).exitCode, 0);
    const CtlResult snap = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box, QStringLiteral("--memory")});
    QCOMPARE(snap.exitCode, 1);
    QVERIFY2(snap.err.contains("start it, or take a disk snapshot"), snap.err.constData());
    QCOMPARE(m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray().size(), 2);
    QCOMPARE(memoryFiles().size(), 2);
}

void TestEngineCheckpoints::removingTheCheckpointDeletesItsMemoryFile()
{
    QVERIFY(m_checkpoint > 0);
    // The first one lies below the second: removing it merges its layer, and its memory goes.
    const CtlResult rm = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("rm"), m_box, QString::number(m_checkpoint)});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    const QJsonArray left = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray();
    QCOMPARE(left.size(), 1);
    QCOMPARE(memoryFiles().size(), 1);
    const CtlResult last = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("rm"), m_box,
                                         QString::number(left.first().toObject().value(QLatin1String("id")).toInteger())});
    QVERIFY2(last.exitCode == 0, last.err.constData());
    QCOMPARE(memoryFiles(), QStringList());
}

void TestEngineCheckpoints::automaticCheckpointsKeepTheLatest()
{
    m_daemon.ctl({QStringLiteral("start"), m_box}); // stopped by the tests before (refused when it already runs)
    QCOMPARE(sh(QStringLiteral("echo up")), QByteArray("up"));
    sh(QStringLiteral("echo labelled > /root/state; sync"));
    const CtlResult labelled = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box, QStringLiteral("--memory"),
                                             QStringLiteral("--label"), QStringLiteral("keep-me")});
    QVERIFY2(labelled.exitCode == 0, labelled.err.constData());
    const qint64 keepMe = labelled.json().toObject().value(QLatin1String("id")).toInteger();
    sh(QStringLiteral("echo automatic > /root/state; sync"));

    const CtlResult set = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("auto"), m_box, QStringLiteral("--every"),
                                        QStringLiteral("10s"), QStringLiteral("--keep"), QStringLiteral("2")});
    QVERIFY2(set.exitCode == 0, set.err.constData());
    QCOMPARE(set.json().toObject().value(QLatin1String("every_s")).toInteger(), 10);
    QCOMPARE(set.json().toObject().value(QLatin1String("keep")).toInt(), 2);

    // Wait until the schedule has taken four: the first two must have been removed by then.
    QSet<qint64> seen;
    QList<qint64> automatic;
    bool labelledStayed = true;
    QElapsedTimer waited;
    waited.start();
    while (seen.size() < 4 && waited.elapsed() < 240000) {
        QTest::qWait(2000);
        automatic.clear();
        bool haveLabelled = false;
        for (const QJsonValue &v : m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray()) {
            const QJsonObject o = v.toObject();
            haveLabelled = haveLabelled || o.value(QLatin1String("id")).toInteger() == keepMe;
            if (o.value(QLatin1String("automatic")).toBool()) {
                QVERIFY(o.value(QLatin1String("memory")).toBool());
                automatic << o.value(QLatin1String("id")).toInteger();
                seen.insert(automatic.last());
            }
        }
        labelledStayed = labelledStayed && haveLabelled;
        QVERIFY2(automatic.size() <= 3, "retention let more than keep + the one being taken pile up"); // keep 2, plus one taken before the prune
    }
    qInfo() << "the schedule took" << seen.size() << "checkpoints in" << waited.elapsed() << "ms";
    QVERIFY2(seen.size() >= 4, m_daemon.log().right(3000).constData());
    QVERIFY(labelledStayed);
    QCOMPARE(m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("auto"), m_box, QStringLiteral("--off")}).exitCode, 0);
    QTest::qWait(1000); // one taken as --off arrived is still pruned to `keep`
    automatic.clear();
    for (const QJsonValue &v : m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray())
        if (v.toObject().value(QLatin1String("automatic")).toBool())
            automatic << v.toObject().value(QLatin1String("id")).toInteger();
    QCOMPARE(automatic.size(), 2);
    QCOMPARE(memoryFiles().size(), 3); // the labelled one's and the two kept
    const CtlResult off = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("auto"), m_box});
    QCOMPARE(off.json().toObject().value(QLatin1String("every_s")).toInteger(), 0);

    // The newest automatic checkpoint resumes; the labelled one still holds its own disk.
    QCOMPARE(m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("restore"), m_box, QString::number(automatic.last())}).exitCode, 0);
    QCOMPARE(sh(QStringLiteral("cat /root/state")), QByteArray("automatic"));
    QCOMPARE(m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("restore"), m_box, QString::number(keepMe)}).exitCode, 0);
    QCOMPARE(sh(QStringLiteral("cat /root/state")), QByteArray("labelled"));
}

void TestEngineCheckpoints::scheduleIsCheckedAndGivenAtCreate()
{
    const CtlResult tooOften = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("auto"), m_box, QStringLiteral("--every"), QStringLiteral("5s")});
    QVERIFY(tooOften.exitCode != 0);
    QVERIFY2(tooOften.err.contains("out of range") && tooOften.err.contains("10 s"), tooOften.err.constData());
    const CtlResult keepAlone = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("auto"), m_box, QStringLiteral("--keep"), QStringLiteral("3")});
    QVERIFY(keepAlone.exitCode != 0);
    QVERIFY2(keepAlone.err.contains("give --every too"), keepAlone.err.constData());

    const QString other = uniqueName(QStringLiteral("ckauto"));
    const CtlResult made = m_daemon.ctl({QStringLiteral("create"), other, QStringLiteral("--checkpoint-every"), QStringLiteral("10m"),
                                         QStringLiteral("--keep"), QStringLiteral("3")});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    const QJsonObject schedule = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("auto"), other}).json().toObject();
    QCOMPARE(schedule.value(QLatin1String("every_s")).toInteger(), 600);
    QCOMPARE(schedule.value(QLatin1String("keep")).toInt(), 3);
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), other}).exitCode, 0);

    const QString ephemeral = uniqueName(QStringLiteral("ckeph"));
    const CtlResult refused = m_daemon.ctl({QStringLiteral("create"), ephemeral, QStringLiteral("--ephemeral"),
                                            QStringLiteral("--checkpoint-every"), QStringLiteral("10m")});
    QVERIFY(refused.exitCode != 0);
    QVERIFY2(refused.err.contains("ephemeral sandbox keeps no checkpoints"), refused.err.constData());
    QCOMPARE(m_daemon.ctl({QStringLiteral("ls")}).out.contains(ephemeral.toUtf8()), false);
}

void TestEngineCheckpoints::cleanupTestCase()
{
    if (!m_fork.isEmpty())
        m_daemon.killAndRemove(m_fork);
    QVERIFY(m_daemon.killAndRemove(m_box));
    QCOMPARE(memoryFiles(), QStringList());
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + m_box);
    QVERIFY2(view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty(),
             qPrintable((view.domains + view.networks + view.volumes).join(QLatin1Char(','))));
}

QTEST_GUILESS_MAIN(TestEngineCheckpoints)
#include "test_engine_checkpoints.moc"
