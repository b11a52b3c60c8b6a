// airlockctl's remote hosts through a real sshd on loopback: `remote add` keeps the command
// in the list the desktop app shares, `--remote`, AIRLOCK_REMOTE and `remote use` choose the
// daemon, and every byte of the API goes through ssh and `airlockctl proxy` on the other
// side. A remote that cannot be reached and a name nobody added say what to do.
#include "api/remotehosts.h"
#include "daemonprocess.h"
#include "sshdprocess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestRemote : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void aRemoteIsAddedListedAndReachedThroughSsh();
    void theChosenRemoteIsUsedUntilToldOtherwise();
    void anUnreachableOrUnknownRemoteSaysWhatToDo();
    void badAddsAreRefusedAndLeaveTheListAsItWas();

private:
    struct Run {
        int exitCode;
        QByteArray out;
        QByteArray err;
    };
    // airlockctl as the person runs it: no --socket, the remote list in this test's config home.
    Run ctl(const QStringList &args, const QMap<QString, QString> &env = {});
    QStringList remoteProxy() const;

    QTemporaryDir m_home;
    DaemonProcess *m_daemon = nullptr;
    SshdProcess m_sshd;
};

void TestRemote::initTestCase()
{
    qputenv("XDG_CONFIG_HOME", m_home.path().toLocal8Bit()); // RemoteHosts here reads the list airlockctl writes
    m_daemon = new DaemonProcess({u"--libvirt-uri"_s, u"test:///default"_s});
    QVERIFY2(m_daemon->start(), qPrintable(m_daemon->log()));
    QVERIFY2(m_sshd.start(), qPrintable(m_sshd.error()));
}

void TestRemote::cleanupTestCase()
{
    delete m_daemon;
}

TestRemote::Run TestRemote::ctl(const QStringList &args, const QMap<QString, QString> &env)
{
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert(u"XDG_CONFIG_HOME"_s, m_home.path());
    e.remove(u"AIRLOCK_SOCKET"_s);
    e.remove(u"AIRLOCK_REMOTE"_s);
    for (auto it = env.begin(); it != env.end(); ++it)
        e.insert(it.key(), it.value());
    p.setProcessEnvironment(e);
    p.start(DaemonProcess::ctlBinary(), args);
    p.closeWriteChannel();
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

// What the far side runs: the built airlockctl bridging to the test's daemon.
QStringList TestRemote::remoteProxy() const
{
    return {DaemonProcess::ctlBinary(), u"--socket"_s, m_daemon->socketPath(), u"proxy"_s};
}

void TestRemote::aRemoteIsAddedListedAndReachedThroughSsh()
{
    const QStringList command = m_sshd.sshCommand(remoteProxy());
    Run add = ctl({u"remote"_s, u"add"_s, u"box"_s, command.join(u' ')});
    QVERIFY2(add.exitCode == 0, add.err.constData());
    QVERIFY(add.out.contains("airlockctl --remote box status"));

    // The desktop app's Hosts menu reads the same list.
    const airlock::RemoteHosts shared;
    QVERIFY(shared.find(u"box"_s));
    QCOMPARE(shared.find(u"box"_s)->command, command);

    Run ls = ctl({u"--json"_s, u"remote"_s, u"ls"_s});
    QCOMPARE(ls.exitCode, 0);
    const QJsonArray rows = QJsonDocument::fromJson(ls.out).array();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].toObject().value(u"name"_s).toString(), u"local"_s);
    QVERIFY(rows[0].toObject().value(u"current"_s).toBool());
    QCOMPARE(rows[1].toObject().value(u"name"_s).toString(), u"box"_s);
    QCOMPARE(rows[1].toObject().value(u"command"_s).toArray().size(), command.size());

    // A rule added through the remote is the remote daemon's: it lists it over its own socket.
    Run rule = ctl({u"--remote"_s, u"box"_s, u"rule"_s, u"add"_s, u"--global"_s, u"--action"_s, u"allow"_s, u"--host"_s, u"remote-test.example"_s});
    QVERIFY2(rule.exitCode == 0, rule.err.constData());
    const DaemonProcess::CtlResult direct = m_daemon->ctl({u"rule"_s, u"ls"_s});
    QVERIFY2(direct.out.contains("remote-test.example"), direct.out.constData());
    Run status = ctl({u"--remote=box"_s, u"--json"_s, u"status"_s});
    QVERIFY2(status.exitCode == 0, status.err.constData());
    QCOMPARE(QJsonDocument::fromJson(status.out).object().value(u"libvirt_uri"_s).toString(), u"test:///default"_s);
    QVERIFY2(m_sshd.log().contains(u"Accepted publickey"_s), qPrintable(m_sshd.log())); // it really went through sshd
}

