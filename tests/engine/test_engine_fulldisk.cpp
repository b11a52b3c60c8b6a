// The host's disk fills up under a real airlockd: its data dir (store, event log) and its
// libvirt pool (images, overlays) live on a small ext4 of the test's own, loop-mounted in the
// test environment's private mount namespace, with a pool of their own (AIRLOCK_POOL_NAME).
// Filler files take the free space away at each step: an image build and a snapshot of a
// running sandbox. Each must fail with an error that names the full disk,
// leave nothing half-made, and the daemon must keep answering and enforcing; once the space
// is back, the same step works. A guest whose own writes fill the disk is paused by QEMU:
// airlockd says why and resumes it by itself once there is room. The egress event log on a full
// disk of its own (a small tmpfs) counts what it cannot store and writes again afterwards.
#include "../support/storerows.h"
#include "daemonharness.h"
#include "eventlog.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStorageInfo>
#include <QTest>
#include <QUuid>
#include <chrono>
#include <mutex>
#include <fcntl.h>
#include <libvirt/libvirt.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 kMiB = 1024 * 1024;
constexpr qint64 kDiskMiB = 1024; // sparse: only what is written takes room on the host

bool run(const QString &program, const QStringList &args, QString *error)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0)
        return true;
    *error = program + u' ' + args.join(u' ') + u": "_s + QString::fromUtf8(p.readAll());
    return false;
}

// The names of the volumes libvirt lists in `pool` (refreshed first); {"<error>"} when it cannot.
QStringList poolVolumes(const QString &poolName)
{
    virConnectPtr conn = virConnectOpen(DaemonHarness::libvirtUri().toUtf8().constData());
    virStoragePoolPtr pool = conn ? virStoragePoolLookupByName(conn, poolName.toUtf8().constData()) : nullptr;
    QStringList names;
    if (!pool)
        names << u"<no pool %1>"_s.arg(poolName);
    if (pool && virStoragePoolRefresh(pool, 0) == 0) {
        virStorageVolPtr *vols = nullptr;
        const int n = virStoragePoolListAllVolumes(pool, &vols, 0);
        for (int i = 0; i < n; ++i) {
            names << QString::fromUtf8(virStorageVolGetName(vols[i]));
            virStorageVolFree(vols[i]);
        }
        free(vols);
    }
    if (pool)
        virStoragePoolFree(pool);
    if (conn)
        virConnectClose(conn);
    return names;
}

void removePool(const QString &poolName)
{
    virConnectPtr conn = virConnectOpen(DaemonHarness::libvirtUri().toUtf8().constData());
    if (!conn)
        return;
    if (virStoragePoolPtr pool = virStoragePoolLookupByName(conn, poolName.toUtf8().constData())) {
        virStoragePoolDestroy(pool);
        virStoragePoolUndefine(pool);
        virStoragePoolFree(pool);
    }
    virConnectClose(conn);
}

// The mount namespace libvirtd lives in, when it is not ours: in-test-env.sh runs a test
// through `ip netns exec`, which gives it a mount namespace of its own, so a mount the test
// makes must be made in libvirtd's as well for libvirt (and QEMU) to see the same disk.
QString libvirtdMountNamespace()
{
    QFile pidFile(u"/run/libvirt/libvirtd.pid"_s);
    if (!pidFile.open(QIODevice::ReadOnly))
        return {};
    const QString ns = u"/proc/%1/ns/mnt"_s.arg(QString::fromLatin1(pidFile.readAll().trimmed()));
    const QString theirs = QFile::symLinkTarget(ns);
    return !theirs.isEmpty() && theirs != QFile::symLinkTarget(u"/proc/self/ns/mnt"_s) ? ns : QString();
}

QString sqliteScalar(const QString &dbPath, const QString &sql)
{
    const QString connection = QUuid::createUuid().toString();
    QString value = u"<cannot open %1>"_s.arg(dbPath);
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, connection);
        db.setDatabaseName(dbPath);
        db.setConnectOptions(u"QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"_s);
        if (db.open()) {
            QSqlQuery q(db);
            value = q.exec(sql) && q.next() ? q.value(0).toString() : u"<%1 failed>"_s.arg(sql);
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(connection);
    return value;
}

} // namespace

