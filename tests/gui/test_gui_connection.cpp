// The main window against a real airlockd process: connects and shows the daemon's status,
// says why when the daemon goes away and comes back by itself, starts a daemon when none
// runs, and shows airlockd's own error when it cannot start.
#include "connection/daemonconnection.h"
#include "daemonprocess.h"
#include "models/sandboxmodel.h"
#include "views/connectionbanner.h"
#include "views/mainwindow.h"

#include <QFile>
#include <QLabel>
#include <QStackedWidget>
#include <QTableView>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>

using namespace airlock::ui;

class TestGuiConnection : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void connectsAndShowsStatus();
    void reconnectsAfterDaemonRestart();
    void startsDaemonWhenNoneRuns();
    void showsStartFailureWithDetails();
    void saysWhatToDoWhenNothingListens();
};

void TestGuiConnection::connectsAndShowsStatus()
{
    DaemonProcess daemon;
    QVERIFY2(daemon.start(), qPrintable(daemon.log()));
    DaemonConnection connection(daemon.socketPath());
    MainWindow window(&connection);
    window.show();
    connection.start();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);
    QTRY_VERIFY(window.statusText().contains(QLatin1String("airlockd " AIRLOCK_VERSION)));
    const QString status = window.statusText();
    QVERIFY2(status.contains(QLatin1String("Connected to airlockd")), qPrintable(status));
    QVERIFY2(status.contains(connection.status().libvirtUri), qPrintable(status));
    const QString accel = connection.status().accel;
    QVERIFY2(accel == QLatin1String("tcg") ? status.contains(QLatin1String("TCG emulation")) : status.contains(QLatin1String("KVM")),
             qPrintable(status));
    QVERIFY2(status.contains(QLatin1String("no vault yet")), qPrintable(status));
    QVERIFY2(status.contains(QLatin1String("0 sandbox")), qPrintable(status));
    QVERIFY(!window.connectionBanner()->isVisible());

    // The sandbox list is either live or says plainly that this daemon cannot list sandboxes.
    auto *stack = qobject_cast<QStackedWidget *>(window.sandboxTable()->parentWidget());
    QVERIFY(stack);
    QTRY_VERIFY(window.sandboxModel()->availability() != SandboxModel::Unknown);
    auto *placeholder = qobject_cast<QLabel *>(stack->currentWidget());
    if (window.sandboxModel()->availability() == SandboxModel::NotAvailable)
        QVERIFY(placeholder && placeholder->text().contains(QLatin1String("not available")));
    else
        QVERIFY(stack->currentWidget() == window.sandboxTable() || (placeholder && placeholder->text().contains(QLatin1String("No sandboxes"))));
}

void TestGuiConnection::reconnectsAfterDaemonRestart()
{
    DaemonProcess daemon;
    QVERIFY2(daemon.start(), qPrintable(daemon.log()));
    DaemonConnection connection(daemon.socketPath());
    connection.setReconnectInterval(300);
    MainWindow window(&connection);
    window.show();
    connection.start();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);

    QCOMPARE(daemon.stop(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::NotConnected, 5000);
    QTRY_VERIFY(window.connectionBanner()->isVisible());
    const QString banner = window.connectionBanner()->text();
    QVERIFY2(banner.contains(QLatin1String("Not connected")) && banner.contains(QLatin1String("lost")), qPrintable(banner));
    QVERIFY2(window.statusText().contains(QLatin1String("Not connected")), qPrintable(window.statusText()));
    QVERIFY(!window.statusText().contains(QLatin1String("airlockd " AIRLOCK_VERSION)));

    // Stays disconnected (no daemon of its own: the user's daemon was stopped on purpose)...
    QTest::qWait(1000);
    QCOMPARE(connection.state(), DaemonConnection::State::NotConnected);
    // ...and reconnects by itself once the daemon is back.
    QVERIFY2(daemon.start(), qPrintable(daemon.log()));
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);
    QTRY_VERIFY(window.statusText().contains(QLatin1String("airlockd " AIRLOCK_VERSION)));
    QTRY_VERIFY(!window.connectionBanner()->isVisible());
}