void TestRemote::theChosenRemoteIsUsedUntilToldOtherwise()
{
    if (!airlock::RemoteHosts().find(u"box"_s)) {
        const QStringList add = QStringList{u"remote"_s, u"add"_s, u"box"_s, u"--"_s} + m_sshd.sshCommand(remoteProxy());
        QCOMPARE(ctl(add).exitCode, 0);
    }
    QCOMPARE(ctl({u"remote"_s, u"use"_s, u"box"_s}).exitCode, 0);
    QCOMPARE(airlock::RemoteHosts().current(), u"box"_s);
    Run viaDefault = ctl({u"--json"_s, u"status"_s});
    QVERIFY2(viaDefault.exitCode == 0, viaDefault.err.constData());
    QVERIFY(ctl({u"remote"_s, u"ls"_s}).out.contains("* box"));

    // This machine has no airlockd of its own here: `local` (flag or environment) goes there and fails.
    const QByteArray localRefusal = "cannot reach airlockd at";
    Run local = ctl({u"--remote"_s, u"local"_s, u"status"_s});
    QCOMPARE(local.exitCode, 1);
    QVERIFY2(local.err.contains(localRefusal), local.err.constData());
    Run localEnv = ctl({u"status"_s}, {{u"AIRLOCK_REMOTE"_s, u"local"_s}});
    QVERIFY2(localEnv.err.contains(localRefusal), localEnv.err.constData());
    // --socket names a daemon too, and beats the chosen remote.
    QCOMPARE(ctl({u"--socket"_s, m_daemon->socketPath(), u"status"_s}).exitCode, 0);
    Run both = ctl({u"--socket"_s, m_daemon->socketPath(), u"--remote"_s, u"box"_s, u"status"_s});
    QCOMPARE(both.exitCode, 2);
    QVERIFY(both.err.contains("give one"));

    QCOMPARE(ctl({u"remote"_s, u"use"_s, u"local"_s}).exitCode, 0);
    QVERIFY(airlock::RemoteHosts().current().isEmpty());
    QVERIFY(ctl({u"status"_s}).err.contains(localRefusal));
    Run viaEnv = ctl({u"status"_s}, {{u"AIRLOCK_REMOTE"_s, u"box"_s}});
    QVERIFY2(viaEnv.exitCode == 0, viaEnv.err.constData());
}

void TestRemote::anUnreachableOrUnknownRemoteSaysWhatToDo()
{
    const QStringList add = QStringList{u"remote"_s, u"add"_s, u"dead"_s, u"--"_s} + m_sshd.unreachableCommand(remoteProxy());
    QCOMPARE(ctl(add).exitCode, 0);
    Run dead = ctl({u"--remote"_s, u"dead"_s, u"status"_s});
    QCOMPARE(dead.exitCode, 1);
    QVERIFY2(dead.err.contains("the remote host dead closed the connection"), dead.err.constData());
    QVERIFY2(dead.err.contains("exited with 255"), dead.err.constData()); // ssh's own failure code
    QVERIFY2(dead.err.contains("Connection refused"), dead.err.constData()); // and what ssh said, above

    Run unknown = ctl({u"--remote"_s, u"nosuch"_s, u"status"_s});
    QCOMPARE(unknown.exitCode, 1);
    QVERIFY2(unknown.err.contains("there is no remote host called nosuch") && unknown.err.contains("remote add"),
             unknown.err.constData());
    // The remote commands themselves never need the daemon, even with a bad AIRLOCK_REMOTE.
    QCOMPARE(ctl({u"remote"_s, u"ls"_s}, {{u"AIRLOCK_REMOTE"_s, u"nosuch"_s}}).exitCode, 0);
    QCOMPARE(ctl({u"remote"_s, u"rm"_s, u"dead"_s}).exitCode, 0);
    QVERIFY(!airlock::RemoteHosts().find(u"dead"_s));
}

void TestRemote::badAddsAreRefusedAndLeaveTheListAsItWas()
{
    const qsizetype before = airlock::RemoteHosts().hosts().size();
    struct Case {
        QStringList args;
        QByteArray says;
    };
    const QList<Case> cases{
        {{u"remote"_s, u"add"_s, u"local"_s, u"ssh x airlockctl proxy"_s}, "always means this computer"},
        {{u"remote"_s, u"add"_s, u"box"_s, u"ssh y airlockctl proxy"_s}, "already a host called box"},
        {{u"remote"_s, u"add"_s, u"empty"_s}, "Give the command"},
        {{u"remote"_s, u"add"_s, u"both"_s, u"ssh z"_s, u"--ssh"_s, u"z"_s}, "not both"},
        {{u"remote"_s, u"use"_s, u"nosuch"_s}, "no remote host called nosuch"},
        {{u"remote"_s, u"rm"_s, u"nosuch"_s}, "no remote host called nosuch"},
    };
    for (const Case &c : cases) {
        const Run r = ctl(c.args);
        QVERIFY2(r.exitCode == 2, qPrintable(c.args.join(u' ')));
        QVERIFY2(r.err.contains(c.says), r.err.constData());
    }
    QCOMPARE(airlock::RemoteHosts().hosts().size(), before);
    // The ssh shortcut writes the usual command.
    QCOMPARE(ctl({u"remote"_s, u"add"_s, u"devbox"_s, u"--ssh"_s, u"me@devbox"_s}).exitCode, 0);
    QCOMPARE(airlock::RemoteHosts().find(u"devbox"_s)->command,
             (QStringList{u"ssh"_s, u"me@devbox"_s, u"airlockctl"_s, u"proxy"_s}));
}

QTEST_GUILESS_MAIN(TestRemote)
#include "test_remote.moc"
