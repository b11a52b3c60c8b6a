// Remote hosts: the window reaches an airlockd through a command's stdin/stdout, as
// `ssh host airlockctl proxy` does. Without a network the transport is `airlockctl proxy` run
// locally: the same bytes ssh would carry. Two real airlockd processes stand for this computer
// and the remote machine (the remote one has a vault, so the two are told apart); the Hosts
// menu switches between them, and a broken command says what failed and what to do.
#include "api/blockingclient.h"
#include "common/workspacejob.h"
#include "connection/daemonconnection.h"
#include "api/remotehosts.h"
#include "daemonprocess.h"
#include "dialogs/remotehostdialog.h"
#include "models/sandboxmodel.h"
#include "screenshot.h"
#include "views/connectionbanner.h"
#include "showandconnect.h"
#include "views/mainwindow.h"

#include <QAction>
#include <QFile>
#include <QJsonObject>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace airlock::ui;
using airlock::RemoteHosts;
using namespace Qt::StringLiterals;

namespace {
QAction *hostAction(MainWindow &window, const QString &label)
{
    for (QAction *a : window.hostsMenu()->actions())
        if (a->text() == label)
            return a;
    return nullptr;
}
QString vaultOf(const DaemonConnection &c)
{
    return airlock::proto::toString(c.status().vault);
}
} // namespace

class TestGuiRemote : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void switchesBetweenThisComputerAndARemoteHost();
    void startsWhereAirlockctlWouldGo();
    void aBrokenCommandSaysWhatFailed();
    void hostsAreKept();
    void hostsAnEarlierVersionKeptAreShared();
};

void TestGuiRemote::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // the user's own settings stay untouched
    QVERIFY2(!DaemonProcess::ctlBinary().isEmpty(), "AIRLOCKCTL_BIN is not set: run through ctest");
}

void TestGuiRemote::init()
{
    QFile::remove(airlock::RemoteHosts::filePath());
    QSettings().remove(u"remote-hosts"_s);
}

void TestGuiRemote::switchesBetweenThisComputerAndARemoteHost()
{
    DaemonProcess local, remote;
    QVERIFY2(local.start(), qPrintable(local.log()));
    QVERIFY2(remote.start(), qPrintable(remote.log()));
    const DaemonProcess::CtlResult init = remote.ctl({u"vault"_s, u"init"_s}, "remote-passphrase\n");
    QVERIFY2(init.exitCode == 0, init.err.constData());

    DaemonConnection connection(local.socketPath());
    MainWindow window(&connection);
    showAndConnect(connection, window);
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);
    QCOMPARE(vaultOf(connection), u"uninitialised"_s);
    QVERIFY(hostAction(window, u"This computer"_s) && hostAction(window, u"This computer"_s)->isChecked());

    // The user adds the host: the command follows the ssh destination until edited by hand.
    RemoteHostDialog dialog(window.remoteHosts(), &window);
    dialog.show();
    QTest::keyClicks(dialog.destinationEdit(), u"me@devbox"_s);
    QCOMPARE(dialog.commandEdit()->text(), u"ssh me@devbox airlockctl proxy"_s);
    QCOMPARE(dialog.nameEdit()->text(), u"devbox"_s);
    dialog.commandEdit()->selectAll();
    QTest::keyClicks(dialog.commandEdit(), u"%1 --socket %2 proxy"_s.arg(DaemonProcess::ctlBinary(), remote.socketPath()));
    saveScreenshot(&dialog, u"remote-host-dialog"_s);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));

    QAction *devbox = hostAction(window, u"devbox"_s);
    QVERIFY2(devbox, "the new host is not in the Hosts menu");
    devbox->trigger();
    QCOMPARE(window.currentHost(), u"devbox"_s);
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);
    QTRY_COMPARE(vaultOf(connection), u"unlocked"_s); // the remote daemon's status, not ours
    QVERIFY2(window.statusText().contains(u"Connected to airlockd on devbox"_s), qPrintable(window.statusText()));
    QVERIFY2(window.statusText().contains(QLatin1String("airlockd " AIRLOCK_VERSION)), qPrintable(window.statusText()));
    QTRY_VERIFY(window.sandboxModel()->availability() != SandboxModel::Unknown); // sandbox.list went through

    // A workspace copy opens a second connection on a worker: to the remote host too, not to
    // this computer's airlockd (the remote one has the unlocked vault).
    WorkspaceJob *job = WorkspaceJob::start(connection.client()->address(), [](airlock::BlockingClient &client, const auto &) {
        airlock::Result<QJsonValue> status = client.call(u"status"_s);
        return status ? airlock::Result<QJsonObject>(status->toObject()) : airlock::Result<QJsonObject>(status.error());
    });
    QJsonObject jobStatus;
    QString jobError;
    bool jobDone = false;
    connect(job, &WorkspaceJob::finished, this, [&](bool, const QJsonObject &result, const QString &error) {
        jobStatus = result;
        jobError = error;
        jobDone = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(jobDone, 20000);
    QVERIFY2(jobError.isEmpty(), qPrintable(jobError));
    QCOMPARE(jobStatus.value(u"vault"_s).toString(), u"unlocked"_s);
    QVERIFY(!window.connectionBanner()->isVisible());
    saveScreenshot(&window, u"remote-host-connected"_s);

    // Back to this computer, and over again: switching is instant and keeps no stale state.
    hostAction(window, u"This computer"_s)->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);
    QCOMPARE(vaultOf(connection), u"uninitialised"_s);
    QVERIFY(!window.statusText().contains(u"devbox"_s));
    hostAction(window, u"devbox"_s)->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(vaultOf(connection), u"unlocked"_s, 10000);

    // The remote airlockd goes away: the window says so and how to fix it.
    remote.stop();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::NotConnected, 10000);
    QTRY_VERIFY(window.connectionBanner()->isVisible());
}

