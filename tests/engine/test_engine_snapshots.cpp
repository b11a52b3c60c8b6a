// Snapshots as a user relies on them: write, snapshot, change, restore, read the original
// back; fork from the snapshot and watch both diverge; rm refused while others build on it;
// and once everything is removed, no layer is left in libvirt or the store.
#include "daemonharness.h"
#include "libvirtview.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

class TestEngineSnapshots : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void restoreBringsBackTheSnapshottedFile();
    void forkDivergesIndependently();
    void snapshotOfStoppedSandboxAndRemoval();
    void removingASnapshotBelowAnotherMergesIt();
    void cleanupTestCase();

private:
    QByteArray run(const QString &box, const QString &script);
    DaemonHarness m_daemon;
    QString m_box, m_fork, m_merge;
    qint64 m_snapshot = 0;
};

void TestEngineSnapshots::initTestCase()
{
    QString error;
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
    m_box = uniqueName(QStringLiteral("snap"));
    m_fork = uniqueName(QStringLiteral("fork"));
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), m_box, QStringLiteral("--start")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
}

QByteArray TestEngineSnapshots::run(const QString &box, const QString &script)
{
    const CtlResult r = m_daemon.ctl({QStringLiteral("exec"), box, QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
    if (r.exitCode != 0)
        qWarning() << "exec failed:" << r.err;
    return QByteArray::fromBase64(r.json().toObject().value(QLatin1String("stdout_b64")).toString().toLatin1());
}

void TestEngineSnapshots::restoreBringsBackTheSnapshottedFile()
{
    run(m_box, QStringLiteral("echo original > /root/note; sync"));
    const CtlResult snap = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box, QStringLiteral("--label"), QStringLiteral("before")});
    QVERIFY2(snap.exitCode == 0, snap.err.constData());
    const QJsonObject s = snap.json().toObject();
    m_snapshot = s.value(QLatin1String("id")).toInteger();
    QVERIFY(m_snapshot > 0);
    QCOMPARE(s.value(QLatin1String("sandbox")).toString(), m_box);
    QCOMPARE(s.value(QLatin1String("label")).toString(), QStringLiteral("before"));

    // The guest keeps running on a new layer after the (quiesced) snapshot.
    QCOMPARE(run(m_box, QStringLiteral("echo changed > /root/note; sync; cat /root/note")), QByteArray("changed\n"));

    const CtlResult ls = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box});
    QCOMPARE(ls.json().toArray().size(), 1);
    QVERIFY(ls.json().toArray().first().toObject().value(QLatin1String("current")).toBool());

    const CtlResult restore = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("restore"), m_box, QString::number(m_snapshot)});
    QVERIFY2(restore.exitCode == 0, restore.err.constData());
    QCOMPARE(run(m_box, QStringLiteral("cat /root/note")), QByteArray("original\n"));
}

void TestEngineSnapshots::forkDivergesIndependently()
{
    const CtlResult fork = m_daemon.ctl({QStringLiteral("fork"), m_box, QString::number(m_snapshot), m_fork, QStringLiteral("--start")});
    QVERIFY2(fork.exitCode == 0, fork.err.constData());
    const QJsonObject f = fork.json().toObject();
    QCOMPARE(f.value(QLatin1String("name")).toString(), m_fork);
    QCOMPARE(f.value(QLatin1String("state")).toString(), QStringLiteral("running"));

    // Fresh identity: its own address and MAC.
    const QByteArray boxIdentity = run(m_box, QStringLiteral("cat /sys/class/net/eth0/address; ip -4 -o addr show eth0"));
    const QByteArray forkIdentity = run(m_fork, QStringLiteral("cat /sys/class/net/eth0/address; ip -4 -o addr show eth0"));
    QVERIFY2(!boxIdentity.isEmpty() && !forkIdentity.isEmpty(), boxIdentity.constData());
    QCOMPARE(boxIdentity.split('\n').first() == forkIdentity.split('\n').first(), false);
    QVERIFY2(forkIdentity.contains(f.value(QLatin1String("ip")).toString().toUtf8()), forkIdentity.constData());

    QCOMPARE(run(m_fork, QStringLiteral("cat /root/note")), QByteArray("original\n"));
    run(m_fork, QStringLiteral("echo fork > /root/note; sync"));
    run(m_box, QStringLiteral("echo box > /root/note; sync"));
    QCOMPARE(run(m_fork, QStringLiteral("cat /root/note")), QByteArray("fork\n"));
    QCOMPARE(run(m_box, QStringLiteral("cat /root/note")), QByteArray("box\n"));

    // The snapshot carries both sandboxes: it cannot go.
    const CtlResult rm = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("rm"), m_box, QString::number(m_snapshot)});
    QCOMPARE(rm.exitCode, 1);
    QVERIFY2(rm.err.contains("other layers build on it"), rm.err.constData());
}

void TestEngineSnapshots::snapshotOfStoppedSandboxAndRemoval()
{
    QCOMPARE(m_daemon.ctl({QStringLiteral("stop"), m_box}).exitCode, 0);
    const CtlResult snap = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box});
    QVERIFY2(snap.exitCode == 0, snap.err.constData());
    const qint64 second = snap.json().toObject().value(QLatin1String("id")).toInteger();
    QCOMPARE(snap.json().toObject().value(QLatin1String("parent")).toInteger(), m_snapshot);
    // Going back to the first snapshot leaves the second one a leaf that can be removed.
    QCOMPARE(m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("restore"), m_box, QString::number(m_snapshot)}).exitCode, 0);
    const CtlResult rm = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("rm"), m_box, QString::number(second)});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    QCOMPARE(m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray().size(), 1);
    const CtlResult bad = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("restore"), m_box, QStringLiteral("999999")});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.err.contains("has no snapshot 999999"), bad.err.constData());
}

