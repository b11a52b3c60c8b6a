// The desktop app end to end, tested and looked at: a real airlockd, a real TCG
// guest of the tiny image and a test HTTP server inside the network namespace of the tests.
// The guest's connection attempt shows up as a pending row within a second; a real click on
// the row and on Allow lets the guest's request complete; Deny gives the guest the 403; a
// snapshot restored from the Snapshots tab (dialog confirmed) brings the old file back.
//
// Runs inside the network namespace of the tests (CI: `ip netns exec airlock-test ctest`);
// the "outside" is 203.0.113.21 on that namespace's loopback, added and removed here.
#include "connection/daemonconnection.h"
#include "daemonharness.h"
#include "dialogs/imagebuilddialog.h"
#include "dialogs/imageimportdialog.h"
#include "dialogs/newsandboxdialog.h"
#include "dialogs/secretsdialog.h"
#include "models/egressmodel.h"
#include "models/pendingmodel.h"
#include "models/sandboxmodel.h"
#include "notify/requestnotices.h"
#include "notify/requestnotifications.h"
#include "netns.h"
#include "ociimage.h"
#include "recordinghttpserver.h"
#include "screenshot.h"
#include "views/mainwindow.h"
#include "views/networkview.h"
#include "views/pendingpanel.h"
#include "views/portsview.h"
#include "models/portsmodel.h"
#include "views/snapshotsview.h"
#include "views/terminalview.h"
#include "widgets/terminalwidget.h"
#include "widgets/decisionbar.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QInputDialog>
#include <QJsonArray>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QProgressBar>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QStandardPaths>
#include <QPushButton>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <functional>
#include <memory>
#include <unistd.h>

using namespace airlock::ui;
using namespace Qt::StringLiterals;

namespace {

const QString kOutside = u"203.0.113.21"_s;
const QByteArray kBody = "hello from the gui upstream\n";

// Waits (without blocking the event loop) for the next modal dialog and hands it to `act`:
// how a user answers a confirmation that QMessageBox::question / QInputDialog runs modally.
void answerNextDialog(QObject *context, std::function<void(QWidget *)> act, int triesLeft = 400)
{
    QTimer::singleShot(50, context, [context, act = std::move(act), triesLeft]() mutable {
        if (QWidget *dialog = QApplication::activeModalWidget())
            return act(dialog);
        if (triesLeft > 0)
            answerNextDialog(context, std::move(act), triesLeft - 1);
    });
}

} // namespace

class TestGuiGuest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aPendingRowAppearsAndAllowLetsTheGuestThrough();
    void denyGivesTheGuestThe403();
    void aNotificationsDenyButtonAnswersTheRequest();
    void restoreFromTheSnapshotsTabBringsTheOldFileBack();
    void resizingTheTerminalResizesTheGuestsConsole();
    void thePortsTabExposesAGuestServer();
    void cancelStopsAnImageBuild();
    void importImageDialogMakesAnImage();
    void aNewSandboxWithAnEgressPresetGetsItsRules();
    void theSecretsDialogOffersSignInsAndSaysWhyOneCannotStart();
    void cleanupTestCase();

private:
    QString ctlBin() const { return qEnvironmentVariable("AIRLOCKCTL_BIN"); }
    QStringList execArgs(const QStringList &argv) const
    {
        return QStringList{u"--socket"_s, m_daemon.socketPath(), u"exec"_s, m_box, u"--"_s} + argv;
    }
    // What the guest printed, its errors after it.
    QByteArray guestSh(const QString &script, int *exitCode)
    {
        const CtlResult r = m_daemon.guestSh(m_box, script, 60000);
        if (exitCode)
            *exitCode = r.exitCode;
        return r.out + r.err;
    }
    QProcess *guestCurlAsync(const QStringList &curlArgs)
    {
        auto *p = new QProcess(this);
        p->start(ctlBin(), execArgs(QStringList{u"curl"_s, u"-sS"_s, u"--max-time"_s, u"100"_s} + curlArgs));
        return p;
    }
    int pendingRowOf(const QString &host) const
    {
        const PendingModel *m = m_window->pendingModel();
        for (int row = 0; row < m->rowCount(); ++row)
            if (m->entry(row).sandbox == m_box && m->entry(row).host == host)
                return row;
        return -1;
    }
    // The broker's time of the pending attempt to `host` (ms since the epoch), 0 if unknown.
    qint64 attemptTime(const QString &host)
    {
        const CtlResult r = m_daemon.ctl({u"egress"_s, u"ls"_s, u"--pending"_s}, 15000);
        for (const QJsonValue &v : r.json().toArray())
            if (v.toObject().value("host"_L1).toString() == host)
                return QDateTime::fromString(v.toObject().value("time"_L1).toString(), Qt::ISODateWithMs).toMSecsSinceEpoch();
        return 0;
    }
    void clickPendingRow(int row);
    void waitPendingAndMeasure(const QString &host);

    DaemonHarness m_daemon;
    QTemporaryDir m_dir;
    RecordingHttpServer m_upstream{kBody};
    airlock::test::OutsideNamespace m_outside; // airlockd's own addresses are never dialled
    QString m_box;
    std::unique_ptr<DaemonConnection> m_connection;
    std::unique_ptr<MainWindow> m_window;
    QHash<QString, qint64> m_rowShownAt; // host -> wall time its pending row was inserted
};