class TestEngineFullDisk : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void imageBuildOnAFullDiskLeavesNothing();
    void snapshotOnAFullDiskKeepsTheSandbox();
    void guestPausedByAFullDiskSaysWhy();
    void eventLogOnAFullDiskCountsAndResumes();
    void cleanupTestCase();

private:
    // Takes the free space of the small disk down to at most `leaveBytes`.
    void fill(qint64 leaveBytes);
    void unfill();
    qint64 available() const { return QStorageInfo(m_mount).bytesAvailable(); }
    QString dbPath() const { return m_mount + u"/data/airlock.db"_s; }
    // What must hold after every step: the store is sound and the daemon answers.
    void checkStoreAndStatus();
    QString sandboxState() const { return sandboxRow().value("state"_L1).toString(); }
    QJsonObject sandboxRow() const
    {
        for (const QJsonValue &v : m_daemon.ctl({u"ls"_s}).json().toArray())
            if (v.toObject().value("name"_L1).toString() == m_box)
                return v.toObject();
        return {};
    }

    QTemporaryDir m_tmp;
    QString m_image, m_mount, m_poolName, m_box;
    QString m_libvirtdNs; // libvirtd's mount namespace when it is not ours
    bool m_mounted = false;
    QString m_eventDisk; // the event log's tmpfs, when mounted
    int m_fillers = 0;
    DaemonHarness m_daemon;
};

void TestEngineFullDisk::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    QString error;
    m_image = m_tmp.filePath(u"disk.ext4"_s);
    // Under libvirt's images dir: QEMU (another user) must reach the pool, and a temp dir is 0700.
    m_mount = u"/var/lib/libvirt/images/airlock-fulldisk-%1"_s.arg(QCoreApplication::applicationPid());
    m_poolName = u"airlock-fulldisk-%1"_s.arg(QCoreApplication::applicationPid());
    QVERIFY2(run(u"truncate"_s, {u"-s"_s, u"%1M"_s.arg(kDiskMiB), m_image}, &error), qPrintable(error));
    // -m 0: root (airlockd) gets no reserved blocks beyond what the filler leaves.
    QVERIFY2(run(u"mkfs.ext4"_s, {u"-q"_s, u"-F"_s, u"-m"_s, u"0"_s, m_image}, &error), qPrintable(error));
    QVERIFY(QDir().mkpath(m_mount));
    QVERIFY2(run(u"mount"_s, {u"-o"_s, u"loop"_s, m_image, m_mount}, &error),
             qPrintable(error + u" (run the test through tests/support/in-test-env.sh, as root)"_s));
    m_mounted = true;
    m_libvirtdNs = libvirtdMountNamespace();
    if (!m_libvirtdNs.isEmpty()) {
        QProcess findmnt;
        findmnt.start(u"findmnt"_s, {u"-n"_s, u"-o"_s, u"SOURCE"_s, m_mount});
        QVERIFY(findmnt.waitForFinished(10000));
        const QString device = QString::fromLatin1(findmnt.readAllStandardOutput().trimmed());
        QVERIFY2(device.startsWith("/dev/loop"_L1), qPrintable(device));
        QVERIFY2(run(u"nsenter"_s, {u"--mount="_s + m_libvirtdNs, u"mount"_s, device, m_mount}, &error), qPrintable(error));
    }
    QFile::setPermissions(m_mount, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                                       QFileDevice::ReadGroup | QFileDevice::ExeGroup | QFileDevice::ReadOther |
                                       QFileDevice::ExeOther);
    QVERIFY2(m_daemon.start(m_mount + u"/data"_s, &error, {},
                            {u"AIRLOCK_POOL_DIR="_s + m_mount + u"/pool"_s, u"AIRLOCK_POOL_NAME="_s + m_poolName}),
             qPrintable(error));
    QCOMPARE(poolVolumes(m_poolName), QStringList());
    m_box = uniqueName(u"full"_s);
}