void TestEngineSnapshots::removingASnapshotBelowAnotherMergesIt()
{
    const QString box = m_merge = uniqueName(QStringLiteral("merge")); // cleanupTestCase removes it if this fails
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), box, QStringLiteral("--start")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
    auto snapshot = [&](const QString &label) {
        const CtlResult r = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("create"), box, QStringLiteral("--label"), label});
        return r.exitCode == 0 ? r.json().toObject().value(QLatin1String("id")).toInteger() : qint64(0);
    };
    run(box, QStringLiteral("echo first > /root/first; echo a > /root/note; sync"));
    const qint64 a = snapshot(QStringLiteral("a"));
    QVERIFY(a > 0);
    run(box, QStringLiteral("echo b > /root/note; echo bee > /root/b; sync"));
    const qint64 b = snapshot(QStringLiteral("b"));
    QVERIFY(b > 0);
    run(box, QStringLiteral("echo c > /root/note; rm /root/first; sync"));

    // Stopped, B's layer is rebased off A's by qemu-img.
    QCOMPARE(m_daemon.ctl({QStringLiteral("stop"), box}).exitCode, 0);
    const CtlResult rm = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("rm"), box, QString::number(a)});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    const QJsonArray left = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), box}).json().toArray();
    QCOMPARE(left.size(), 1);
    QCOMPARE(left.first().toObject().value(QLatin1String("id")).toInteger(), b);
    QVERIFY(left.first().toObject().value(QLatin1String("parent")).isNull());

    // B still holds what it held, including what it had read through A's layer.
    QCOMPARE(m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("restore"), box, QString::number(b)}).exitCode, 0);
    const CtlResult started = m_daemon.ctl({QStringLiteral("start"), box});
    QVERIFY2(started.exitCode == 0, started.err.constData());
    QCOMPARE(run(box, QStringLiteral("cat /root/note /root/b /root/first")), QByteArray("b\nbee\nfirst\n"));

    // A snapshot with a later snapshot above it merges live: the later layer's blocks are
    // committed down into it while the guest goes on, and the later snapshot still restores
    // exactly what it held.
    const auto ids = [&] {
        QList<qint64> out;
        for (const QJsonValue &v : m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), box}).json().toArray())
            out << v.toObject().value(QLatin1String("id")).toInteger();
        return out;
    };
    run(box, QStringLiteral("echo d > /root/note; echo dee > /root/d; sync"));
    const qint64 d = snapshot(QStringLiteral("d"));
    QVERIFY(d > 0);
    run(box, QStringLiteral("echo e > /root/note; echo eee > /root/e; sync"));
    const qint64 e = snapshot(QStringLiteral("e"));
    QVERIFY(e > 0);
    run(box, QStringLiteral("echo f > /root/note; rm /root/d; sync"));
    const CtlResult committed = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("rm"), box, QString::number(d)});
    QVERIFY2(committed.exitCode == 0, QByteArray(committed.err + m_daemon.log().right(2000)).constData());
    QCOMPARE(run(box, QStringLiteral("cat /root/note /root/e /root/b; test -e /root/d || echo gone")), QByteArray("f\neee\nbee\ngone\n"));
    QCOMPARE(ids(), (QList<qint64>{b, e}));
    QCOMPARE(m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("restore"), box, QString::number(e)}).exitCode, 0);
    QCOMPARE(run(box, QStringLiteral("cat /root/note /root/d /root/e /root/b")), QByteArray("e\ndee\neee\nbee\n"));

    // The latest snapshot, right under the running disk, merges live too: QEMU pulls its
    // blocks into the disk while the guest goes on, and the next boot reads the same files.
    run(box, QStringLiteral("echo g > /root/note; sync"));
    const CtlResult pulled = m_daemon.ctl({QStringLiteral("snapshot"), QStringLiteral("rm"), box, QString::number(e)});
    QVERIFY2(pulled.exitCode == 0, QByteArray(pulled.err + m_daemon.log().right(2000)).constData());
    QCOMPARE(run(box, QStringLiteral("cat /root/note /root/d /root/e /root/b")), QByteArray("g\ndee\neee\nbee\n"));
    QCOMPARE(ids(), (QList<qint64>{b}));
    QCOMPARE(m_daemon.ctl({QStringLiteral("stop"), box}).exitCode, 0);
    QCOMPARE(m_daemon.ctl({QStringLiteral("start"), box}).exitCode, 0);
    QCOMPARE(run(box, QStringLiteral("cat /root/note /root/d /root/e /root/b")), QByteArray("g\ndee\neee\nbee\n"));

    m_daemon.ctl({QStringLiteral("kill"), box});
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), box}).exitCode, 0);
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + box);
    QVERIFY2(view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty(),
             qPrintable((view.domains + view.networks + view.volumes).join(QLatin1Char(','))));
}

void TestEngineSnapshots::cleanupTestCase()
{
    m_daemon.ctl({QStringLiteral("kill"), m_merge});
    m_daemon.ctl({QStringLiteral("rm"), m_merge});
    // The original goes first: its frozen layer must survive for the fork, then go with it.
    m_daemon.ctl({QStringLiteral("kill"), m_box});
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), m_box}).exitCode, 0);
    QCOMPARE(run(m_fork, QStringLiteral("cat /root/note")), QByteArray("fork\n"));
    m_daemon.ctl({QStringLiteral("kill"), m_fork});
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), m_fork}).exitCode, 0);
    for (const QString &name : {m_box, m_fork}) {
        const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + name);
        QVERIFY2(view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty(),
                 qPrintable((view.domains + view.networks + view.volumes).join(QLatin1Char(','))));
    }
}

QTEST_GUILESS_MAIN(TestEngineSnapshots)
#include "test_engine_snapshots.moc"