void TestGuiGuest::initTestCase()
{
    const QString missing = airlock::test::missingVmTestPrerequisite(
        u"test_gui_guest"_s, u"libvirt's system connection, nftables, an address on the namespace's loopback"_s, u"-R test_gui_guest"_s);
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    QStandardPaths::setTestModeEnabled(true); // the window's settings are not the user's
    QSettings().remove(u"view/watchLayout"_s);
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_outside.create(u"gui"_s, kOutside, u"192.0.2.12"_s, &error), qPrintable(error));
    bool serving = false;
    airlock::test::inNamespace(m_outside.name(), [&] { serving = m_upstream.start(kOutside, 80); });
    QVERIFY2(serving, "cannot listen on 203.0.113.21:80");
    QVERIFY2(DaemonHarness::setUpstream(m_dir.path(), "203.0.113.21 gui-allow.test gui-deny.test gui-notify.test\n", {}, &error),
             qPrintable(error));

    QVERIFY2(m_daemon.startWithTinyImage(&error), qPrintable(error));
    m_box = uniqueName(u"guig"_s);
    const CtlResult created = m_daemon.ctl({u"create"_s, m_box, u"--start"_s, u"--memory"_s, u"256"_s}, 300000);
    QVERIFY2(created.exitCode == 0, created.err.constData());

    m_connection = std::make_unique<DaemonConnection>(m_daemon.socketPath());
    m_window = std::make_unique<MainWindow>(m_connection.get());
    m_window->resize(1280, 800);
    m_window->show();
    connect(m_window->pendingModel(), &PendingModel::newRequest, this, [this](const PendingModel::Entry &e) {
        if (!m_rowShownAt.contains(e.host))
            m_rowShownAt.insert(e.host, QDateTime::currentMSecsSinceEpoch());
    });
    m_connection->start();
    QTRY_COMPARE_WITH_TIMEOUT(m_connection->state(), DaemonConnection::State::Connected, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->sandboxModel()->isRunning(m_box), 20000);
    m_window->selectSandbox(m_box);
}

void TestGuiGuest::waitPendingAndMeasure(const QString &host)
{
    QTRY_VERIFY2_WITH_TIMEOUT(pendingRowOf(host) >= 0, qPrintable(u"no pending row for "_s + host), 90000);
    const qint64 attempted = attemptTime(host);
    QVERIFY2(attempted > 0, "the daemon does not list the attempt as pending");
    const qint64 latency = m_rowShownAt.value(host) - attempted;
    qInfo("attempt -> pending row for %s: %lld ms", qPrintable(host), latency);
    QVERIFY2(latency < 1000, qPrintable(u"the pending row appeared %1 ms after the attempt (limit 1000)"_s.arg(latency)));
}

void TestGuiGuest::clickPendingRow(int row)
{
    QTableView *table = m_window->pendingPanel()->table();
    QVERIFY(table->isVisible());
    const QModelIndex index = table->model()->index(row, 0);
    table->scrollTo(index);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
    QTRY_COMPARE(m_window->pendingPanel()->decisionBar()->targetId(), m_window->pendingModel()->entry(row).latestId);
}

void TestGuiGuest::aPendingRowAppearsAndAllowLetsTheGuestThrough()
{
    QProcess *curl = guestCurlAsync({u"http://gui-allow.test/please"_s});
    waitPendingAndMeasure(u"gui-allow.test"_s);
    QCOMPARE(curl->state(), QProcess::Running); // the guest waits for the answer
    // The sandbox list shows the badge.
    const int boxRow = m_window->sandboxModel()->rowOf(m_box);
    QVERIFY(boxRow >= 0);
    QTRY_COMPARE(m_window->sandboxModel()->index(boxRow, SandboxModel::Pending).data().toString(), u"1"_s);

    clickPendingRow(pendingRowOf(u"gui-allow.test"_s));
    DecisionBar *bar = m_window->pendingPanel()->decisionBar();
    QVERIFY(bar->allowButton()->isEnabled());
    saveScreenshot(m_window.get(), u"pending-row-selected"_s);
    QTest::mouseClick(bar->allowButton(), Qt::LeftButton);

    // Waiting keeps the event loop running: the click's egress.decide goes out through it.
    QTRY_VERIFY2_WITH_TIMEOUT(curl->state() == QProcess::NotRunning, "the guest's curl never finished after Allow", 60000);
    QCOMPARE(curl->exitCode(), 0);
    QCOMPARE(curl->readAllStandardOutput(), kBody);
    QVERIFY(m_upstream.requests().last().contains("Host: gui-allow.test"));
    QTRY_COMPARE(pendingRowOf(u"gui-allow.test"_s), -1);
}

