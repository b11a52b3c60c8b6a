// The GUI's twins of create --workspace and export, with real widgets (offscreen) against a
// real airlockd and a real TCG sandbox: the New sandbox dialog refuses a directory that is
// not a repository and stays open, then copies a repository in while the GUI thread keeps
// running; Sandbox > Export changes… brings a guest commit back as a bundle and as patches;
// Cancel during the copy removes the half-made sandbox.
// With AIRLOCK_SCREENSHOTS set the dialogs are saved as PNGs there (tests/gui/screenshot.h, run under Xvfb).
#include "api/apiclient.h"
#include "connection/daemonconnection.h"
#include "daemonharness.h"
#include "dialogs/exportdialog.h"
#include "dialogs/newsandboxdialog.h"
#include "gitrepo.h"
#include "../gui/screenshot.h"
#include "models/sandboxmodel.h"
#include "views/mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace airlock;
using namespace airlock::ui;

class TestGuiWorkspace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void newSandboxDialogCopiesTheRepository();
    void exportChangesBringsTheCommitBack();
    void cancelDuringTheCopyRemovesTheSandbox();
    void runAgentOnAFolderShowsItsTerminalAndLeavesNothing();
    void cleanupTestCase();

private:
    QString guestOut(const QString &script) const;
    DaemonHarness m_daemon;
    QTemporaryDir m_tmp;
    QString m_repo;
    QString m_box;
};

void TestGuiWorkspace::initTestCase()
{
    QString error;
    QVERIFY2(m_daemon.startWithTinyImage(&error), qPrintable(error));
    m_repo = m_tmp.filePath(QStringLiteral("project"));
    QVERIFY(QDir().mkpath(m_repo));
    QVERIFY2(makeSampleRepository(m_repo, &error), qPrintable(error));
}

