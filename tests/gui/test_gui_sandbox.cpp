// The main window with a real sandbox (real airlockd, libvirt, TCG VM): the sandbox shows up
// running in the list, its Terminal tab shows the console and a command typed into the
// terminal widget runs in the guest and answers on screen.
#include "connection/daemonconnection.h"
#include "daemonharness.h"
#include "models/sandboxmodel.h"
#include "views/mainwindow.h"
#include "views/terminalview.h"
#include "widgets/terminalwidget.h"

#include <QTest>

using namespace airlock::ui;

class TestGuiSandbox : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void terminalRunsAGuestCommand();
    void cleanupTestCase();

private:
    static bool screenContains(const TerminalWidget *t, const QString &text);
    DaemonHarness m_daemon;
    QString m_box;
};

void TestGuiSandbox::initTestCase()
{
    QString error;
    QVERIFY2(m_daemon.startWithTinyImage(&error), qPrintable(error));
    m_box = uniqueName(QStringLiteral("gui"));
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), m_box, QStringLiteral("--start"), QStringLiteral("--memory"),
                                            QStringLiteral("256")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
}

bool TestGuiSandbox::screenContains(const TerminalWidget *t, const QString &text)
{
    for (int row = 0; row < t->rows(); ++row)
        if (t->lineText(row).contains(text))
            return true;
    for (int line = 0; line < t->scrollbackLines(); ++line)
        if (t->scrollbackLineText(line).contains(text))
            return true;
    return false;
}

void TestGuiSandbox::terminalRunsAGuestCommand()
{
    DaemonConnection connection(m_daemon.socketPath());
    MainWindow window(&connection);
    window.show();
    connection.start();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(window.sandboxModel()->isRunning(m_box), 20000);
    const int row = window.sandboxModel()->rowOf(m_box);
    QCOMPARE(window.sandboxModel()->index(row, SandboxModel::State).data().toString(), QStringLiteral("running"));
    QVERIFY(!window.sandboxModel()->index(row, SandboxModel::Ip).data().toString().isEmpty());

    window.selectSandbox(m_box);
    window.showTab(QStringLiteral("terminal"));
    QTRY_VERIFY(window.terminalView()->terminal(m_box));
    TerminalWidget *t = window.terminalView()->terminal(m_box);
    t->setFocus();
    // The history from before the window opened: the guest has printed something on its console.
    QTRY_VERIFY_WITH_TIMEOUT(t->scrollbackLines() > 0 || !t->lineText(0).isEmpty() || t->cursorPosition() != QPoint(0, 0), 30000);

    // Typed into the widget, sent with console.write, answered through "console:<name>" events.
    QTest::keyClicks(t, QStringLiteral("echo gui-$((6*7))"));
    QTest::keyClick(t, Qt::Key_Return);
    QTRY_VERIFY2_WITH_TIMEOUT(screenContains(t, QStringLiteral("gui-42")), "the guest's answer did not reach the terminal", 60000);
}

void TestGuiSandbox::cleanupTestCase()
{
    if (m_box.isEmpty())
        return;
    m_daemon.ctl({QStringLiteral("kill"), m_box}, 60000);
    m_daemon.ctl({QStringLiteral("rm"), m_box}, 60000);
}

QTEST_MAIN(TestGuiSandbox)
#include "test_gui_sandbox.moc"