void TestGuiGuest::denyGivesTheGuestThe403()
{
    // Answered in the watch layout: terminal beside the attempts, the request above them.
    m_window->setWatchLayout(true);
    const qsizetype before = m_upstream.requests().size();
    QProcess *curl = guestCurlAsync({u"-w"_s, u"\n%{http_code}"_s, u"http://gui-deny.test/secret"_s});
    waitPendingAndMeasure(u"gui-deny.test"_s);
    QWidget *console = m_window->terminalView();
    QWidget *attempts = m_window->networkView();
    QVERIFY(console->isVisible() && attempts->isVisible());
    const QRect consoleRect(console->mapTo(m_window.get(), QPoint(0, 0)), console->size());
    const QRect attemptsRect(attempts->mapTo(m_window.get(), QPoint(0, 0)), attempts->size());
    QVERIFY2(consoleRect.right() < attemptsRect.left(), "the terminal is not left of the attempts");
    QVERIFY2(consoleRect.width() > attemptsRect.width(),
             qPrintable(u"the terminal (%1 px) is narrower than the attempts (%2 px)"_s.arg(consoleRect.width()).arg(attemptsRect.width())));
    QWidget *pending = m_window->pendingPanel();
    QVERIFY2(pending->isVisible() && pending->mapTo(m_window.get(), QPoint(0, 0)).y() < consoleRect.top(),
             "the pending panel is not above the terminal");
    // The attempt waits in the list beside the terminal too.
    const EgressFilterModel *shown = m_window->networkView()->filterModel();
    const auto listed = [shown] {
        for (int row = 0; row < shown->rowCount(); ++row)
            if (shown->index(row, EgressModel::Host).data().toString() == u"gui-deny.test"_s &&
                shown->index(row, EgressModel::Proto).data().toString() == u"http"_s)
                return true;
        return false;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(listed(), "the attempts beside the terminal do not list the pending request", 5000);
    saveScreenshot(m_window.get(), u"watch-layout"_s);
    // From the keyboard, with the focus in the agent's terminal: Ctrl+Shift+N to the request,
    // Ctrl+Shift+D to deny it.
    QWidget *terminal = m_window->findChild<TerminalWidget *>();
    QVERIFY(terminal);
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    terminal->setFocus();
    const qint64 want = m_window->pendingModel()->entry(pendingRowOf(u"gui-deny.test"_s)).latestId;
    for (int i = 0; i < m_window->pendingModel()->rowCount() && m_window->pendingPanel()->decisionBar()->targetId() != want; ++i)
        QTest::keyClick(terminal, Qt::Key_N, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(m_window->pendingPanel()->decisionBar()->targetId(), want);
    QTest::keyClick(terminal, Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);

    QTRY_VERIFY2_WITH_TIMEOUT(curl->state() == QProcess::NotRunning, "the guest's curl never finished after Deny", 60000);
    const QByteArray out = curl->readAllStandardOutput();
    QVERIFY2(out.endsWith("\n403"), out.constData());
    QVERIFY2(out.contains("gui-deny.test"), out.constData());
    QCOMPARE(m_upstream.requests().size(), before);
    QTRY_COMPARE(pendingRowOf(u"gui-deny.test"_s), -1);
    m_window->setWatchLayout(false);
}

// With another window in front, a new request is a desktop notification (dunst, a real
// notification server, on the test's private D-Bus session: notification-session.sh) with
// Allow once / Deny once; pressing Deny once through dunst's own menu gives the guest the
// 403, and the notification goes.
void TestGuiGuest::aNotificationsDenyButtonAnswersTheRequest()
{
    const QString choiceFile = qEnvironmentVariable("AIRLOCK_NOTIFY_CHOICE");
    QVERIFY2(!choiceFile.isEmpty(), "not run inside tests/gui/notification-session.sh");
    RequestNotifications *notifications = m_window->requestNotices()->notifications();
    QTRY_VERIFY2(notifications->available() && notifications->hasActions(), "the session's notification server shows no actions");
    const auto dunstctl = [](const QStringList &args) {
        QProcess p;
        p.start(u"dunstctl"_s, args);
        p.waitForFinished(10000);
        return p.readAllStandardOutput().trimmed();
    };
    QWidget inFront;
    inFront.show();
    inFront.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&inFront));
    QVERIFY(!m_window->isActiveWindow());

    const qsizetype before = m_upstream.requests().size();
    QProcess *curl = guestCurlAsync({u"-w"_s, u"\n%{http_code}"_s, u"http://gui-notify.test/from-a-notification"_s});
    waitPendingAndMeasure(u"gui-notify.test"_s);
    QTRY_COMPARE(notifications->shownCount(), 1);
    QTRY_COMPARE(dunstctl({u"count"_s, u"displayed"_s}), QByteArray("1"));
    if (const QString shots = qEnvironmentVariable("AIRLOCK_SCREENSHOTS"); !shots.isEmpty()) {
        // dunst draws on the wrapper's Xvfb display: the notification as the desktop shows it.
        QFile display(qEnvironmentVariable("AIRLOCK_NOTIFY_DIR") + u"/display"_s);
        QVERIFY(display.open(QIODevice::ReadOnly));
        QTest::qWait(500);
        QDir().mkpath(shots);
        QProcess::execute(u"import"_s, {u"-display"_s, u":"_s + QString::fromLatin1(display.readAll().trimmed()), u"-window"_s,
                                        u"root"_s, u"-crop"_s, u"640x200+640+0"_s, shots + u"/notification.png"_s});
    }
    {
        QFile choice(choiceFile);
        QVERIFY(choice.open(QIODevice::WriteOnly | QIODevice::Truncate));
        choice.write("Deny once");
    }
    dunstctl({u"context"_s});

    QTRY_VERIFY2_WITH_TIMEOUT(curl->state() == QProcess::NotRunning, "the guest's curl never finished after Deny once", 60000);
    const QByteArray out = curl->readAllStandardOutput();
    QVERIFY2(out.endsWith("\n403"), out.constData());
    QCOMPARE(m_upstream.requests().size(), before);
    QTRY_COMPARE(pendingRowOf(u"gui-notify.test"_s), -1);
    QTRY_COMPARE(dunstctl({u"count"_s, u"displayed"_s}), QByteArray("0"));
    QCOMPARE(notifications->shownCount(), 0);
    QVERIFY2(m_window->statusBar()->currentMessage().contains(u"Denied gui-notify.test once, from the notification"_s),
             qPrintable(m_window->statusBar()->currentMessage()));
    // Once: no rule was made, so the next attempt asks again.
    const CtlResult rules = m_daemon.ctl({u"--json"_s, u"rule"_s, u"ls"_s, m_box});
    QVERIFY2(!rules.out.contains("gui-notify.test"), rules.out.constData());
}

