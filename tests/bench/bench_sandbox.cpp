// Sandbox benchmark, real libvirtd and real VMs, one run:
//   - `create --start` until the guest agent answers, beside a bare qemu-system-x86_64 that
//     boots the same kernel, initrd and root disk (same accel, q35, virtio) until its guest
//     agent answers guest-ping on a chardev socket
//   - snapshot create on a running sandbox, restore (stopped: the disk switch), fork
//   - disk the pool gains for 10 forks of one snapshot
//   - airlockd's resident memory with those sandboxes defined
//   - checkpoints of a running 1 GiB guest beside libvirt's own save and restore of the same
//     domain (virDomainSaveFlags / virDomainRestoreFlags, what `virsh save/restore` call), the
//     first exec answered after a restore, and what 10 checkpoints of the idle guest weigh
// Targets: boot overhead within 10% of bare QEMU; snapshot and fork each under 500 ms plus the
// guest's fsfreeze; 10 forks under 50 MiB; airlockd under 80 MiB RSS with 10 sandboxes.
// Checkpoint targets: checkpoint and restore within 10% of libvirt's save and restore; the
// first exec after a restore under 1 s; each of 10 idle checkpoints under 10% of guest RAM.
// It prints the numbers; it fails only when a measurement cannot be made.
#include "daemonharness.h"
#include "libvirtview.h"
#include "residentmemory.h"
#include "virhandle.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QLocalSocket>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <sys/stat.h>

namespace {

constexpr int kForks = 10;

qint64 allocated(const QString &path)
{
    struct stat st {};
    return ::stat(path.toLocal8Bit().constData(), &st) == 0 ? qint64(st.st_blocks) * 512 : 0;
}

void report(const char *what, double airlock, double reference, const char *unit, const char *target,
            const char *referenceName = "bare")
{
    if (reference > 0)
        std::printf("%-34s %10.1f %-4s  %s %10.1f %-4s  ratio %5.2f   target: %s\n", what, airlock, unit, referenceName, reference, unit,
                    airlock / reference, target);
    else
        std::printf("%-34s %10.1f %-4s  %s\n", what, airlock, unit, target);
    std::fflush(stdout);
}

} // namespace

class BenchSandbox : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void measure();
    void checkpoints();
    void cleanupTestCase();

private:
    qint64 bareQemuBootMs(const QString &accel, QString *error);
    qint64 timed(const QStringList &args, CtlResult *result = nullptr);
    DaemonHarness m_daemon;
    QString m_box, m_checkpointed;
    QStringList m_forks;
};

void BenchSandbox::initTestCase()
{
    QString error;
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
    const CtlResult built = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("tiny")}, 900000);
    QVERIFY2(built.exitCode == 0, built.err.constData());
    m_box = uniqueName(QStringLiteral("bench"));
}

qint64 BenchSandbox::timed(const QStringList &args, CtlResult *result)
{
    QElapsedTimer t;
    t.start();
    const CtlResult r = m_daemon.ctl(args, 600000);
    const qint64 ms = t.elapsed();
    if (result)
        *result = r;
    if (r.exitCode != 0)
        qWarning() << args << "failed:" << r.err;
    return r.exitCode == 0 ? ms : -1;
}

