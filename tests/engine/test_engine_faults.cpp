// Faults from outside Airlock, with real VMs: a base image damaged or deleted behind Airlock's
// back, a guest whose agent never comes up, and a disk that fills inside the guest.
#include "daemonharness.h"
#include "libvirtview.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>
#include <QThread>
#include <sys/stat.h>

namespace {

QString rootVolumeOf(const QString &image)
{
    QString volume;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("faults-peek"));
        db.setDatabaseName(DaemonHarness::sharedDataDir() + QStringLiteral("/airlock.db"));
        if (db.open()) {
            QSqlQuery q(db);
            q.prepare(QStringLiteral("SELECT rootfs FROM images WHERE name = ?"));
            q.addBindValue(image);
            if (q.exec() && q.next())
                volume = q.value(0).toString();
        }
    }
    QSqlDatabase::removeDatabase(QStringLiteral("faults-peek"));
    return volume;
}

} // namespace

class TestEngineFaults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void damagedOrDeletedImageIsRefusedWithRebuildHint();
    void guestWhoseAgentNeverAnswersTimesOut();
    void fullGuestDiskIsReportedAndHostUnaffected();
    void cleanupTestCase();

private:
    QJsonObject row(const QString &name) const;
    void expectNothingOf(const QString &name);
    DaemonHarness m_daemon;
    QStringList m_made; // sandboxes to remove if a test fails half-way
    QString m_brokenImage;
};

void TestEngineFaults::initTestCase()
{
    QString error;
    QVERIFY2(m_daemon.startWithTinyImage(&error), qPrintable(error));
}

QJsonObject TestEngineFaults::row(const QString &name) const
{
    for (const QJsonValue &v : m_daemon.ctl({QStringLiteral("ls")}).json().toArray())
        if (v.toObject().value(QLatin1String("name")).toString() == name)
            return v.toObject();
    return {};
}

void TestEngineFaults::expectNothingOf(const QString &name)
{
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + name);
    QVERIFY2(view.error.isEmpty(), qPrintable(view.error));
    QVERIFY2(view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty(),
             qPrintable((view.domains + view.networks + view.volumes).join(QLatin1Char(' '))));
    QCOMPARE(storeRows(DaemonHarness::sharedDataDir() + QStringLiteral("/airlock.db"), QStringLiteral("sandboxes"),
                       QStringLiteral("name"), name), 0);
}

void TestEngineFaults::damagedOrDeletedImageIsRefusedWithRebuildHint()
{
    // Its own image: the shared tiny one stays intact for the other tests.
    m_brokenImage = uniqueName(QStringLiteral("broken"));
    const CtlResult built = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("tiny"),
                                          QStringLiteral("--name"), m_brokenImage}, 600000);
    QVERIFY2(built.exitCode == 0, built.err.constData());
    const QString existing = uniqueName(QStringLiteral("onbroken"));
    const QString fresh = uniqueName(QStringLiteral("newbroken"));
    QCOMPARE(m_daemon.ctl({QStringLiteral("create"), existing, QStringLiteral("--image"), m_brokenImage}).exitCode, 0);
    m_made << existing;

    const QString root = airlockVolumePath(DaemonHarness::libvirtUri(), rootVolumeOf(m_brokenImage));
    QVERIFY2(!root.isEmpty() && QFile::exists(root), qPrintable(root));
    {
        // Garbage over the start of the root disk, as a bad copy or a stray dd would leave it.
        QFile f(root);
        QVERIFY2(f.open(QIODevice::ReadWrite), qPrintable(f.errorString()));
        QByteArray garbage(4 << 20, Qt::Uninitialized);
        QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(garbage.data()), garbage.size() / 4);
        QCOMPARE(f.write(garbage), qint64(garbage.size()));
    }
    const QByteArray rebuildHint = QByteArray("airlockctl image build tiny --name ") + m_brokenImage.toUtf8();
    for (int round = 0; round < 2; ++round) {
        const CtlResult create = m_daemon.ctl({QStringLiteral("create"), fresh, QStringLiteral("--image"), m_brokenImage,
                                               QStringLiteral("--start")});
        QCOMPARE(create.exitCode, 1);
        QVERIFY2(create.err.contains("is damaged") && create.err.contains("rebuild the image") &&
                     create.err.contains(rebuildHint),
                 create.err.constData());
        QVERIFY2(create.err.contains(round == 0 ? "no ext4 filesystem" : "is missing"), create.err.constData());
        expectNothingOf(fresh);

        const CtlResult start = m_daemon.ctl({QStringLiteral("start"), existing});
        QCOMPARE(start.exitCode, 1);
        QVERIFY2(start.err.contains(QByteArray(QByteArray("cannot start sandbox ") + existing.toUtf8())) && start.err.contains("rebuild the image"),
                 start.err.constData());
        QCOMPARE(row(existing).value(QLatin1String("state")).toString(), QStringLiteral("stopped"));

        // The daemon keeps serving.
        const CtlResult status = m_daemon.ctl({QStringLiteral("status")});
        QVERIFY2(status.exitCode == 0, status.err.constData());
        if (round == 0) // now the file goes altogether
            QVERIFY(QFile::remove(root));
    }
    // The way out the error names works: remove the sandboxes, then the image.
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), existing}).exitCode, 0);
    m_made.removeAll(existing);
    expectNothingOf(existing);
    const CtlResult removed = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("rm"), m_brokenImage});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
    QVERIFY(!m_daemon.ctl({QStringLiteral("image"), QStringLiteral("ls")}).out.contains(m_brokenImage.toUtf8()));
    m_brokenImage.clear();
}