void TestEngineFullDisk::fill(qint64 leaveBytes)
{
    // fallocate takes the blocks at once; what is left after the big file (its extent tree
    // needs some) goes in small ones.
    for (qint64 chunk = available() - leaveBytes - 4 * kMiB; available() > leaveBytes; chunk = 64 * 1024) {
        const QString path = m_mount + u"/filler-%1"_s.arg(m_fillers++);
        const int fd = ::open(QFile::encodeName(path).constData(), O_CREAT | O_WRONLY, 0600);
        QVERIFY2(fd >= 0, qPrintable(path));
        const qint64 want = qMax<qint64>(4096, qMin(chunk, available() - leaveBytes));
        const int rc = ::posix_fallocate(fd, 0, off_t(want));
        ::close(fd);
        if (rc != 0)
            break; // full
    }
    QVERIFY2(available() <= leaveBytes + 64 * 1024, qPrintable(QString::number(available())));
}

void TestEngineFullDisk::unfill()
{
    for (int i = 0; i < m_fillers; ++i)
        QFile::remove(m_mount + u"/filler-%1"_s.arg(i));
    m_fillers = 0;
    ::sync();
}

void TestEngineFullDisk::checkStoreAndStatus()
{
    QCOMPARE(sqliteScalar(dbPath(), u"PRAGMA integrity_check"_s), u"ok"_s);
    const CtlResult status = m_daemon.ctl({u"status"_s}, 15000);
    QVERIFY2(status.exitCode == 0, status.err.constData());
    QVERIFY2(m_daemon.running(), m_daemon.log().constData());
}

// The recipe runs out of room while it copies the packages: the error says the disk is full
// and where; no scratch dir, volume, row or operation is left; with the space back it builds.
void TestEngineFullDisk::imageBuildOnAFullDiskLeavesNothing()
{
    fill(8 * kMiB);
    const CtlResult failed = m_daemon.ctl({u"image"_s, u"build"_s, u"tiny"_s}, 600000);
    QCOMPARE(failed.exitCode, 1);
    QVERIFY2(failed.err.contains("is full") && failed.err.contains(m_mount.toUtf8()) && failed.err.contains("free"),
             failed.err.constData());
    QVERIFY2(!failed.err.contains("Debian mirror"), failed.err.constData()); // not the network's fault
    QVERIFY2(!m_daemon.ctl({u"image"_s, u"ls"_s}).out.contains("\"tiny\""), "a half-built image is listed");
    QCOMPARE(poolVolumes(m_poolName), QStringList());
    QCOMPARE(QDir(m_mount).entryList({u"build-*"_s}, QDir::Dirs | QDir::Files), QStringList());
    QCOMPARE(sqliteScalar(dbPath(), u"SELECT count(*) FROM operations"_s), u"0"_s);
    QCOMPARE(sqliteScalar(dbPath(), u"SELECT count(*) FROM images"_s), u"0"_s);
    checkStoreAndStatus();

    unfill();
    const CtlResult built = m_daemon.ctl({u"image"_s, u"build"_s, u"tiny"_s}, 600000);
    QVERIFY2(built.exitCode == 0, built.err.constData());
    QCOMPARE(poolVolumes(m_poolName).size(), 3);
    checkStoreAndStatus();
}

