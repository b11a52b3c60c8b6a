// A sandbox's life as a user drives it with airlockctl --json: create --start, exec (stdout,
// stderr and exit code apart, environment), cp both ways, pause/resume, stop, start, kill,
// rm; and afterwards libvirt and the store hold nothing of it.
#include "daemonharness.h"
#include "libvirtview.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

class TestEngineLifecycle : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void createStartExecStopRemoveLeavesNothing();
    void copiesFilesBothWaysIntact();
    void consoleKeepsHistoryAndAnswers();
    void pauseResumeKillAndRestart();
    void cleanupTestCase();

private:
    QString stateOf(const QString &name) const;
    QString objectFilter(const QString &name) const { return QStringLiteral("-") + name; }
    DaemonHarness m_daemon;
    QString m_box; // shared by the cp and pause tests (one boot saves a minute under TCG)
};

void TestEngineLifecycle::initTestCase()
{
    QString error;
    QVERIFY2(m_daemon.startWithTinyImage(&error), qPrintable(error));
}

QString TestEngineLifecycle::stateOf(const QString &name) const
{
    const CtlResult ls = m_daemon.ctl({QStringLiteral("ls")});
    for (const QJsonValue &v : ls.json().toArray())
        if (v.toObject().value(QLatin1String("name")).toString() == name)
            return v.toObject().value(QLatin1String("state")).toString();
    return QStringLiteral("absent");
}

void TestEngineLifecycle::createStartExecStopRemoveLeavesNothing()
{
    const QString name = uniqueName(QStringLiteral("life"));
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), name, QStringLiteral("--start"), QStringLiteral("--memory"),
                                            QStringLiteral("256"), QStringLiteral("--env"), QStringLiteral("GREETING=hello world")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
    const QJsonObject o = created.json().toObject();
    QCOMPARE(o.value(QLatin1String("name")).toString(), name);
    QCOMPARE(o.value(QLatin1String("state")).toString(), QStringLiteral("running"));
    QCOMPARE(o.value(QLatin1String("image")).toString(), QStringLiteral("tiny"));
    const QString ip = o.value(QLatin1String("ip")).toString();
    QVERIFY2(ip.startsWith(QLatin1String("10.213.")), qPrintable(ip));

    LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), objectFilter(name));
    QCOMPARE(view.domains.size(), 1);
    QCOMPARE(view.networks.size(), 1);
    QCOMPARE(view.volumes.size(), 1);

    // exec: plain text (as a person runs it), exit code passed through.
    const CtlResult echo = m_daemon.ctl({QStringLiteral("exec"), name, QStringLiteral("--"), QStringLiteral("echo"), QStringLiteral("hello")});
    QCOMPARE(echo.exitCode, 0);
    QCOMPARE(QByteArray::fromBase64(echo.json().toObject().value(QLatin1String("stdout_b64")).toString().toLatin1()), QByteArray("hello\n"));

    const CtlResult mixed = m_daemon.ctl({QStringLiteral("exec"), name, QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                          QStringLiteral("echo \"$GREETING\"; echo oops >&2; ip -4 addr show eth0 | grep -o 'inet [0-9./]*'; exit 7")});
    QCOMPARE(mixed.exitCode, 7);
    const QJsonObject m = mixed.json().toObject();
    QCOMPARE(m.value(QLatin1String("exit_code")).toInt(), 7);
    const QByteArray out = QByteArray::fromBase64(m.value(QLatin1String("stdout_b64")).toString().toLatin1());
    QVERIFY2(out.startsWith("hello world\n"), out.constData());
    QVERIFY2(out.contains(QByteArray("inet " + ip.toUtf8() + "/30")), out.constData());
    QCOMPARE(QByteArray::fromBase64(m.value(QLatin1String("stderr_b64")).toString().toLatin1()), QByteArray("oops\n"));

    // rm refuses a running sandbox; stop shuts it down cleanly.
    const CtlResult early = m_daemon.ctl({QStringLiteral("rm"), name});
    QCOMPARE(early.exitCode, 1);
    QVERIFY2(early.err.contains("stop it first"), early.err.constData());
    const CtlResult stopped = m_daemon.ctl({QStringLiteral("stop"), name});
    QVERIFY2(stopped.exitCode == 0, stopped.err.constData());
    QCOMPARE(stateOf(name), QStringLiteral("stopped"));

    const CtlResult removed = m_daemon.ctl({QStringLiteral("rm"), name});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
    QCOMPARE(stateOf(name), QStringLiteral("absent"));
    view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), objectFilter(name));
    QVERIFY2(view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty(),
             qPrintable((view.domains + view.networks + view.volumes).join(QLatin1Char(','))));
    const QString db = DaemonHarness::sharedDataDir() + QStringLiteral("/airlock.db");
    QCOMPARE(storeRows(db, QStringLiteral("sandboxes"), QStringLiteral("name"), name), 0);
    QCOMPARE(storeRows(db, QStringLiteral("operations"), QStringLiteral("subject"), name), 0);
}