void TestGuiGuest::restoreFromTheSnapshotsTabBringsTheOldFileBack()
{
    const QString file = u"/root/gui-restore.txt"_s;
    int rc = -1;
    QByteArray out = guestSh(u"echo before-snapshot > %1 && sync"_s.arg(file), &rc);
    QVERIFY2(rc == 0, out.constData());

    // What the console shows at the checkpoint comes back with it: the visible rows only.
    const auto onScreen = [](const TerminalWidget *t, const QString &text) {
        for (int row = 0; row < t->rows(); ++row)
            if (t->lineText(row).contains(text))
                return true;
        return false;
    };
    const auto type = [](TerminalWidget *t, const QString &line) {
        t->setFocus();
        QTest::keyClicks(t, line);
        QTest::keyClick(t, Qt::Key_Return);
    };
    QVERIFY(m_window->showTab(u"terminal"_s));
    QTRY_VERIFY(m_window->terminalView()->terminal(m_box));
    TerminalWidget *terminal = m_window->terminalView()->terminal(m_box);
    type(terminal, u"echo before-$((6*7))"_s);
    QTRY_VERIFY2_WITH_TIMEOUT(onScreen(terminal, u"before-42"_s), "the guest's answer did not reach the terminal", 60000);

    QVERIFY(m_window->showTab(u"snapshots"_s));
    SnapshotsView *view = m_window->snapshotsView();
    QTRY_VERIFY(view->createButton()->isEnabled());
    bool labelAsked = false;
    answerNextDialog(this, [&labelAsked](QWidget *dialog) {
        auto *input = qobject_cast<QInputDialog *>(dialog);
        if (!input)
            return;
        labelAsked = true;
        input->setTextValue(u"gui-before"_s);
        input->accept();
    });
    QTest::mouseClick(view->createButton(), Qt::LeftButton);
    QVERIFY2(labelAsked, "Create did not ask for a label");
    QTreeWidgetItem *snapshot = nullptr;
    auto findSnapshot = [&] {
        const QList<QTreeWidgetItem *> found = view->tree()->findItems(u"gui-before"_s, Qt::MatchStartsWith | Qt::MatchRecursive);
        snapshot = found.isEmpty() ? nullptr : found.first();
        return snapshot != nullptr;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(findSnapshot(), qPrintable(u"no snapshot in the tree: "_s + view->message()), 180000);
    // The tree is read again whenever a snapshot comes or goes (an automatic one too): the
    // item is found again right before each click.
    auto selectSnapshot = [&] {
        if (!findSnapshot())
            return false;
        QTest::mouseClick(view->tree()->viewport(), Qt::LeftButton, {}, view->tree()->visualItemRect(snapshot).center());
        return view->tree()->currentItem() == snapshot && view->restoreButton()->isEnabled();
    };
    // Taken of a running sandbox, it is a checkpoint: the Kind column says so, with its size.
    QVERIFY2(snapshot->text(1).startsWith(u"checkpoint, "_s), qPrintable(snapshot->text(1)));

    // The schedule control sets the sandbox's automatic checkpoints, and back off.
    QTRY_VERIFY(view->everyBox()->isEnabled());
    QCOMPARE(view->everyBox()->currentData().toInt(), 0);
    view->everyBox()->setFocus();
    QTest::keyClick(view->everyBox(), Qt::Key_Down);
    QTRY_COMPARE_WITH_TIMEOUT(m_daemon.ctl({u"snapshot"_s, u"auto"_s, m_box}, 15000).json().toObject().value(u"every_s"_s).toInteger(),
                              qint64(300), 15000);
    QTest::keyClick(view->everyBox(), Qt::Key_Up);
    QTRY_COMPARE_WITH_TIMEOUT(m_daemon.ctl({u"snapshot"_s, u"auto"_s, m_box}, 15000).json().toObject().value(u"every_s"_s).toInteger(),
                              qint64(0), 15000);

    out = guestSh(u"echo after-snapshot > %1 && sync && cat %1"_s.arg(file), &rc);
    QCOMPARE(out, QByteArray("after-snapshot\n"));
    QVERIFY(m_window->showTab(u"terminal"_s));
    type(terminal, u"printf '\\033[H\\033[2J'; echo after-$((5*5))"_s);
    QTRY_VERIFY2_WITH_TIMEOUT(onScreen(terminal, u"after-25"_s) && !onScreen(terminal, u"before-42"_s), "the screen was not cleared", 60000);
    QVERIFY(m_window->showTab(u"snapshots"_s));

    QTRY_VERIFY_WITH_TIMEOUT(selectSnapshot(), 30000);
    QString question;
    answerNextDialog(this, [&question](QWidget *dialog) {
        auto *box = qobject_cast<QMessageBox *>(dialog);
        if (!box)
            return;
        question = box->text();
        QTest::mouseClick(box->button(QMessageBox::Yes), Qt::LeftButton);
    });
    QTest::mouseClick(view->restoreButton(), Qt::LeftButton);
    QVERIFY2(question.contains(u"is running"_s), qPrintable(u"restoring a running sandbox was not confirmed: "_s + question));
    QTRY_VERIFY2_WITH_TIMEOUT(view->message().startsWith(u"Restored"_s) || view->message().startsWith(u"Could not"_s),
                              qPrintable(view->message()), 300000);
    QCOMPARE(view->message(), u"Restored."_s);
    saveScreenshot(m_window.get(), u"snapshot-restored"_s);
    QVERIFY(m_window->showTab(u"terminal"_s));
    QTRY_VERIFY2_WITH_TIMEOUT(onScreen(terminal, u"before-42"_s) && !onScreen(terminal, u"after-25"_s),
                              "the terminal does not show the checkpoint's screen", 30000);
    saveScreenshot(m_window.get(), u"checkpoint-screen"_s);

    out = guestSh(u"cat %1"_s.arg(file), &rc);
    QCOMPARE(out, QByteArray("before-snapshot\n"));

    // Fork… of the checkpoint: the copy runs on from it at once, at its own address.
    QVERIFY(m_window->showTab(u"snapshots"_s));
    QTRY_VERIFY_WITH_TIMEOUT(selectSnapshot(), 30000);
    const QString fork = m_box + u"-live"_s;
    answerNextDialog(this, [&fork](QWidget *dialog) {
        if (auto *input = qobject_cast<QInputDialog *>(dialog)) {
            input->setTextValue(fork);
            input->accept();
        }
    });
    QTest::mouseClick(view->forkButton(), Qt::LeftButton);
    QTRY_VERIFY2_WITH_TIMEOUT(view->message().startsWith(u"Forked into"_s) || view->message().startsWith(u"Could not"_s),
                              qPrintable(view->message()), 300000);
    QVERIFY2(view->message().contains(u"runs on from the checkpoint"_s), qPrintable(view->message()));
    const CtlResult inFork = m_daemon.guestSh(fork, u"cat %1; hostname"_s.arg(file), 60000);
    QCOMPARE(inFork.out, QByteArray("before-snapshot\n") + fork.toLatin1() + '\n');
    saveScreenshot(m_window.get(), u"live-fork"_s);
    QVERIFY(m_daemon.killAndRemove(fork));
}

void TestGuiGuest::resizingTheTerminalResizesTheGuestsConsole()
{
    QVERIFY(m_window->showTab(u"terminal"_s));
    TerminalWidget *terminal = m_window->terminalView()->terminal(m_box);
    QVERIFY(terminal);
    terminal->setTerminalSize(33, 101);
    QByteArray size;
    QTRY_VERIFY_WITH_TIMEOUT((size = guestSh(u"stty -F /dev/ttyS0 size"_s, nullptr).trimmed()) == "33 101", 20000);
}

// The Ports tab: Expose with the guest's port typed in, the row says where it is reached,
// this machine's curl gets the guest's page there, Open hands that URL to the desktop, and
// Remove closes it.
void TestGuiGuest::thePortsTabExposesAGuestServer()
{
    int rc = -1;
    guestSh(u"mkdir -p /tmp/www && echo served-from-the-guest > /tmp/www/index.html && httpd -p 8088 -h /tmp/www"_s, &rc);
    QCOMPARE(rc, 0);
    QVERIFY(m_window->showTab(u"ports"_s));
    PortsView *view = m_window->portsView();
    QVERIFY(view->isVisible());
    view->guestPortBox()->setValue(8088);
    QCOMPARE(view->hostPortBox()->value(), 0); // "same, or any free"
    QTest::mouseClick(view->exposeButton(), Qt::LeftButton);
    QTRY_VERIFY2_WITH_TIMEOUT(view->model()->rowCount() == 1 && view->model()->portAt(0)->listening, qPrintable(view->message()), 20000);
    const airlock::proto::ExposedPortInfo port = *view->model()->portAt(0);
    QCOMPARE(port.guestPort, 8088);
    QVERIFY2(view->message().contains(PortsModel::urlOf(port)), qPrintable(view->message()));

    QByteArray page;
    QCOMPARE(airlock::test::run(u"curl"_s, {u"-sS"_s, u"--max-time"_s, u"20"_s, PortsModel::urlOf(port) + u"index.html"_s}, &page), 0);
    QCOMPARE(page, QByteArray("served-from-the-guest\n"));
    // The shown tab follows the traffic of its ports.
    QTRY_VERIFY_WITH_TIMEOUT(view->model()->rowCount() == 1 && view->model()->portAt(0)->bytesFromGuest > 0, 10000);

    QTableView *table = view->table();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(view->model()->index(0, 0)).center());
    QTRY_VERIFY(view->openButton()->isEnabled());
    QString opened;
    auto link = connect(view, &PortsView::openRequested, this, [&opened](const QString &url) { opened = url; });
    QTest::mouseClick(view->openButton(), Qt::LeftButton);
    disconnect(link);
    QCOMPARE(opened, PortsModel::urlOf(port));
    saveScreenshot(m_window.get(), u"ports-tab"_s);
    // What a browser opening that address shows: headless Chromium reads the page and takes a
    // picture of it (AIRLOCK_SCREENSHOTS/exposed-page.png when set). It runs in this test's
    // network namespace, where the exposed port is, with its background traffic turned off.
    const QString shotDir = qEnvironmentVariable("AIRLOCK_SCREENSHOTS", m_dir.path());
    QDir().mkpath(shotDir);
    const QString shot = QDir(shotDir).filePath(u"exposed-page.png"_s);
    const QStringList chromium{u"--headless"_s, u"--no-sandbox"_s, u"--disable-gpu"_s, u"--disable-background-networking"_s,
                               u"--disable-component-update"_s, u"--no-first-run"_s, u"--user-data-dir="_s + m_dir.filePath(u"chromium"_s)};
    QByteArray dom;
    QCOMPARE(airlock::test::run(u"chromium"_s, chromium + QStringList{u"--dump-dom"_s, opened + u"index.html"_s}, &dom, 120000), 0);
    QVERIFY2(dom.contains("served-from-the-guest"), dom.left(500).constData());
    QFile::remove(shot);
    QCOMPARE(airlock::test::run(u"chromium"_s, chromium + QStringList{u"--window-size=800,300"_s, u"--screenshot="_s + shot,
                                                                       opened + u"index.html"_s}, nullptr, 120000), 0);
    QVERIFY2(QFileInfo(shot).size() > 1000, qPrintable(shot));

    QTest::mouseClick(view->removeButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(view->model()->rowCount(), 0, 20000);
    QVERIFY(airlock::test::run(u"curl"_s, {u"-sS"_s, u"--max-time"_s, u"5"_s, PortsModel::urlOf(port)}) != 0);
}

void TestGuiGuest::cancelStopsAnImageBuild()
{
    const QString image = uniqueName(u"cancelled"_s);
    ImageBuildDialog dialog(m_connection.get());
    dialog.show();
    QVERIFY(!dialog.cancelButton()->isEnabled());
    dialog.recipeEdit()->setText(u"tiny"_s);
    dialog.nameEdit()->setText(image);
    QTest::mouseClick(dialog.buildButton(), Qt::LeftButton);
    QVERIFY(dialog.isBuilding());
    // The daemon's progress reaches the bar, then the user cancels.
    QTRY_VERIFY2_WITH_TIMEOUT(dialog.progressBar()->value() > 0, qPrintable(dialog.message()), 60000);
    QVERIFY2(dialog.isBuilding(), qPrintable(u"the build ended before it could be cancelled: "_s + dialog.message()));
    QVERIFY(dialog.cancelButton()->isEnabled());
    saveScreenshot(&dialog, u"image-build-progress"_s);
    QTest::mouseClick(dialog.cancelButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isBuilding(), 60000);
    saveScreenshot(&dialog, u"image-build-cancelled"_s);
    QVERIFY2(dialog.message().contains(u"cancelled"_s), qPrintable(dialog.message()));
    QVERIFY(dialog.buildButton()->isEnabled());
    // Nothing of it is kept.
    const CtlResult images = m_daemon.ctl({u"image"_s, u"ls"_s});
    QCOMPARE(images.exitCode, 0);
    QVERIFY2(!images.out.contains(image.toUtf8()), images.out.constData());

    // Cancelling a build that does not run says so.
    bool answered = false;
    airlock::ApiClient::Reply reply;
    m_connection->client()->call(u"image.cancel"_s, {{u"name"_s, image}}, this, [&](const airlock::ApiClient::Reply &r) {
        reply = r;
        answered = true;
    });
    QTRY_VERIFY(answered);
    QVERIFY(!reply.ok);
    QVERIFY2(reply.errorMessage.contains(u"nothing to cancel"_s), qPrintable(reply.errorMessage));
}

// File > Import image…: a wrong path is said in the dialog, an OCI layout becomes an image the
// daemon lists, with the upload's and the import's progress on the bar.
void TestGuiGuest::importImageDialogMakesAnImage()
{
    QTemporaryDir tmp;
    QString error;
    const QString busybox = cachedBusybox(tmp.path(), &error);
    QVERIFY2(!busybox.isEmpty(), qPrintable(error));
    QVERIFY2(makeOciImage({tmp.filePath(u"img"_s), busybox, {u"--config.workingdir"_s, u"/srv"_s}}, &error), qPrintable(error));
    const QString image = uniqueName(u"guiimp"_s);
    ImageImportDialog dialog(m_connection.get());
    dialog.show();
    dialog.nameEdit()->setText(image);
    dialog.pathEdit()->setText(tmp.filePath(u"nowhere"_s));
    QTest::mouseClick(dialog.importButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isImporting(), 30000);
    QVERIFY2(dialog.message().contains(u"is not an OCI layout directory"_s), qPrintable(dialog.message()));
    saveScreenshot(&dialog, u"image-import-refused"_s);
    // A dev container that names a registry image: the dialog says how to import it instead.
    auto *kind = dialog.findChild<QComboBox *>();
    QVERIFY(kind && kind->count() == 4);
    kind->setCurrentIndex(3);
    QFile dev(tmp.filePath(u".devcontainer.json"_s));
    QVERIFY(dev.open(QIODevice::WriteOnly));
    dev.write(R"({"image": "mcr.microsoft.com/devcontainers/base:bookworm", /* from the registry */})");
    dev.close();
    dialog.pathEdit()->setText(tmp.path());
    QTest::mouseClick(dialog.importButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isImporting(), 30000);
    QVERIFY2(dialog.message().contains(u"which Airlock does not pull"_s) && dialog.message().contains(u"skopeo copy docker://"_s),
             qPrintable(dialog.message()));
    kind->setCurrentIndex(0);

    dialog.pathEdit()->setText(tmp.filePath(u"img/layout"_s));
    QTest::mouseClick(dialog.importButton(), Qt::LeftButton);
    QVERIFY(dialog.isImporting());
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isImporting(), 300000);
    saveScreenshot(&dialog, u"image-import-done"_s);
    QVERIFY2(dialog.message().contains(u"is ready"_s), qPrintable(dialog.message()));
    QCOMPARE(dialog.progressBar()->value(), 100);
    const CtlResult images = m_daemon.ctl({u"image"_s, u"ls"_s});
    QVERIFY2(images.out.contains(image.toUtf8()), images.out.constData());
    QCOMPARE(m_daemon.ctl({u"image"_s, u"rm"_s, image}).exitCode, 0);
}