// A running sandbox: the snapshot cannot get its overlay; the guest goes on with what it had,
// no layer, snapshot or volume is left over; with the space back the snapshot is taken.
void TestEngineFullDisk::snapshotOnAFullDiskKeepsTheSandbox()
{
    const CtlResult created = m_daemon.ctl({u"create"_s, m_box, u"--start"_s});
    QVERIFY2(created.exitCode == 0, created.err.constData());
    const CtlResult wrote = m_daemon.guestSh(m_box, u"echo before > /root/note; sync; cat /root/note"_s);
    QVERIFY2(wrote.out == "before\n", wrote.err.constData());
    const QStringList volumesBefore = poolVolumes(m_poolName);
    const QString layersBefore = sqliteScalar(dbPath(), u"SELECT count(*) FROM layers"_s);

    fill(0);
    const CtlResult failed = m_daemon.ctl({u"snapshot"_s, u"create"_s, m_box, u"--label"_s, u"full"_s});
    QCOMPARE(failed.exitCode, 1);
    QVERIFY2(failed.err.contains("is full") && failed.err.contains("free") && failed.err.contains(m_mount.toUtf8()),
             failed.err.constData());
    QCOMPARE(m_daemon.ctl({u"snapshot"_s, u"ls"_s, m_box}).json().toArray().size(), 0);
    QCOMPARE(poolVolumes(m_poolName), volumesBefore);
    QCOMPARE(sqliteScalar(dbPath(), u"SELECT count(*) FROM layers"_s), layersBefore);
    QCOMPARE(sqliteScalar(dbPath(), u"SELECT count(*) FROM operations"_s), u"0"_s);
    checkStoreAndStatus();

    // A guest write that finds no room pauses the guest (QEMU's werror=enospc): with the room
    // back it resumes where it was, with what it had.
    unfill();
    if (sandboxState() == "paused"_L1) {
        const CtlResult exec = m_daemon.guestSh(m_box, u"true"_s);
        QVERIFY2(exec.err.contains("is paused; resume it"), exec.err.constData());
        const CtlResult resumed = m_daemon.ctl({u"resume"_s, m_box});
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
    }
    const CtlResult read = m_daemon.guestSh(m_box, u"cat /root/note"_s);
    QVERIFY2(read.out == "before\n", read.err.constData());

    const CtlResult snap = m_daemon.ctl({u"snapshot"_s, u"create"_s, m_box, u"--label"_s, u"roomy"_s});
    QVERIFY2(snap.exitCode == 0, snap.err.constData());
    const CtlResult after = m_daemon.guestSh(m_box, u"echo after > /root/note; sync; cat /root/note"_s);
    QVERIFY2(after.out == "after\n", after.err.constData());
    checkStoreAndStatus();
}

// The guest writes until the host's disk has no room: QEMU pauses it (werror=enospc), and
// `ls` says why and what to do; resume is refused while the disk is full; once space is back
// airlockd resumes it by itself, and the guest goes on.
void TestEngineFullDisk::guestPausedByAFullDiskSaysWhy()
{
    QCOMPARE(sandboxState(), u"running"_s);
    QVERIFY(!sandboxRow().contains("paused_reason"_L1));
    // The writer waits while the disk is filled: an idle guest's own writes may get it paused
    // before any later command reaches its agent. The agent may be busy a moment after the
    // snapshot's thaw: it says "try again".
    const QString script = u"(sleep 15; dd if=/dev/zero of=/root/fill bs=1M count=256 oflag=direct) </dev/null >/dev/null 2>&1 & "
                           u"echo started"_s;
    CtlResult writer = m_daemon.guestSh(m_box, script);
    for (QElapsedTimer asking; writer.out != "started\n" && writer.err.contains("try again");) {
        if (!asking.isValid())
            asking.start();
        if (asking.elapsed() > 90000)
            break;
        QTest::qWait(2000);
        writer = m_daemon.guestSh(m_box, script);
    }
    QVERIFY2(writer.out == "started\n", writer.err.constData());
    fill(0);
    QElapsedTimer waited;
    waited.start();
    QJsonObject row = sandboxRow();
    while (row.value("state"_L1).toString() != "paused"_L1 && waited.elapsed() < 180000) {
        QTest::qWait(1000);
        row = sandboxRow();
    }
    qInfo("paused by QEMU after %lld ms: %s", waited.elapsed(), qPrintable(row.value("paused_reason"_L1).toString()));
    QCOMPARE(row.value("state"_L1).toString(), u"paused"_s);
    const QString why = row.value("paused_reason"_L1).toString();
    QVERIFY2(why.startsWith("paused: the host disk holding its overlay (pool "_L1 + m_poolName + u", "_s + m_mount) &&
                 why.contains(" is full; free space there"_L1) && why.endsWith(u"and it goes on by itself (or `airlockctl resume %1`)"_s.arg(m_box)),
             qPrintable(why));
    const CtlResult text = m_daemon.ctlText({u"ls"_s});
    QVERIFY2(text.out.contains((m_box + u": "_s + why).toUtf8()), text.out.constData());

    const CtlResult refused = m_daemon.ctl({u"resume"_s, m_box});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains(u"cannot resume sandbox %1 ("_s.arg(m_box).toUtf8()) &&
                 refused.err.contains("16 MiB needed") && refused.err.contains(why.toUtf8()),
             refused.err.constData());
    QCOMPARE(sandboxState(), u"paused"_s);
    checkStoreAndStatus();

    // With room again the daemon's disk watch (every 10 s) resumes the guest by itself.
    unfill();
    QElapsedTimer resuming;
    resuming.start();
    while (sandboxState() != "running"_L1 && resuming.elapsed() < 40000)
        QTest::qWait(500);
    qInfo("resumed by airlockd %lld ms after the disk had room", resuming.elapsed());
    QCOMPARE(sandboxState(), u"running"_s);
    QVERIFY2(m_daemon.log().contains("resumed: the host disk holding its overlay has room again"), m_daemon.log().constData());
    const CtlResult alive = m_daemon.guestSh(m_box, u"kill $(pidof dd) 2>/dev/null; rm -f /root/fill; cat /root/note"_s);
    QVERIFY2(alive.out == "after\n", alive.err.constData());
    QCOMPARE(sandboxState(), u"running"_s);
    QVERIFY(!sandboxRow().contains("paused_reason"_L1));
}