void TestGuiConnection::startsDaemonWhenNoneRuns()
{
    QTemporaryDir dir;
    const QString socket = dir.path() + QStringLiteral("/airlockd.sock");
    const QString data = dir.path() + QStringLiteral("/data");
    // airlock starts `airlockd --socket S`; its data directory comes from the environment.
    qputenv("AIRLOCK_HOME", QFile::encodeName(data));
    DaemonConnection connection(socket);
    connection.setDaemonProgram(DaemonProcess::daemonBinary());
    MainWindow window(&connection);
    window.show();
    QSignalSpy states(&connection, &DaemonConnection::stateChanged);
    connection.start();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 20000);
    qunsetenv("AIRLOCK_HOME");
    bool sawStarting = false;
    for (const auto &args : states)
        sawStarting |= args.at(0).value<DaemonConnection::State>() == DaemonConnection::State::StartingDaemon;
    QVERIFY(sawStarting);
    QTRY_VERIFY(window.statusText().contains(QLatin1String("airlockd " AIRLOCK_VERSION)));
    QVERIFY(QFile::exists(socket));

    // The daemon outlives the window (it is the user's daemon now); the test stops it.
    QFile lock(data + QStringLiteral("/airlockd.lock"));
    QVERIFY(lock.open(QIODevice::ReadOnly));
    const pid_t pid = pid_t(lock.readAll().trimmed().toLongLong());
    QVERIFY(pid > 1);
    QCOMPARE(::kill(pid, SIGTERM), 0);
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::NotConnected, 10000);
}

void TestGuiConnection::showsStartFailureWithDetails()
{
    QTemporaryDir dir;
    const QString socket = dir.path() + QStringLiteral("/airlockd.sock");
    qputenv("AIRLOCK_HOME", "/proc/airlock-cannot-live-here");
    DaemonConnection connection(socket);
    connection.setDaemonProgram(DaemonProcess::daemonBinary());
    MainWindow window(&connection);
    window.show();
    connection.start();
    QTRY_VERIFY_WITH_TIMEOUT(connection.state() == DaemonConnection::State::NotConnected && !connection.details().isEmpty(), 20000);
    qunsetenv("AIRLOCK_HOME");
    QVERIFY2(connection.reason().contains(QLatin1String("failed to start")), qPrintable(connection.reason()));
    // airlockd's own words, as it printed them, are one click away.
    QVERIFY2(connection.details().contains(QLatin1String("airlockd:")), qPrintable(connection.details()));
    QVERIFY2(connection.details().contains(QLatin1String("/proc/airlock-cannot-live-here")), qPrintable(connection.details()));
    QVERIFY(window.connectionBanner()->isVisible());
    QVERIFY(window.connectionBanner()->text().contains(QLatin1String("Retry")));
}

void TestGuiConnection::saysWhatToDoWhenNothingListens()
{
    QTemporaryDir dir;
    DaemonConnection connection(dir.path() + QStringLiteral("/nobody.sock"));
    connection.setDaemonProgram(DaemonProcess::daemonBinary());
    connection.setAutoStart(false); // airlock --no-start-daemon
    MainWindow window(&connection);
    window.show();
    connection.start();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::NotConnected, 5000);
    QVERIFY2(connection.reason().startsWith(QLatin1String("No airlockd is listening on ") + dir.path()), qPrintable(connection.reason()));
    QVERIFY2(connection.hint().startsWith(QLatin1String("Start airlockd")), qPrintable(connection.hint()));
    QVERIFY(!QFile::exists(dir.path() + QStringLiteral("/nobody.sock"))); // no daemon was started
    QVERIFY(window.connectionBanner()->isVisible());
}

QTEST_MAIN(TestGuiConnection)
#include "test_gui_connection.moc"