QString TestGuiWorkspace::guestOut(const QString &script) const
{
    const CtlResult r = m_daemon.ctl({QStringLiteral("exec"), m_box, QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
    return QString::fromUtf8(QByteArray::fromBase64(r.json().toObject().value(QLatin1String("stdout_b64")).toString().toLatin1())).trimmed();
}

void TestGuiWorkspace::newSandboxDialogCopiesTheRepository()
{
    ApiClient client;
    client.connectTo(m_daemon.socketPath());
    QTRY_VERIFY(client.isConnected());
    NewSandboxDialog dialog(&client);
    dialog.show();
    m_box = uniqueName(QStringLiteral("guiws"));
    dialog.nameEdit()->setText(m_box);
    auto *start = dialog.findChild<QCheckBox *>();
    QVERIFY(start && start->isEnabled());

    // Not a repository: said in the dialog, which stays open; nothing is created.
    const QString plain = m_tmp.filePath(QStringLiteral("plain"));
    QVERIFY(QDir().mkpath(plain));
    dialog.workspaceEdit()->setText(plain);
    QVERIFY(start->isChecked() && !start->isEnabled()); // a workspace needs a running guest
    saveScreenshot(&dialog, QStringLiteral("new-sandbox-workspace"));
    dialog.accept();
    QTRY_VERIFY_WITH_TIMEOUT(dialog.messageLabel()->text().contains(QLatin1String("is not a git repository")), 30000);
    QVERIFY(dialog.isVisible());
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QVERIFY(!m_daemon.ctl({QStringLiteral("ls")}).out.contains(m_box.toUtf8()));
    saveScreenshot(&dialog, QStringLiteral("new-sandbox-not-a-repository"));

    // A repository: created, started and copied in, while the GUI thread keeps turning
    // (a timer samples the progress line the worker reports).
    dialog.workspaceEdit()->setText(m_repo);
    QStringList seen;
    QTimer sampler;
    connect(&sampler, &QTimer::timeout, this, [&] {
        const QString text = dialog.messageLabel()->text();
        if (seen.isEmpty() || seen.last() != text)
            seen << text;
    });
    sampler.start(20);
    dialog.accept();
    QTRY_COMPARE_WITH_TIMEOUT(dialog.result(), int(QDialog::Accepted), 300000);
    sampler.stop();
    QVERIFY2(seen.filter(QStringLiteral("copying")).size() + seen.filter(QStringLiteral("cloning")).size() > 0, qPrintable(seen.join(QLatin1String(" | "))));
    const QJsonObject created = dialog.createdSandbox();
    QCOMPARE(created.value(QLatin1String("name")).toString(), m_box);
    const QString hostHead = runGit(m_repo, {QStringLiteral("rev-parse"), QStringLiteral("HEAD")}).text();
    QCOMPARE(created.value(QLatin1String("workspace")).toObject().value(QLatin1String("base")).toString(), hostHead);
    QCOMPARE(guestOut(QStringLiteral("git -C /workspace rev-parse HEAD")), hostHead);
}

void TestGuiWorkspace::exportChangesBringsTheCommitBack()
{
    QVERIFY2(!m_box.isEmpty(), "needs the sandbox of the dialog test");
    const QString commit = guestOut(QStringLiteral("cd /workspace && echo gui >> README && git commit -qam 'agent: from the gui test' && git rev-parse HEAD"));
    QCOMPARE(commit.size(), 40);

    DaemonConnection connection(m_daemon.socketPath());
    MainWindow window(&connection);
    window.show();
    connection.start();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(window.sandboxModel()->rowOf(m_box) >= 0, 20000);
    window.selectSandbox(m_box);
    QTRY_VERIFY(window.exportChangesAction()->isEnabled());

    ExportDialog *dialog = window.exportChanges();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QSignalSpy done(dialog, &ExportDialog::exportFinished);
    const QString bundle = m_tmp.filePath(QStringLiteral("gui.bundle"));
    dialog->formatBox()->setCurrentIndex(dialog->formatBox()->findData(QStringLiteral("bundle")));
    dialog->destinationEdit()->setText(bundle);
    saveScreenshot(dialog, QStringLiteral("export-changes"));
    QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 120000);
    QVERIFY2(done.at(0).at(0).toBool(), qPrintable(dialog->messageLabel()->text()));
    QVERIFY2(dialog->messageLabel()->text().contains(QLatin1String("Exported 1 commit")), qPrintable(dialog->messageLabel()->text()));
    saveScreenshot(dialog, QStringLiteral("export-changes-done"));
    const QString review = m_tmp.filePath(QStringLiteral("review"));
    QCOMPARE(runGit(m_tmp.path(), {QStringLiteral("clone"), QStringLiteral("-q"), m_repo, review}).exitCode, 0);
    QCOMPARE(runGit(review, {QStringLiteral("fetch"), QStringLiteral("-q"), bundle, QStringLiteral("main")}).exitCode, 0);
    QCOMPARE(runGit(review, {QStringLiteral("rev-parse"), QStringLiteral("FETCH_HEAD")}).text(), commit);

    // Patches from the same dialog; then the same destination again is refused, in the dialog.
    const QString patches = m_tmp.filePath(QStringLiteral("gui-patches"));
    dialog->formatBox()->setCurrentIndex(dialog->formatBox()->findData(QStringLiteral("patches")));
    dialog->destinationEdit()->setText(patches);
    dialog->startExport();
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 2, 120000);
    QVERIFY2(done.at(1).at(0).toBool(), qPrintable(dialog->messageLabel()->text()));
    QCOMPARE(QDir(patches).entryList(QDir::Files), QStringList{QStringLiteral("0001-agent-from-the-gui-test.patch")});
    dialog->startExport();
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 3, 120000);
    QVERIFY(!done.at(2).at(0).toBool());
    QVERIFY2(dialog->messageLabel()->text().contains(QLatin1String("is not empty")), qPrintable(dialog->messageLabel()->text()));
    saveScreenshot(dialog, QStringLiteral("export-changes-refused"));
    dialog->close();
}