// The event log's disk of its own fills: recording never waits and every event still
// reaches the listener (the stream clients see) with the decision it was given; the loss is
// counted and explained without the host's paths; with room again the log writes on and
// records how many events it could not keep.
void TestEngineFullDisk::eventLogOnAFullDiskCountsAndResumes()
{
    using namespace airlock;
    m_eventDisk = m_tmp.filePath(u"events"_s);
    QVERIFY(QDir().mkpath(m_eventDisk));
    QString error;
    QVERIFY2(run(u"mount"_s, {u"-t"_s, u"tmpfs"_s, u"-o"_s, u"size=2m"_s, u"tmpfs"_s, m_eventDisk}, &error), qPrintable(error));
    const QString db = m_eventDisk + u"/events.db"_s;
    {
        Result<Store> store = Store::open(db);
        QVERIFY2(store, qPrintable(store ? QString() : store.error().message()));
    }
    std::mutex seenLock;
    QHash<qint64, Decision> streamed;
    EventLog log;
    QVERIFY(log.start(db, [&](const std::vector<EgressEvent> &batch) {
        std::lock_guard lock(seenLock);
        for (const EgressEvent &e : batch)
            streamed.insert(e.id, e.decision);
    }));
    QHash<qint64, Decision> recorded;
    const auto record = [&](const QString &host) {
        EgressEvent e;
        e.id = log.nextId();
        e.sandbox = u"box"_s;
        e.time = QDateTime::currentDateTimeUtc();
        e.proto = u"tcp"_s;
        e.host = host;
        e.ip = u"198.18.0.9"_s;
        e.port = 443;
        e.decision = recorded.size() % 3 ? Decision::Denied : Decision::Allowed;
        e.reason = u"a reason long enough to take some room in the table, row %1"_s.arg(e.id);
        recorded.insert(e.id, e.decision);
        const auto t0 = std::chrono::steady_clock::now();
        log.record(e);
        return std::chrono::steady_clock::now() - t0;
    };
    for (int i = 0; i < 20; ++i)
        record(u"before.test"_s);
    log.flush();
    QCOMPARE(log.notStored(), 0);

    // Fill what the tmpfs has left.
    {
        QFile filler(m_eventDisk + u"/filler"_s);
        QVERIFY(filler.open(QIODevice::WriteOnly));
        const QByteArray block(4096, 'x');
        while (filler.write(block) == block.size() && filler.flush()) {
        }
    }
    std::chrono::nanoseconds slowest{0};
    int whileFull = 0;
    for (; log.notStored() == 0 && whileFull < 200000; ++whileFull) {
        slowest = std::max(slowest, record(u"full.test"_s));
        if (whileFull % 50 == 49)
            log.flush();
    }
    for (int i = 0; i < 20; ++i, ++whileFull) // a few more, all while it stays full
        slowest = std::max(slowest, record(u"full.test"_s));
    log.flush();
    qInfo("%d events recorded with the disk full, %lld not stored, slowest record() %lld us", whileFull, log.notStored(),
          qint64(std::chrono::duration_cast<std::chrono::microseconds>(slowest).count()));
    QVERIFY2(log.notStored() > 0, "the full disk never refused a batch");
    QVERIFY2(slowest < std::chrono::milliseconds(100), "record() waited for the disk");
    const QString shown = log.storeError();
    QCOMPARE(shown, u"egress events are not being stored: the disk holding the event log is full; they are counted until "
                    u"there is room again"_s);
    QVERIFY(!shown.contains(m_eventDisk) && !shown.contains(u'/'));

    QVERIFY(QFile::remove(m_eventDisk + u"/filler"_s));
    for (int i = 0; i < 20; ++i)
        record(u"after.test"_s);
    log.flush();
    log.flush();
    QCOMPARE(log.storeError(), QString());
    const qint64 lost = log.notStored();
    log.stop();

    // Everything recorded was streamed with its own decision, stored or not.
    {
        std::lock_guard lock(seenLock);
        for (auto it = recorded.cbegin(); it != recorded.cend(); ++it)
            QVERIFY2(streamed.value(it.key(), Decision::Dropped) == it.value(), qPrintable(QString::number(it.key())));
    }
    // The whole table: each row as recorded, none allowed that was not; the loss on record.
    Result<Store> store = Store::open(db);
    QVERIFY(store);
    const auto rows = store->rows(u"SELECT id, host, decision, count, reason FROM egress_events ORDER BY id"_s);
    QVERIFY(rows);
    QHash<QString, int> hosts;
    qint64 lossCount = 0;
    for (const QSqlRecord &r : *rows) {
        const qint64 id = r.value(0).toLongLong();
        const QString decision = r.value(2).toString();
        if (decision == "dropped"_L1) {
            QVERIFY2(r.value(4).toString().contains("could not be written"_L1), qPrintable(r.value(4).toString()));
            lossCount += r.value(3).toLongLong();
            continue;
        }
        QVERIFY2(recorded.contains(id), qPrintable(QString::number(id)));
        QCOMPARE(decision, recorded.value(id) == Decision::Allowed ? u"allowed"_s : u"denied"_s);
        ++hosts[r.value(1).toString()];
    }
    qInfo("stored: %d before, %d while full, %d after; %lld in loss rows", hosts.value(u"before.test"_s),
          hosts.value(u"full.test"_s), hosts.value(u"after.test"_s), lossCount);
    QCOMPARE(hosts.value(u"before.test"_s), 20);
    QCOMPARE(hosts.value(u"after.test"_s), 20);
    QCOMPARE(lossCount, lost);
    QCOMPARE(qint64(hosts.value(u"full.test"_s)) + lossCount, qint64(whileFull));
}