// The app starts on the remote `airlockctl remote use` chose, unless told otherwise (the
// same order as airlockctl's: --remote, --socket, AIRLOCK_REMOTE, AIRLOCK_SOCKET, remote use).
void TestGuiRemote::startsWhereAirlockctlWouldGo()
{
    DaemonProcess remote;
    QVERIFY2(remote.start(), qPrintable(remote.log()));
    QVERIFY(remote.ctl({u"vault"_s, u"init"_s}, "remote-passphrase\n").exitCode == 0);
    const QByteArray savedRemote = qgetenv("AIRLOCK_REMOTE"), savedSocket = qgetenv("AIRLOCK_SOCKET");
    qunsetenv("AIRLOCK_REMOTE");
    qunsetenv("AIRLOCK_SOCKET");
    // What `remote add` and `remote use` write (here, in this test's own config directory).
    RemoteHosts hosts;
    QVERIFY(hosts.add(u"devbox"_s, {DaemonProcess::ctlBinary(), u"--socket"_s, remote.socketPath(), u"proxy"_s}).isEmpty());
    QVERIFY(hosts.setCurrent(u"devbox"_s).isEmpty());
    QCOMPARE(hosts.chosen(std::nullopt, false), u"devbox"_s);
    QCOMPARE(hosts.chosen(u"local"_s, false), QString());
    QCOMPARE(hosts.chosen(std::nullopt, true), QString()); // --socket: that daemon
    qputenv("AIRLOCK_SOCKET", "/run/elsewhere.sock");
    QCOMPARE(hosts.chosen(std::nullopt, false), QString());
    qputenv("AIRLOCK_REMOTE", "local");
    QCOMPARE(hosts.chosen(std::nullopt, false), QString());

    // As the app's main does it: the window comes up on the remote, never on this computer.
    qunsetenv("AIRLOCK_REMOTE");
    qunsetenv("AIRLOCK_SOCKET");
    DaemonConnection connection(u"/nonexistent/airlockd.sock"_s);
    MainWindow window(&connection);
    QVERIFY(window.connectToHost(window.remoteHosts()->chosen(std::nullopt, false)));
    window.show();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);
    QTRY_COMPARE(vaultOf(connection), u"unlocked"_s);
    QVERIFY2(window.statusText().contains(u"Connected to airlockd on devbox"_s), qPrintable(window.statusText()));

    // The app itself (with the user's own list), told a host nobody added: it says so and
    // does not start.
    QProcess app;
    app.setProcessEnvironment([] {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
        return env;
    }());
    app.start(qEnvironmentVariable("AIRLOCK_APP_BIN"), {u"--remote"_s, u"nowhere"_s, u"--no-start-daemon"_s});
    QVERIFY2(app.waitForFinished(20000), "the app kept running with an unknown --remote");
    QCOMPARE(app.exitCode(), 2);
    QVERIFY2(app.readAllStandardError().contains("there is no remote host called nowhere"), "no word about the unknown host");
    app.start(qEnvironmentVariable("AIRLOCK_APP_BIN"), {u"--remote"_s, u"devbox"_s, u"--socket"_s, u"/x.sock"_s});
    QVERIFY(app.waitForFinished(20000));
    QCOMPARE(app.exitCode(), 2);
    QVERIFY(app.readAllStandardError().contains("--remote and --socket name two daemons"));

    qputenv("AIRLOCK_REMOTE", savedRemote);
    qputenv("AIRLOCK_SOCKET", savedSocket);
    if (savedRemote.isNull())
        qunsetenv("AIRLOCK_REMOTE");
    if (savedSocket.isNull())
        qunsetenv("AIRLOCK_SOCKET");
}