void TestGuiGuest::aNewSandboxWithAnEgressPresetGetsItsRules()
{
    NewSandboxDialog dialog(m_connection->client());
    dialog.show();
    // The presets are the daemon's (preset.list): they arrive with its answer.
    QTRY_VERIFY2(dialog.presetCombo()->findData(u"npm"_s) > 0, "the daemon's npm preset is not offered");
    const int npm = dialog.presetCombo()->findData(u"npm"_s);
    QVERIFY(dialog.presetCombo()->itemData(npm, Qt::ToolTipRole).toString().contains(u"registry.npmjs.org:443"_s));
    const QString name = uniqueName(u"preset"_s);
    QTest::keyClicks(dialog.nameEdit(), name);
    dialog.presetCombo()->setCurrentIndex(npm);
    auto *start = dialog.findChild<QCheckBox *>();
    QVERIFY(start);
    start->setChecked(false);
    saveScreenshot(&dialog, u"new-sandbox-preset"_s);
    dialog.accept();
    QTRY_VERIFY2_WITH_TIMEOUT(dialog.result() == QDialog::Accepted, qPrintable(dialog.errorText()), 120000);
    const CtlResult rules = m_daemon.ctl({u"rule"_s, u"ls"_s, name});
    m_daemon.ctl({u"rm"_s, name}, 60000);
    QCOMPARE(rules.exitCode, 0);
    bool found = false;
    for (const QJsonValue &v : rules.json().toArray()) {
        const QJsonObject r = v.toObject();
        found = found || (r.value("pattern"_L1).toString() == "registry.npmjs.org"_L1 && r.value("port"_L1).toInt() == 443 &&
                          r.value("action"_L1).toString() == "allow"_L1 && r.value("sandbox"_L1).toString() == name);
    }
    QVERIFY2(found, rules.out.constData());

    // A preset with a parameter: the dialog asks for its value, and the rule names it.
    NewSandboxDialog withOrg(m_connection->client());
    withOrg.show();
    QTRY_VERIFY(withOrg.presetCombo()->findData(u"github-push-to-org"_s) > 0);
    QVERIFY(!withOrg.presetValuesEdit()->isVisible());
    const QString pushes = uniqueName(u"pushorg"_s);
    QTest::keyClicks(withOrg.nameEdit(), pushes);
    withOrg.presetCombo()->setCurrentIndex(withOrg.presetCombo()->findData(u"github-push-to-org"_s));
    QVERIFY(withOrg.presetValuesEdit()->isVisible());
    QCOMPARE(withOrg.presetValuesEdit()->placeholderText(), u"org=…"_s);
    QTest::keyClicks(withOrg.presetValuesEdit(), u"org=myorg"_s);
    withOrg.findChild<QCheckBox *>()->setChecked(false);
    saveScreenshot(&withOrg, u"new-sandbox-preset-parameter"_s);
    withOrg.accept();
    QTRY_VERIFY2_WITH_TIMEOUT(withOrg.result() == QDialog::Accepted, qPrintable(withOrg.errorText()), 120000);
    const CtlResult orgRules = m_daemon.ctl({u"rule"_s, u"ls"_s, pushes});
    m_daemon.ctl({u"rm"_s, pushes}, 60000);
    bool pushRule = false;
    for (const QJsonValue &v : orgRules.json().toArray()) {
        const QJsonObject r = v.toObject();
        pushRule = pushRule || (r.value("git"_L1).toString() == "push"_L1 && r.value("repo"_L1).toString() == "myorg/*"_L1 &&
                                r.value("origin"_L1).toString() == "preset github-push-to-org (org=myorg)"_L1);
    }
    QVERIFY2(pushRule, orgRules.out.constData());
    // Without its value, or with a pattern for a value: refused, and nothing is made.
    for (const QString &preset : {u"github-push-to-org"_s, u"github-push-to-org:org=*"_s}) {
        const QString refusedName = uniqueName(u"noorg"_s);
        const CtlResult refused = m_daemon.ctl({u"create"_s, refusedName, u"--preset"_s, preset}, 60000);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(preset.contains(u'=') ? "a value is one name" : "needs org"), refused.err.constData());
        const CtlResult ls = m_daemon.ctl({u"ls"_s});
        QVERIFY2(!ls.out.contains(refusedName.toUtf8()), ls.out.constData());
    }
}