void TestEngineLifecycle::copiesFilesBothWaysIntact()
{
    m_box = uniqueName(QStringLiteral("cp"));
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), m_box, QStringLiteral("--start")});
    QVERIFY2(created.exitCode == 0, created.err.constData());

    // Binary content with every byte value, a few MiB (the 100 MiB case is in the slow set).
    QTemporaryDir dir;
    QByteArray data(6 * 1024 * 1024 + 123, Qt::Uninitialized);
    QRandomGenerator rng(42);
    rng.fillRange(reinterpret_cast<quint32 *>(data.data()), data.size() / 4);
    const QString in = dir.filePath(QStringLiteral("in.bin"));
    QFile f(in);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write(data) == data.size());
    f.close();
    const QByteArray sum = QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex();

    const CtlResult push = m_daemon.ctl({QStringLiteral("cp"), in, m_box + QStringLiteral(":/root/in.bin")});
    QVERIFY2(push.exitCode == 0, push.err.constData());
    const CtlResult guestSum = m_daemon.ctl({QStringLiteral("exec"), m_box, QStringLiteral("--"), QStringLiteral("sha256sum"), QStringLiteral("/root/in.bin")});
    QVERIFY(QByteArray::fromBase64(guestSum.json().toObject().value(QLatin1String("stdout_b64")).toString().toLatin1()).startsWith(sum));

    const QString back = dir.filePath(QStringLiteral("back.bin"));
    const CtlResult pull = m_daemon.ctl({QStringLiteral("cp"), m_box + QStringLiteral(":/root/in.bin"), back});
    QVERIFY2(pull.exitCode == 0, pull.err.constData());
    QFile b(back);
    QVERIFY(b.open(QIODevice::ReadOnly));
    QCOMPARE(QCryptographicHash::hash(b.readAll(), QCryptographicHash::Sha256).toHex(), sum);

    const CtlResult missing = m_daemon.ctl({QStringLiteral("cp"), m_box + QStringLiteral(":/no/such/file"), dir.filePath(QStringLiteral("x"))});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("No such file"), missing.err.constData());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("x"))));
}

void TestEngineLifecycle::consoleKeepsHistoryAndAnswers()
{
    QVERIFY(!m_box.isEmpty());
    // Typed into the serial console's shell; the answer comes back through the stream.
    const CtlResult r = m_daemon.ctl({QStringLiteral("console"), m_box}, 60000, "echo marker-$((6*7))\n");
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("marker-42"), r.out.constData());
    // The boot happened before anyone attached: its output is in the history.
    QVERIFY2(r.out.contains("BusyBox"), r.out.left(2000).constData());
    QVERIFY2(r.err.contains("Ctrl-] detaches"), r.err.constData());
    const CtlResult missing = m_daemon.ctl({QStringLiteral("console"), QStringLiteral("no-such-box")}, 10000, "x");
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("no sandbox named no-such-box"), missing.err.constData());
}

void TestEngineLifecycle::pauseResumeKillAndRestart()
{
    QVERIFY(!m_box.isEmpty());
    QCOMPARE(m_daemon.ctl({QStringLiteral("pause"), m_box}).exitCode, 0);
    QCOMPARE(stateOf(m_box), QStringLiteral("paused"));
    QCOMPARE(m_daemon.ctl({QStringLiteral("resume"), m_box}).exitCode, 0);
    QCOMPARE(stateOf(m_box), QStringLiteral("running"));
    QCOMPARE(m_daemon.ctl({QStringLiteral("kill"), m_box}).exitCode, 0);
    QCOMPARE(stateOf(m_box), QStringLiteral("stopped"));
    const CtlResult again = m_daemon.ctl({QStringLiteral("kill"), m_box});
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.err.contains("is not running"), again.err.constData());
    // The disk survives a restart: the file copied in before is still there.
    const CtlResult started = m_daemon.ctl({QStringLiteral("start"), m_box});
    QVERIFY2(started.exitCode == 0, started.err.constData());
    const CtlResult ls = m_daemon.ctl({QStringLiteral("exec"), m_box, QStringLiteral("--"), QStringLiteral("ls"), QStringLiteral("/root")});
    QVERIFY(QByteArray::fromBase64(ls.json().toObject().value(QLatin1String("stdout_b64")).toString().toLatin1()).contains("in.bin"));
}

void TestEngineLifecycle::cleanupTestCase()
{
    if (m_box.isEmpty())
        return;
    m_daemon.ctl({QStringLiteral("kill"), m_box});
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), m_box}).exitCode, 0);
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), objectFilter(m_box));
    QVERIFY(view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty());
}

QTEST_GUILESS_MAIN(TestEngineLifecycle)
#include "test_engine_lifecycle.moc"