void TestGuiRemote::aBrokenCommandSaysWhatFailed()
{
    DaemonProcess local;
    QVERIFY2(local.start(), qPrintable(local.log()));
    DaemonConnection connection(local.socketPath());
    MainWindow window(&connection);
    showAndConnect(connection, window);
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);

    // A program that does not exist (ssh missing, a typo).
    QVERIFY(window.remoteHosts()->add(u"nowhere"_s, {u"/nonexistent/ssh"_s, u"devbox"_s, u"airlockctl"_s, u"proxy"_s}).isEmpty());
    QVERIFY(window.connectToHost(u"nowhere"_s));
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::NotConnected, 10000);
    QVERIFY2(connection.reason().contains(u"/nonexistent/ssh"_s), qPrintable(connection.reason()));
    QVERIFY2(connection.hint().contains(u"ssh"_s) && connection.hint().contains(u"Retry"_s), qPrintable(connection.hint()));
    QVERIFY(window.connectionBanner()->isVisible());
    saveScreenshot(&window, u"remote-host-unreachable"_s);

    // The command runs but no airlockd answers there: its own error reaches the user.
    QVERIFY(window.remoteHosts()->add(u"nodaemon"_s, {DaemonProcess::ctlBinary(), u"--socket"_s, u"/nonexistent/airlockd.sock"_s,
                                                     u"proxy"_s}).isEmpty());
    QVERIFY(window.connectToHost(u"nodaemon"_s));
    QTRY_VERIFY_WITH_TIMEOUT(connection.reason().contains(u"/nonexistent/airlockd.sock"_s), 10000);
    QCOMPARE(connection.state(), DaemonConnection::State::NotConnected);

    // Bad input to the list is refused with the reason.
    QVERIFY(window.remoteHosts()->add(u"nodaemon"_s, {u"ssh"_s}).contains(u"already"_s));
    QVERIFY(window.remoteHosts()->add(u"x"_s, {}).contains(u"command"_s));
    QVERIFY(!window.connectToHost(u"no-such-host"_s));

    // This computer still works after all that.
    QVERIFY(window.connectToHost(QString()));
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);
}

void TestGuiRemote::hostsAreKept()
{
    {
        RemoteHosts hosts;
        QVERIFY(hosts.add(u"devbox"_s, RemoteHosts::sshCommand(u"me@devbox"_s)).isEmpty());
    }
    RemoteHosts again; // as the next start of the app reads them
    QCOMPARE(again.hosts().size(), 1);
    QCOMPARE(again.hosts().first().name, u"devbox"_s);
    QCOMPARE(again.hosts().first().command, (QStringList{u"ssh"_s, u"me@devbox"_s, u"airlockctl"_s, u"proxy"_s}));
    again.remove(u"devbox"_s);
    QCOMPARE(RemoteHosts().hosts().size(), 0);
}

// Before the list was shared with airlockctl the app kept it in its own settings: the first
// start after the update moves it into the shared file, and it is not read twice.
void TestGuiRemote::hostsAnEarlierVersionKeptAreShared()
{
    {
        QSettings old;
        old.beginWriteArray(u"remote-hosts"_s, 1);
        old.setArrayIndex(0);
        old.setValue(u"name"_s, u"oldbox"_s);
        old.setValue(u"command"_s, QStringList{u"ssh"_s, u"oldbox"_s, u"airlockctl"_s, u"proxy"_s});
        old.endArray();
    }
    const RemoteHosts moved;
    QCOMPARE(moved.hosts().size(), 1);
    QCOMPARE(moved.hosts().first().name, u"oldbox"_s);
    QVERIFY(QFile::exists(RemoteHosts::filePath()));
    QVERIFY(!QSettings().contains(u"remote-hosts/size"_s));
    QCOMPARE(RemoteHosts().hosts().size(), 1);
}

QTEST_MAIN(TestGuiRemote)
#include "test_gui_remote.moc"