// Vault > Secrets…: the templates that sign in are offered, the table has the sign-in's columns,
// and a sign-in that cannot start (this daemon's vault is locked and its data dir has no agents
// image) says why in the
// dialog and makes no sandbox. The sign-in itself is `secret login`'s path (test_agents).
void TestGuiGuest::theSecretsDialogOffersSignInsAndSaysWhyOneCannotStart()
{
    SecretsDialog dialog(m_connection->client());
    dialog.show();
    QTRY_VERIFY2(dialog.signInButton()->isEnabled(), "no template with a sign-in is offered");
    QStringList offered;
    for (int i = 0; i < dialog.signInTemplates()->count(); ++i)
        offered << dialog.signInTemplates()->itemText(i);
    QCOMPARE(offered, QStringList({u"claude-code"_s, u"codex"_s})); // shell has no sign-in
    QStringList columns;
    for (int c = 0; c < dialog.table()->columnCount(); ++c)
        columns << dialog.table()->horizontalHeaderItem(c)->text();
    QVERIFY2(columns.contains(u"Sign-in"_s) && columns.contains(u"Expires"_s), qPrintable(columns.join(u", "_s)));
    QTest::mouseClick(dialog.signInButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.messageText().startsWith(u"Could not start the sign-in: "_s), 60000);
    saveScreenshot(&dialog, u"secrets-sign-in"_s);
    QVERIFY(dialog.isVisible()); // nothing to show in the main window
    QVERIFY(dialog.signInSandbox().isEmpty());
    for (const QJsonValue &v : m_daemon.ctl({u"ls"_s}).json().toArray())
        QVERIFY2(!v.toObject().value("name"_L1).toString().startsWith("signin-"_L1), "a refused sign-in left a sandbox");
}

void TestGuiGuest::cleanupTestCase()
{
    m_window.reset();
    m_connection.reset();
    if (!m_box.isEmpty()) {
        m_daemon.ctl({u"kill"_s, m_box}, 60000);
        m_daemon.ctl({u"rm"_s, m_box}, 60000);
    }
    m_daemon.stop();
    m_upstream.stop();
    m_outside.remove();
}

QTEST_MAIN(TestGuiGuest)
#include "test_gui_guest.moc"