// The same kernel, initrd and root disk (through a throwaway qcow2 overlay, as a sandbox has)
// booted by qemu-system-x86_64 directly; done when the guest agent answers guest-ping.
qint64 BenchSandbox::bareQemuBootMs(const QString &accel, QString *error)
{
    QString kernel, initrd, root;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("bench-peek"));
        db.setDatabaseName(DaemonHarness::sharedDataDir() + QStringLiteral("/airlock.db"));
        if (db.open()) {
            QSqlQuery q(db);
            if (q.exec(QStringLiteral("SELECT kernel, initrd, rootfs FROM images WHERE name = 'tiny'")) && q.next()) {
                kernel = airlockVolumePath(DaemonHarness::libvirtUri(), q.value(0).toString());
                initrd = airlockVolumePath(DaemonHarness::libvirtUri(), q.value(1).toString());
                root = airlockVolumePath(DaemonHarness::libvirtUri(), q.value(2).toString());
            }
        }
    }
    QSqlDatabase::removeDatabase(QStringLiteral("bench-peek"));
    if (kernel.isEmpty() || root.isEmpty()) {
        *error = QStringLiteral("cannot find the tiny image's files");
        return -1;
    }
    QTemporaryDir dir;
    const QString disk = dir.filePath(QStringLiteral("disk.qcow2"));
    const QString agentSocket = dir.filePath(QStringLiteral("qga.sock"));
    if (QProcess::execute(QStringLiteral("qemu-img"), {QStringLiteral("create"), QStringLiteral("-q"), QStringLiteral("-f"),
                                                        QStringLiteral("qcow2"), QStringLiteral("-b"), root, QStringLiteral("-F"),
                                                        QStringLiteral("raw"), disk, QStringLiteral("2G")}) != 0) {
        *error = QStringLiteral("qemu-img create failed");
        return -1;
    }
    QProcess qemu;
    qemu.setProcessChannelMode(QProcess::MergedChannels);
    QElapsedTimer t;
    t.start();
    qemu.start(QStringLiteral("qemu-system-x86_64"),
               {QStringLiteral("-machine"), QStringLiteral("q35"), QStringLiteral("-accel"), accel, QStringLiteral("-m"),
                QStringLiteral("256"), QStringLiteral("-smp"), QStringLiteral("1"), QStringLiteral("-nodefaults"),
                QStringLiteral("-display"), QStringLiteral("none"), QStringLiteral("-serial"), QStringLiteral("null"),
                QStringLiteral("-kernel"), kernel, QStringLiteral("-initrd"), initrd, QStringLiteral("-append"),
                QStringLiteral("console=ttyS0 quiet panic=-1"),
                QStringLiteral("-drive"), QStringLiteral("file=%1,format=qcow2,if=virtio").arg(disk),
                QStringLiteral("-device"), QStringLiteral("virtio-rng-pci"),
                QStringLiteral("-chardev"), QStringLiteral("socket,path=%1,server=on,wait=off,id=qga0").arg(agentSocket),
                QStringLiteral("-device"), QStringLiteral("virtio-serial-pci"), QStringLiteral("-device"),
                QStringLiteral("virtserialport,chardev=qga0,name=org.qemu.guest_agent.0")});
    if (!qemu.waitForStarted(10000)) {
        *error = QStringLiteral("cannot run qemu-system-x86_64");
        return -1;
    }
    qint64 ms = -1;
    QLocalSocket agent;
    QDeadlineTimer deadline(300000);
    while (!deadline.hasExpired() && qemu.state() == QProcess::Running) {
        if (agent.state() != QLocalSocket::ConnectedState) {
            agent.connectToServer(agentSocket);
            if (!agent.waitForConnected(200)) {
                QThread::msleep(50);
                continue;
            }
        }
        agent.write("{\"execute\":\"guest-ping\"}\n");
        agent.flush();
        if (agent.waitForReadyRead(250) && agent.readAll().contains("\"return\"")) {
            ms = t.elapsed();
            break;
        }
    }
    if (ms < 0)
        *error = QStringLiteral("the bare guest's agent never answered: %1").arg(QString::fromLocal8Bit(qemu.readAll().right(2000)));
    qemu.kill();
    qemu.waitForFinished(10000);
    return ms;
}