void TestEngineFaults::guestWhoseAgentNeverAnswersTimesOut()
{
    // A guest that boots its kernel but never brings its agent up: qemu-ga is gone from its disk.
    const QString name = uniqueName(QStringLiteral("noagent"));
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), name, QStringLiteral("--start")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
    m_made << name;
    const CtlResult broke = m_daemon.ctl({QStringLiteral("exec"), name, QStringLiteral("--"), QStringLiteral("/bin/sh"),
                                          QStringLiteral("-c"), QStringLiteral("mv /usr/sbin/qemu-ga /usr/sbin/qemu-ga.off && sync")});
    QVERIFY2(broke.exitCode == 0, broke.err.constData());
    QCOMPARE(m_daemon.ctl({QStringLiteral("kill"), name}).exitCode, 0);

    // start gives up after its boot timeout with a clear error, and the sandbox is stopped.
    const int timeoutS = 30;
    QProcess start;
    start.start(qEnvironmentVariable("AIRLOCKCTL_BIN"), {QStringLiteral("--socket"), m_daemon.socketPath(), QStringLiteral("start"),
                                                          name, QStringLiteral("--boot-timeout"), QString::number(timeoutS)});
    QElapsedTimer clock;
    clock.start();
    // Meanwhile the guest runs without an agent: exec says so at once instead of hanging.
    QDeadlineTimer running(20000);
    while (row(name).value(QLatin1String("state")).toString() != QLatin1String("running") && !running.hasExpired())
        QThread::msleep(200);
    QCOMPARE(row(name).value(QLatin1String("state")).toString(), QStringLiteral("running"));
    QElapsedTimer execClock;
    execClock.start();
    const CtlResult early = m_daemon.ctl({QStringLiteral("exec"), name, QStringLiteral("--"), QStringLiteral("true")}, 60000);
    QCOMPARE(early.exitCode, 1);
    QVERIFY2(early.err.contains("guest agent is not answering"), early.err.constData());
    QVERIFY2(execClock.elapsed() < 20000, "exec waited for an agent that is not there");

    QVERIFY(start.waitForFinished((timeoutS + 60) * 1000));
    const QByteArray err = start.readAllStandardError();
    QCOMPARE(start.exitCode(), 1);
    QVERIFY2(err.contains(QStringLiteral("the guest agent did not answer within %1 s").arg(timeoutS).toUtf8()) &&
                 err.contains("state: stopped"),
             err.constData());
    QVERIFY2(clock.elapsed() < (timeoutS + 45) * 1000, "start outlived its boot timeout by far");
    QCOMPARE(row(name).value(QLatin1String("state")).toString(), QStringLiteral("stopped"));
    const CtlResult stoppedExec = m_daemon.ctl({QStringLiteral("exec"), name, QStringLiteral("--"), QStringLiteral("true")});
    QCOMPARE(stoppedExec.exitCode, 1);
    QVERIFY2(stoppedExec.err.contains("is not running; start it first"), stoppedExec.err.constData());

    // A boot that is still waiting can be killed: start ends at once with a clear error.
    QProcess again;
    again.start(qEnvironmentVariable("AIRLOCKCTL_BIN"), {QStringLiteral("--socket"), m_daemon.socketPath(), QStringLiteral("start"),
                                                          name, QStringLiteral("--boot-timeout"), QStringLiteral("300")});
    running.setRemainingTime(20000);
    while (row(name).value(QLatin1String("state")).toString() != QLatin1String("running") && !running.hasExpired())
        QThread::msleep(200);
    const CtlResult killed = m_daemon.ctl({QStringLiteral("kill"), name});
    QVERIFY2(killed.exitCode == 0, killed.err.constData());
    QVERIFY(again.waitForFinished(30000));
    QCOMPARE(again.exitCode(), 1);
    QVERIFY2(again.readAllStandardError().contains("stopped while booting"), "a killed boot should say it stopped");

    const CtlResult removed = m_daemon.ctl({QStringLiteral("rm"), name});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
    m_made.removeAll(name);
    expectNothingOf(name);
    QVERIFY(m_daemon.running());
}