void TestGuiWorkspace::cancelDuringTheCopyRemovesTheSandbox()
{
    const QString big = m_tmp.filePath(QStringLiteral("big"));
    QVERIFY(QDir().mkpath(big));
    QString error;
    QVERIFY2(makeSampleRepository(big, &error), qPrintable(error));
    QVERIFY2(addBigCommit(big, 24, &error), qPrintable(error));
    ApiClient client;
    client.connectTo(m_daemon.socketPath());
    QTRY_VERIFY(client.isConnected());
    NewSandboxDialog dialog(&client);
    dialog.show();
    const QString name = uniqueName(QStringLiteral("guicancel"));
    dialog.nameEdit()->setText(name);
    dialog.workspaceEdit()->setText(big);
    dialog.accept();
    // Cancel while the bundle is being copied: the dialog says so, removes the sandbox, closes.
    QTRY_VERIFY_WITH_TIMEOUT(dialog.messageLabel()->text().startsWith(QLatin1String("copying")), 240000);
    dialog.reject();
    QVERIFY(dialog.isVisible());
    QVERIFY2(dialog.messageLabel()->text().contains(QLatin1String("Cancelling")), qPrintable(dialog.messageLabel()->text()));
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isVisible(), 120000);
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    const CtlResult ls = m_daemon.ctl({QStringLiteral("ls")});
    QCOMPARE(ls.exitCode, 0);
    QVERIFY2(!ls.out.contains(name.toUtf8()), ls.out.constData());
}

// File > Run agent on a folder…: the New sandbox dialog opens with the folder as the
// workspace; an ephemeral sandbox is made, selected, its terminal shown, and once it is killed
// nothing of it is left.
void TestGuiWorkspace::runAgentOnAFolderShowsItsTerminalAndLeavesNothing()
{
    DaemonConnection connection(m_daemon.socketPath());
    MainWindow window(&connection);
    window.show();
    connection.start();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), DaemonConnection::State::Connected, 10000);
    const QString name = uniqueName(QStringLiteral("guirun"));
    bool filled = false;
    QTimer::singleShot(0, this, [&] {
        auto *dialog = qobject_cast<NewSandboxDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        filled = dialog->workspaceEdit()->text() == m_repo && dialog->windowTitle().contains(m_repo);
        dialog->nameEdit()->setText(name);
        dialog->ephemeralCheck()->setChecked(true);
        saveScreenshot(dialog, QStringLiteral("run-agent-on-a-folder"));
        dialog->accept();
    });
    QVERIFY2(window.runAgentOn(m_repo), "the dialog did not make a sandbox");
    QVERIFY2(filled, "the dialog did not open with the folder as the workspace");
    QTRY_COMPARE_WITH_TIMEOUT(window.currentSandbox(), name, 20000);
    QVERIFY(window.showTab(QStringLiteral("terminal"))); // already the current tab: showing it again changes nothing
    QCOMPARE(m_daemon.guestSh(name, QStringLiteral("git -C /workspace log --oneline | wc -l")).exitCode, 0);
    // Ephemeral: the kill removes it, disk and all.
    const CtlResult killed = m_daemon.ctl({QStringLiteral("kill"), name}, 120000);
    QVERIFY2(killed.exitCode == 0 && killed.out.contains("removed"), QByteArray(killed.out + killed.err).constData());
    QTRY_VERIFY_WITH_TIMEOUT(window.sandboxModel()->rowOf(name) < 0, 20000);
}

void TestGuiWorkspace::cleanupTestCase()
{
    if (!m_box.isEmpty()) {
        m_daemon.ctl({QStringLiteral("kill"), m_box}, 60000);
        m_daemon.ctl({QStringLiteral("rm"), m_box}, 60000);
    }
    m_daemon.stop();
}

QTEST_MAIN(TestGuiWorkspace)
#include "test_gui_workspace.moc"