void BenchSandbox::measure()
{
    const QString accel = m_daemon.ctl({QStringLiteral("status")}).json().toObject().value(QLatin1String("accel")).toString();
    std::printf("bench_sandbox: %s build, accel %s, %d CPUs on the host\n", AIRLOCK_BUILD_TYPE, qPrintable(accel), QThread::idealThreadCount());

    // Boot: bare QEMU first, then Airlock, on an otherwise idle engine.
    QString error;
    const qint64 bare = bareQemuBootMs(accel, &error);
    QVERIFY2(bare > 0, qPrintable(error));
    {
        // Where the time goes: define (network, guard, overlay, domain) apart from the boot.
        // It runs first, so the first VM this daemon starts is not the create --start one.
        const QString split = uniqueName(QStringLiteral("bsplit"));
        const qint64 defineMs = timed({QStringLiteral("create"), split});
        const qint64 startMs = timed({QStringLiteral("start"), split});
        m_daemon.ctl({QStringLiteral("kill"), split});
        m_daemon.ctl({QStringLiteral("rm"), split});
        QVERIFY(defineMs > 0 && startMs > 0);
        report("create alone (no boot)", double(defineMs), 0, "ms", "");
        report("start alone to agent answer", double(startMs), double(bare), "ms", "");
    }
    CtlResult created;
    const qint64 boot = timed({QStringLiteral("create"), m_box, QStringLiteral("--start")}, &created);
    QVERIFY2(boot > 0, created.err.constData());
    report("create --start to agent answer", double(boot), double(bare), "ms", "within 10% of bare QEMU");

    // Snapshot of the running sandbox (includes the guest's fsfreeze/thaw).
    m_daemon.ctl({QStringLiteral("exec"), m_box, QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                  QStringLiteral("echo bench > /root/bench; sync")});
    CtlResult snap;
    const qint64 snapshotMs = timed({QStringLiteral("snapshot"), QStringLiteral("create"), m_box}, &snap);
    QVERIFY2(snapshotMs > 0, snap.err.constData());
    const QString id = QString::number(snap.json().toObject().value(QLatin1String("id")).toInteger());
    report("snapshot create (running)", double(snapshotMs), 0, "ms", "< 500 ms + fsfreeze");

    const qint64 forkMs = timed({QStringLiteral("fork"), m_box, id, uniqueName(QStringLiteral("bfork0"))});
    QVERIFY(forkMs > 0);
    m_forks << uniqueName(QStringLiteral("bfork0"));
    report("fork (stopped result)", double(forkMs), 0, "ms", "< 500 ms");

    QVERIFY(timed({QStringLiteral("kill"), m_box}) > 0);
    const qint64 restoreMs = timed({QStringLiteral("snapshot"), QStringLiteral("restore"), m_box, id});
    QVERIFY(restoreMs > 0);
    report("restore (stopped: disk switch)", double(restoreMs), 0, "ms", "(no target)");

    // Disk: what 10 forks of one snapshot add to the pool.
    for (int i = 1; i < kForks; ++i) {
        const QString name = uniqueName(QStringLiteral("bfork%1").arg(i));
        QVERIFY(timed({QStringLiteral("fork"), m_box, id, name}) > 0);
        m_forks << name;
    }
    qint64 forkBytes = 0;
    for (const QString &name : m_forks) {
        const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + name);
        QVERIFY2(view.error.isEmpty(), qPrintable(view.error));
        for (const QString &volume : view.volumes)
            forkBytes += allocated(airlockVolumePath(DaemonHarness::libvirtUri(), volume));
    }
    report("disk added by 10 forks", double(forkBytes) / (1 << 20), 0, "MiB", "< 50 MiB");

    const qint64 rss = residentKiB(m_daemon.pid());
    QVERIFY(rss > 0);
    std::printf("%-34s %10.1f MiB  (%d sandboxes defined, all stopped: 11 TCG guests do not fit 2 shared cores)  "
                "target: < 80 MiB\n", "airlockd RSS", double(rss) / 1024, kForks + 1);
    std::fflush(stdout);
}