void TestEngineFaults::fullGuestDiskIsReportedAndHostUnaffected()
{
    const QString name = uniqueName(QStringLiteral("fill"));
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), name, QStringLiteral("--disk"), QStringLiteral("1"),
                                            QStringLiteral("--start")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
    m_made << name;
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + name);
    QCOMPARE(view.volumes.size(), 1);
    const QString overlay = airlockVolumePath(DaemonHarness::libvirtUri(), view.volumes.first());
    QVERIFY(!overlay.isEmpty());

    const CtlResult fill = m_daemon.ctl({QStringLiteral("exec"), name, QStringLiteral("--timeout"), QStringLiteral("400"),
                                         QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                         QStringLiteral("dd if=/dev/zero of=/fill bs=1M; rc=$?; sync; exit $rc")},
                                        450000);
    QVERIFY2(fill.exitCode != 0, "dd should have run out of space");
    const QByteArray fillErr = QByteArray::fromBase64(fill.json().toObject().value(QLatin1String("stderr_b64")).toString().toLatin1());
    QVERIFY2(fillErr.contains("No space left on device"), fill.out.constData());

    // The host only ever holds the virtual size (plus qcow2's own tables).
    struct stat st {};
    QCOMPARE(::stat(overlay.toLocal8Bit().constData(), &st), 0);
    const qint64 limit = (qint64(1) << 30) + (qint64(64) << 20);
    QVERIFY2(qint64(st.st_blocks) * 512 <= limit && qint64(st.st_size) <= limit,
             qPrintable(QStringLiteral("overlay holds %1 bytes, size %2").arg(qint64(st.st_blocks) * 512).arg(qint64(st.st_size))));

    // The sandbox reports it: ls shows the fill level and the flag.
    QDeadlineTimer deadline(90000);
    QJsonObject o;
    while (!deadline.hasExpired()) {
        o = row(name);
        if (o.value(QLatin1String("disk_full")).toBool())
            break;
        QThread::msleep(1000);
    }
    QVERIFY2(o.value(QLatin1String("disk_full")).toBool(), QJsonDocument(o).toJson().constData());
    QVERIFY(o.value(QLatin1String("disk_total_bytes")).toInteger() > (qint64(512) << 20));
    QVERIFY(o.value(QLatin1String("disk_used_bytes")).toInteger() > (qint64(512) << 20));

    // The guest still works, and freeing space clears the flag.
    const CtlResult freed = m_daemon.ctl({QStringLiteral("exec"), name, QStringLiteral("--"), QStringLiteral("/bin/sh"),
                                          QStringLiteral("-c"), QStringLiteral("rm /fill && sync && echo freed")});
    QVERIFY2(freed.exitCode == 0, freed.err.constData());
    QCOMPARE(QByteArray::fromBase64(freed.json().toObject().value(QLatin1String("stdout_b64")).toString().toLatin1()), QByteArray("freed\n"));
    deadline.setRemainingTime(90000);
    while (!deadline.hasExpired() && row(name).value(QLatin1String("disk_full")).toBool())
        QThread::msleep(1000);
    QVERIFY(!row(name).value(QLatin1String("disk_full")).toBool());

    QCOMPARE(m_daemon.ctl({QStringLiteral("kill"), name}).exitCode, 0);
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), name}).exitCode, 0);
    m_made.removeAll(name);
    expectNothingOf(name);
}

void TestEngineFaults::cleanupTestCase()
{
    for (const QString &name : m_made) {
        m_daemon.ctl({QStringLiteral("kill"), name});
        m_daemon.ctl({QStringLiteral("rm"), name});
    }
    if (!m_brokenImage.isEmpty())
        m_daemon.ctl({QStringLiteral("image"), QStringLiteral("rm"), m_brokenImage});
}

QTEST_GUILESS_MAIN(TestEngineFaults)
#include "test_engine_faults.moc"