void TestEngineFullDisk::cleanupTestCase()
{
    if (!m_eventDisk.isEmpty()) {
        QString error;
        run(u"umount"_s, {m_eventDisk}, &error);
    }
    unfill();
    if (m_daemon.running()) {
        m_daemon.ctl({u"kill"_s, m_box}, 120000);
        m_daemon.ctl({u"rm"_s, m_box}, 120000);
        m_daemon.ctl({u"image"_s, u"rm"_s, u"tiny"_s}, 120000);
        m_daemon.stop();
    }
    removePool(m_poolName);
    if (m_mounted) {
        QString error;
        if (!m_libvirtdNs.isEmpty() && !run(u"nsenter"_s, {u"--mount="_s + m_libvirtdNs, u"umount"_s, m_mount}, &error))
            run(u"nsenter"_s, {u"--mount="_s + m_libvirtdNs, u"umount"_s, u"-l"_s, m_mount}, &error);
        if (!run(u"umount"_s, {m_mount}, &error)) {
            qWarning() << error << "- detaching it lazily";
            run(u"umount"_s, {u"-l"_s, m_mount}, &error);
        }
        QDir().rmdir(m_mount);
    }
}

QTEST_GUILESS_MAIN(TestEngineFullDisk)
#include "test_engine_fulldisk.moc"