void BenchSandbox::checkpoints()
{
    constexpr int kGuestMib = 1024;
    constexpr int kIdleCheckpoints = 10;
    m_checkpointed = uniqueName(QStringLiteral("bckpt"));
    CtlResult created;
    QVERIFY2(timed({QStringLiteral("create"), m_checkpointed, QStringLiteral("--start"), QStringLiteral("--memory"),
                    QString::number(kGuestMib)}, &created) > 0, created.err.constData());
    // Something in memory that a checkpoint must carry: 64 MiB written by a running process.
    m_daemon.ctl({QStringLiteral("exec"), m_checkpointed, QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                  QStringLiteral("dd if=/dev/urandom of=/dev/shm/fill bs=1M count=64 2>/dev/null; sync")});

    // The reference: libvirt saves and restores the same running domain on its own.
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + m_checkpointed);
    QVERIFY2(view.domains.size() == 1, qPrintable(view.error));
    airlock::VirConnection conn(virConnectOpen(qPrintable(DaemonHarness::libvirtUri())));
    QVERIFY(conn);
    airlock::VirDomain dom(virDomainLookupByName(conn.get(), qPrintable(view.domains.first())));
    QVERIFY(dom);
    QTemporaryDir scratch(DaemonHarness::sharedDataDir() + QStringLiteral("/bench-save-XXXXXX"));
    const QString savePath = scratch.filePath(QStringLiteral("domain.save"));
    QElapsedTimer t;
    t.start();
    QVERIFY2(virDomainSaveFlags(dom.get(), qPrintable(savePath), nullptr, 0) == 0, "libvirt's save failed");
    const qint64 libvirtSaveMs = t.elapsed();
    const qint64 libvirtSaveBytes = QFileInfo(savePath).size();
    t.restart();
    QVERIFY2(virDomainRestoreFlags(conn.get(), qPrintable(savePath), nullptr, 0) == 0, "libvirt's restore failed");
    const qint64 libvirtRestoreMs = t.elapsed();
    QFile::remove(savePath);

    CtlResult made;
    const qint64 checkpointMs = timed({QStringLiteral("snapshot"), QStringLiteral("create"), m_checkpointed, QStringLiteral("--memory")}, &made);
    QVERIFY2(checkpointMs > 0, made.err.constData());
    const qint64 checkpointBytes = made.json().toObject().value(QLatin1String("memory_bytes")).toInteger();
    const QString id = QString::number(made.json().toObject().value(QLatin1String("id")).toInteger());
    report("checkpoint (1 GiB guest)", double(checkpointMs), double(libvirtSaveMs), "ms", "within 10% of libvirt's save", "libvirt");
    std::printf("%-34s %10.1f MiB  libvirt's save %10.1f MiB\n", "  memory file", double(checkpointBytes) / (1 << 20),
                double(libvirtSaveBytes) / (1 << 20));
    CtlResult restored;
    const qint64 restoreMs = timed({QStringLiteral("snapshot"), QStringLiteral("restore"), m_checkpointed, id}, &restored);
    QVERIFY2(restoreMs > 0, restored.err.constData());
    report("restore of it, running (resumed)", double(restoreMs), double(libvirtRestoreMs), "ms", "within 10% of libvirt's restore",
           "libvirt");
    const qint64 execMs = timed({QStringLiteral("exec"), m_checkpointed, QStringLiteral("--"), QStringLiteral("true")});
    QVERIFY(execMs > 0);
    report("first exec after the restore", double(execMs), 0, "ms", "< 1000 ms");
    // A live fork of the same checkpoint: the copy of the memory file, libvirt's restore of
    // it and the guest's move to its own address, beside libvirt's bare restore.
    const QString liveFork = uniqueName(QStringLiteral("bfork"));
    CtlResult forked;
    const qint64 liveForkMs = timed({QStringLiteral("fork"), m_checkpointed, id, liveFork, QStringLiteral("--start")}, &forked);
    QVERIFY2(liveForkMs > 0, forked.err.constData());
    report("live fork of it (running)", double(liveForkMs), double(libvirtRestoreMs), "ms", "within 10% of libvirt's restore", "libvirt");
    const qint64 forkExecMs = timed({QStringLiteral("exec"), liveFork, QStringLiteral("--"), QStringLiteral("true")});
    QVERIFY(forkExecMs > 0);
    report("first exec in the live fork", double(forkExecMs), 0, "ms", "< 1000 ms");
    m_daemon.ctl({QStringLiteral("kill"), liveFork});
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), liveFork}).exitCode, 0);
    // The same restore of a stopped sandbox: without the running guest's destroy, which is
    // what libvirt's restore above does not have to do either.
    QVERIFY(timed({QStringLiteral("kill"), m_checkpointed}) > 0);
    const qint64 stoppedRestoreMs = timed({QStringLiteral("snapshot"), QStringLiteral("restore"), m_checkpointed, id}, &restored);
    QVERIFY2(stoppedRestoreMs > 0, restored.err.constData());
    report("restore of it, stopped (resumed)", double(stoppedRestoreMs), double(libvirtRestoreMs), "ms", "within 10% of libvirt's restore",
           "libvirt");

    // An idle guest, checkpointed again and again: what each memory file weighs.
    qint64 largest = 0, total = 0;
    for (int i = 0; i < kIdleCheckpoints; ++i) {
        CtlResult idle;
        QVERIFY2(timed({QStringLiteral("snapshot"), QStringLiteral("create"), m_checkpointed, QStringLiteral("--memory")}, &idle) > 0,
                 idle.err.constData());
        const qint64 bytes = idle.json().toObject().value(QLatin1String("memory_bytes")).toInteger();
        largest = qMax(largest, bytes);
        total += bytes;
    }
    std::printf("%-34s %10.1f %%    largest %.1f %% of guest RAM; no compression: pages the guest never touched are "
                "left out   target: < 10%% each\n", "10 idle checkpoints, mean", 100.0 * double(total) / kIdleCheckpoints / (qint64(kGuestMib) << 20),
                100.0 * double(largest) / (qint64(kGuestMib) << 20));
    std::fflush(stdout);
}

void BenchSandbox::cleanupTestCase()
{
    m_daemon.ctl({QStringLiteral("kill"), m_checkpointed});
    m_daemon.ctl({QStringLiteral("rm"), m_checkpointed});
    for (const QString &name : m_forks)
        m_daemon.ctl({QStringLiteral("rm"), name});
    m_daemon.ctl({QStringLiteral("kill"), m_box});
    m_daemon.ctl({QStringLiteral("rm"), m_box});
}

QTEST_GUILESS_MAIN(BenchSandbox)
#include "bench_sandbox.moc"
