// Views and dialogs against a real airlockd: each either works end to end or, where this
// daemon lacks the method, says plainly that the feature is not available yet, never
// showing a raw error or breaking.
#include "api/apiclient.h"
#include "connection/daemonconnection.h"
#include "daemonprocess.h"
#include "dialogs/newsandboxdialog.h"
#include "widgets/checkpointschedulefields.h"
#include "dialogs/vaultdialog.h"
#include "views/mainwindow.h"
#include "views/networkview.h"
#include "dialogs/policyimportdialog.h"
#include "widgets/policybutton.h"
#include "screenshot.h"
#include "views/snapshotsview.h"
#include "views/terminalview.h"
#include "views/watchlayout.h"
#include "widgets/flowlayout.h"
#include "models/egressmodel.h"
#include "models/sandboxmodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QFormLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSqlDatabase>
#include <QSignalSpy>
#include <QSettings>
#include <QSplitter>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTranslator>
#include <QTreeWidget>

using namespace airlock::ui;

class TestGuiViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void vaultDialogRefusesMismatch();
    void vaultDialogInitsAndUnlocks();
    void networkViewLoadsOrSaysNotAvailable();
    void policyFilesFromTheNetworkView();
    void snapshotsViewLoadsOrSaysNotAvailable();
    void newSandboxDialogBuildsTheRequest();
    void translationsAreEmbedded();
    void watchLayoutPutsTheTerminalBesideTheAttempts();
    void flowLayoutWrapsWhenNarrow();

private:
    bool hasMethod(const QString &method, const QJsonObject &params = {});
    void clickOk(QDialog &dialog);

    DaemonProcess *m_daemon = nullptr;
    DaemonConnection *m_connection = nullptr;
    MainWindow *m_window = nullptr;
};

void TestGuiViews::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // the window's settings are not the user's
    QSettings().remove(QStringLiteral("view/watchLayout"));
    m_daemon = new DaemonProcess;
    QVERIFY2(m_daemon->start(), qPrintable(m_daemon->log()));
    m_connection = new DaemonConnection(m_daemon->socketPath());
    m_window = new MainWindow(m_connection);
    m_window->show();
    m_connection->start();
    QTRY_COMPARE_WITH_TIMEOUT(m_connection->state(), DaemonConnection::State::Connected, 10000);
}

void TestGuiViews::cleanupTestCase()
{
    delete m_window;
    delete m_connection;
    delete m_daemon;
}

bool TestGuiViews::hasMethod(const QString &method, const QJsonObject &params)
{
    bool done = false, missing = false;
    m_connection->client()->call(method, params, this, [&](const airlock::ApiClient::Reply &r) {
        missing = !r.ok && r.errorCode == -32601;
        done = true;
    });
    for (int i = 0; i < 1000 && !done; ++i)
        QTest::qWait(10);
    return done && !missing;
}

void TestGuiViews::clickOk(QDialog &dialog)
{
    auto *box = dialog.findChild<QDialogButtonBox *>();
    QVERIFY(box);
    QTest::mouseClick(box->button(QDialogButtonBox::Ok), Qt::LeftButton);
}

void TestGuiViews::vaultDialogRefusesMismatch()
{
    VaultDialog dialog(m_connection->client(), VaultDialog::Mode::Init);
    dialog.show();
    QTest::keyClicks(dialog.passphraseEdit(), QStringLiteral("correct horse"));
    QTest::keyClicks(dialog.confirmEdit(), QStringLiteral("correct h0rse"));
    clickOk(dialog);
    QVERIFY(dialog.isVisible());
    QVERIFY2(dialog.errorLabel()->text().contains(QLatin1String("differ")), qPrintable(dialog.errorLabel()->text()));
    dialog.confirmEdit()->setText(QStringLiteral("short"));
    dialog.passphraseEdit()->setText(QStringLiteral("short"));
    clickOk(dialog);
    QVERIFY2(dialog.errorLabel()->text().contains(QLatin1String("at least")), qPrintable(dialog.errorLabel()->text()));
}

void TestGuiViews::vaultDialogInitsAndUnlocks()
{
    const bool vault = hasMethod(QStringLiteral("vault.status"));
    {
        VaultDialog init(m_connection->client(), VaultDialog::Mode::Init);
        init.show();
        QTest::keyClicks(init.passphraseEdit(), QStringLiteral("correct horse battery"));
        QTest::keyClicks(init.confirmEdit(), QStringLiteral("correct horse battery"));
        clickOk(init);
        if (!vault) {
            QTRY_COMPARE(init.errorLabel()->text(), QStringLiteral("This airlockd has no vault yet."));
            QVERIFY(init.isVisible());
            return;
        }
        QTRY_VERIFY_WITH_TIMEOUT(!init.isVisible(), 20000);
        QCOMPARE(init.result(), int(QDialog::Accepted));
        QVERIFY(init.passphraseEdit()->text().isEmpty()); // not kept around
    }
    QVERIFY(hasMethod(QStringLiteral("vault.lock")));
    m_connection->refreshStatus();
    QTRY_VERIFY(m_window->statusText().contains(QLatin1String("vault locked")));

    VaultDialog unlock(m_connection->client(), VaultDialog::Mode::Unlock);
    unlock.show();
    QTest::keyClicks(unlock.passphraseEdit(), QStringLiteral("wrong horse battery"));
    clickOk(unlock);
    QTRY_VERIFY_WITH_TIMEOUT(!unlock.errorLabel()->text().isEmpty() && unlock.errorLabel()->text() != QStringLiteral("Working…"), 20000);
    QVERIFY(unlock.isVisible()); // a wrong passphrase keeps the dialog open with the daemon's reason
    unlock.passphraseEdit()->setText(QStringLiteral("correct horse battery"));
    clickOk(unlock);
    QTRY_VERIFY2_WITH_TIMEOUT(!unlock.isVisible(), qPrintable(unlock.errorLabel()->text()), 20000);
    m_connection->refreshStatus();
    QTRY_VERIFY(m_window->statusText().contains(QLatin1String("vault unlocked")));
}

void TestGuiViews::networkViewLoadsOrSaysNotAvailable()
{
    const bool egress = hasMethod(QStringLiteral("egress.list"), {{QStringLiteral("limit"), 1}});
    EgressModel model;
    NetworkView view(m_connection->client(), &model);
    view.show();
    view.setSandbox(QStringLiteral("nobody"));
    auto *stack = view.findChild<QStackedWidget *>();
    QVERIFY(stack);
    if (!egress) {
        QTRY_VERIFY(qobject_cast<QLabel *>(stack->currentWidget()));
        QVERIFY(qobject_cast<QLabel *>(stack->currentWidget())->text().contains(QLatin1String("not available")));
    } else {
        QTest::qWait(500);
        QCOMPARE(stack->currentIndex(), 0);
        QVERIFY(view.table()->isVisible());
    }
}

// Export one sandbox's rules from the Network tab, import them into another after seeing the
// difference, and a file the daemon refuses changes nothing.
void TestGuiViews::policyFilesFromTheNetworkView()
{
    {
        // Sandbox rows as the engine writes them: rules and policies only need the names.
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("gui-policy"));
        db.setDatabaseName(m_daemon->dataDir() + QStringLiteral("/airlock.db"));
        QVERIFY(db.open());
        QSqlQuery q(db);
        QVERIFY(q.exec(QStringLiteral("INSERT OR IGNORE INTO images(name, recipe, kernel, initrd, rootfs, created) "
                                      "VALUES ('tiny', 'tiny', 'k', 'i', 'r', '2026-01-01T00:00:00Z')")));
        QVERIFY(q.exec(QStringLiteral("INSERT INTO sandboxes(name, owner_uid, image, cpus, memory_mib, disk_gib, mac, created) VALUES "
                                      "('web', 0, 'tiny', 1, 256, 1, '52:54:00:cc:00:01', '2026-01-01T00:00:00Z'), "
                                      "('web2', 0, 'tiny', 1, 256, 1, '52:54:00:cc:00:02', '2026-01-01T00:00:00Z')")));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("gui-policy"));
    const QStringList add{QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--sandbox"), QStringLiteral("web"), QStringLiteral("--action")};
    QCOMPARE(m_daemon->ctl(add + QStringList{QStringLiteral("allow"), QStringLiteral("--host"), QStringLiteral("api.example.org"),
                                             QStringLiteral("--port"), QStringLiteral("443")}).exitCode, 0);
    QCOMPARE(m_daemon->ctl(add + QStringList{QStringLiteral("deny"), QStringLiteral("--host"), QStringLiteral("*.ads.example")}).exitCode, 0);

    EgressModel model;
    NetworkView view(m_connection->client(), &model);
    view.resize(1000, 600);
    view.show();
    // No sandbox yet: only the global rules can be exported or imported into.
    QVERIFY(view.policyButton()->isEnabled());
    QCOMPARE(view.policyButton()->sandboxActions().size(), 3);
    for (QAction *action : view.policyButton()->sandboxActions())
        QVERIFY2(!action->isEnabled(), qPrintable(action->text()));
    view.setSandbox(QStringLiteral("web"));
    for (QAction *action : view.policyButton()->sandboxActions())
        QVERIFY2(action->isEnabled(), qPrintable(action->text()));
    const QString file = m_daemon->dataDir() + QStringLiteral("/../web-policy.json");
    view.policyButton()->saveTo(PolicyButton::Source::Rules, file);
    QTRY_VERIFY2(view.policyStatus().contains(QLatin1String("Saved 2 rule")), qPrintable(view.policyStatus()));
    QFile saved(file);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QVERIFY(saved.readAll().contains("\"api.example.org\""));
    saveScreenshot(&view, QStringLiteral("network-policy-saved"));
    // This sandbox never ran: its session decided nothing, and the file says so (in YAML,
    // which its name asks for).
    const QString learned = m_daemon->dataDir() + QStringLiteral("/../web-learned.yaml");
    view.policyButton()->saveTo(PolicyButton::Source::SessionDecisions, learned);
    QTRY_VERIFY2(view.policyStatus().contains(QLatin1String("Saved 0 rule")), qPrintable(view.policyStatus()));
    QFile learnedFile(learned);
    QVERIFY(learnedFile.open(QIODevice::ReadOnly));
    const QByteArray learnedYaml = learnedFile.readAll();
    QVERIFY2(learnedYaml.contains("\nairlock_policy: 1\n") && learnedYaml.endsWith("\nrules: []\n"), learnedYaml.constData());

    view.setSandbox(QStringLiteral("web2"));
    PolicyImportDialog *dialog = view.policyButton()->importFrom(file);
    QVERIFY(dialog);
    dialog->show();
    QTRY_COMPARE(dialog->changes()->count(), 2);
    QVERIFY2(dialog->changes()->item(0)->text().startsWith(QLatin1String("+ allow api.example.org:443")),
             qPrintable(dialog->changes()->item(0)->text()));
    QVERIFY(dialog->applyButton()->isEnabled());
    saveScreenshot(dialog, QStringLiteral("policy-import"));
    QSignalSpy applied(dialog, &PolicyImportDialog::applied);
    QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
    QTRY_COMPARE(applied.count(), 1);
    QVERIFY2(view.policyStatus().contains(QLatin1String("Applied: 2 added")), qPrintable(view.policyStatus()));
    const DaemonProcess::CtlResult ls = m_daemon->ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("web2")});
    int ofWeb2 = 0;
    for (const QJsonValue &v : QJsonDocument::fromJson(ls.out).array())
        ofWeb2 += v.toObject().value(QLatin1String("sandbox")).toString() == QLatin1String("web2");
    QCOMPARE(ofWeb2, 2);

    // The same file again: nothing to apply. A file the daemon refuses: said, nothing applied.
    PolicyImportDialog *again = view.policyButton()->importFrom(file);
    again->show();
    QTRY_VERIFY2(again->status().contains(QLatin1String("Nothing to change")), qPrintable(again->status()));
    QVERIFY(!again->applyButton()->isEnabled());
    again->close();
    QFile bad(m_daemon->dataDir() + QStringLiteral("/../bad-policy.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "x.example", "prot": 22}]})");
    bad.close();
    PolicyImportDialog *refused = view.policyButton()->importFrom(bad.fileName());
    refused->show();
    QTRY_VERIFY2(refused->status().contains(QLatin1String("unknown key 'prot'")), qPrintable(refused->status()));
    QVERIFY(!refused->applyButton()->isEnabled());
    QCOMPARE(refused->changes()->count(), 0);
    saveScreenshot(refused, QStringLiteral("policy-import-refused"));
    refused->close();
    QVERIFY(!view.policyButton()->importFrom(m_daemon->dataDir() + QStringLiteral("/no-such.json")));
    QVERIFY2(view.policyStatus().contains(QLatin1String("there is no such file")), qPrintable(view.policyStatus()));

    // The global rules: web's file imported into them, then exported as YAML, then taken out.
    PolicyImportDialog *global = view.policyButton()->importFrom(file, PolicyButton::Into::GlobalRules);
    QVERIFY(global);
    global->show();
    QTRY_COMPARE(global->changes()->count(), 2);
    QVERIFY2(global->windowTitle().contains(QLatin1String("the global rules")), qPrintable(global->windowTitle()));
    saveScreenshot(global, QStringLiteral("policy-import-global"));
    QSignalSpy appliedGlobally(global, &PolicyImportDialog::applied);
    QTest::mouseClick(global->applyButton(), Qt::LeftButton);
    QTRY_COMPARE(appliedGlobally.count(), 1);
    const QString globalFile = m_daemon->dataDir() + QStringLiteral("/../global-policy.yaml");
    view.policyButton()->saveTo(PolicyButton::Source::GlobalRules, globalFile);
    QTRY_VERIFY2(view.policyStatus().contains(QLatin1String("Saved 2 rule")), qPrintable(view.policyStatus()));
    QFile globalSaved(globalFile);
    QVERIFY(globalSaved.open(QIODevice::ReadOnly));
    const QByteArray globalYaml = globalSaved.readAll();
    QVERIFY2(globalYaml.contains("  - action: \"allow\"\n    host: \"api.example.org\"\n    port: 443\n"), globalYaml.constData());
    const DaemonProcess::CtlResult globalLs = m_daemon->ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")});
    QStringList removed;
    for (const QJsonValue &v : QJsonDocument::fromJson(globalLs.out).array())
        if (v.toObject().value(QLatin1String("scope")).toString() == QLatin1String("global") &&
            v.toObject().value(QLatin1String("origin")).toString().contains(QLatin1String("web-policy.json")))
            removed << QString::number(v.toObject().value(QLatin1String("id")).toInteger());
    QCOMPARE(removed.size(), 2);
    for (const QString &id : std::as_const(removed))
        QCOMPARE(m_daemon->ctl({QStringLiteral("rule"), QStringLiteral("rm"), id}).exitCode, 0);
}

void TestGuiViews::snapshotsViewLoadsOrSaysNotAvailable()
{
    const bool snapshots = hasMethod(QStringLiteral("snapshot.list"), {{QStringLiteral("sandbox"), QStringLiteral("nobody")}});
    SandboxModel sandboxes;
    SnapshotsView view(m_connection->client(), &sandboxes);
    view.show();
    view.setSandbox(QStringLiteral("nobody"));
    auto *stack = view.findChild<QStackedWidget *>();
    QVERIFY(stack);
    if (!snapshots) {
        QTRY_VERIFY(qobject_cast<QLabel *>(stack->currentWidget()));
        QVERIFY(qobject_cast<QLabel *>(stack->currentWidget())->text().contains(QLatin1String("not available")));
    } else {
        QTest::qWait(500);
        QCOMPARE(stack->currentIndex(), 0);
    }
}

void TestGuiViews::newSandboxDialogBuildsTheRequest()
{
    NewSandboxDialog dialog(m_connection->client());
    dialog.show();
    // No name: the dialog says what is missing and stays open.
    clickOk(dialog);
    QVERIFY(dialog.isVisible());
    // The validator keeps names to what libvirt and the CLI accept.
    QTest::keyClicks(dialog.nameEdit(), QStringLiteral("Agent_1 x"));
    QCOMPARE(dialog.nameEdit()->text(), QStringLiteral("gent1x"));
    dialog.nameEdit()->clear();
    QTest::keyClicks(dialog.nameEdit(), QStringLiteral("agent-1"));
    const QJsonObject p = dialog.createParams();
    QCOMPARE(p.value(QLatin1String("name")).toString(), QStringLiteral("agent-1"));
    QCOMPARE(p.value(QLatin1String("cpus")).toInt(), 2);
    QCOMPARE(p.value(QLatin1String("memory_mib")).toInt(), 2048);
    QCOMPARE(p.value(QLatin1String("start")).toBool(), true);
    QVERIFY(!p.contains(QLatin1String("template")));
    // The templates are the daemon's (template.list); choosing one brings its resources.
    QComboBox *templates = dialog.templateCombo();
    QTRY_VERIFY(templates->findData(QStringLiteral("claude-code")) > 0);
    QVERIFY(templates->findData(QStringLiteral("codex")) > 0);
    QCOMPARE(templates->findData(QStringLiteral("openhands")), -1); // no such template: not offered
    templates->setCurrentIndex(templates->findData(QStringLiteral("claude-code")));
    const QJsonObject withTemplate = dialog.createParams();
    QCOMPARE(withTemplate.value(QLatin1String("template")).toString(), QStringLiteral("claude-code"));
    QFile file(QStringLiteral(AIRLOCK_TEST_TEMPLATES "/claude-code.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject declared = QJsonDocument::fromJson(file.readAll()).object();
    for (const char *key : {"cpus", "memory_mib", "disk_gib"}) // disk: 8 there, 10 by default here
        QCOMPARE(withTemplate.value(QLatin1String(key)).toInt(), declared.value(QLatin1String(key)).toInt());
    // The presets are the connected daemon's (preset.list), never files on this machine:
    // choosing one sends its name in sandbox.create's `presets`.
    QComboBox *presets = dialog.presetCombo();
    QTRY_VERIFY2(presets->findData(QStringLiteral("npm")) > 0, qPrintable(presets->itemData(0, Qt::ToolTipRole).toString()));
    const int npm = presets->findData(QStringLiteral("npm"));
    QVERIFY2(presets->itemData(npm, Qt::ToolTipRole).toString().contains(QLatin1String("registry.npmjs.org:443")),
             qPrintable(presets->itemData(npm, Qt::ToolTipRole).toString()));
    QVERIFY(!withTemplate.contains(QLatin1String("presets")));
    presets->setCurrentIndex(npm);
    QCOMPARE(dialog.createParams().value(QLatin1String("presets")).toArray(), QJsonArray{QStringLiteral("npm")});
    // Automatic checkpoints are off unless chosen; chosen, the request carries the interval
    // and how many to keep. An ephemeral sandbox keeps no snapshots: the choice goes grey
    // and is not sent.
    CheckpointScheduleFields *schedule = dialog.scheduleFields();
    QVERIFY(!dialog.createParams().contains(QLatin1String("checkpoint_every_s")));
    QVERIFY(!schedule->keepBox()->isEnabled());
    schedule->everyBox()->setFocus();
    QTest::keyClick(schedule->everyBox(), Qt::Key_Down);
    QTest::keyClick(schedule->everyBox(), Qt::Key_Down);
    QVERIFY(schedule->keepBox()->isEnabled());
    schedule->keepBox()->setValue(6);
    QCOMPARE(dialog.createParams().value(QLatin1String("checkpoint_every_s")).toInt(), 600);
    QCOMPARE(dialog.createParams().value(QLatin1String("checkpoint_keep")).toInt(), 6);
    dialog.ephemeralCheck()->setChecked(true);
    QVERIFY(!schedule->isEnabled());
    QVERIFY(!dialog.createParams().contains(QLatin1String("checkpoint_every_s")));
    dialog.ephemeralCheck()->setChecked(false);
    QCOMPARE(dialog.createParams().value(QLatin1String("checkpoint_every_s")).toInt(), 600);
    // Shown at its own size, every label is whole (long preset descriptions once squeezed
    // "Egress preset:" to "Egress pres").
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto *form = qobject_cast<QFormLayout *>(dialog.layout());
    QVERIFY(form);
    for (QWidget *field : {static_cast<QWidget *>(dialog.presetCombo()), static_cast<QWidget *>(templates), static_cast<QWidget *>(schedule)}) {
        auto *label = qobject_cast<QLabel *>(form->labelForField(field));
        QVERIFY(label);
        QVERIFY2(label->width() >= label->sizeHint().width(), qPrintable(label->text() + QStringLiteral(" is clipped")));
    }
    if (const QString dir = qEnvironmentVariable("AIRLOCK_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QTest::qWait(300);
        dialog.grab().save(dir + QStringLiteral("/dialog-new-sandbox.png"));
        VaultDialog vault(m_connection->client(), VaultDialog::Mode::Init);
        vault.show();
        QTest::keyClicks(vault.passphraseEdit(), QStringLiteral("secret"));
        vault.grab().save(dir + QStringLiteral("/dialog-vault-init.png"));
    }
}

void TestGuiViews::translationsAreEmbedded()
{
    QTranslator en, de;
    QVERIFY(en.load(QStringLiteral(":/i18n/airlock_en.qm")));
    QVERIFY(de.load(QStringLiteral(":/i18n/airlock_de.qm")));
    QCOMPARE(en.translate("airlock::ui::NetworkView", "%n attempt(s)", nullptr, 1), QStringLiteral("%n attempt"));
    QCOMPARE(en.translate("airlock::ui::NetworkView", "%n attempt(s)", nullptr, 2), QStringLiteral("%n attempts"));
    QCOMPARE(de.translate("airlock::ui::PendingPanel", "Pending requests"), QStringLiteral("Wartende Anfragen"));
    QCOMPARE(de.translate("airlock::ui::DecisionBar", "&Allow"), QStringLiteral("&Erlauben"));
    // Loaded by locale, as main() does it.
    QTranslator byLocale;
    QVERIFY(byLocale.load(QLocale(QLocale::German, QLocale::Germany), QStringLiteral("airlock"), QStringLiteral("_"), QStringLiteral(":/i18n")));
    QCoreApplication::installTranslator(&byLocale);
    QCOMPARE(QCoreApplication::translate("airlock::ui::MainWindow", "Connected to airlockd"), QStringLiteral("Mit airlockd verbunden"));
    QCoreApplication::removeTranslator(&byLocale);
}

// View > Watch layout: one tab with the terminal left of the attempts, pending requests
// above; off again, the two tabs are back where they were; the choice outlives the window.
void TestGuiViews::watchLayoutPutsTheTerminalBesideTheAttempts()
{
    QTabWidget *tabs = m_window->tabs();
    QCOMPARE(tabs->count(), 6);
    QVERIFY(!m_window->watchLayout());
    tabs->setCurrentIndex(1); // Network
    m_window->watchLayoutAction()->trigger();
    QVERIFY(m_window->watchLayout());
    QCOMPARE(tabs->count(), 5);
    QCOMPARE(tabs->tabText(0), QStringLiteral("&Watch"));
    QCOMPARE(tabs->currentIndex(), 0); // the attempts are still in view
    auto *split = qobject_cast<QSplitter *>(tabs->widget(0));
    QVERIFY(split);
    QCOMPARE(split->count(), 2);
    QCOMPARE(split->widget(0), static_cast<QWidget *>(m_window->terminalView()));
    QCOMPARE(split->widget(1), static_cast<QWidget *>(m_window->networkView()));
    auto *dock = m_window->findChild<QDockWidget *>(QStringLiteral("pendingDock"));
    QVERIFY(dock);
    QCOMPARE(m_window->dockWidgetArea(dock), Qt::TopDockWidgetArea);
    // The attempts' list puts the decision beside the host in the narrow pane.
    QHeaderView *columns = m_window->networkView()->table()->horizontalHeader();
    QCOMPARE(columns->visualIndex(EgressModel::DecisionColumn), columns->visualIndex(EgressModel::Host) + 1);
    // ...and keeps the request and the process in view; protocol, port, rule and bytes are in the tooltip.
    QTableView *attempts = m_window->networkView()->table();
    for (const int column : {EgressModel::Proto, EgressModel::Port, EgressModel::Rule, EgressModel::Bytes})
        QVERIFY2(attempts->isColumnHidden(column), qPrintable(QString::number(column)));
    for (const int column : {EgressModel::Time, EgressModel::Host, EgressModel::DecisionColumn, EgressModel::Request, EgressModel::Process})
        QVERIFY2(!attempts->isColumnHidden(column), qPrintable(QString::number(column)));
    QVERIFY(m_window->showTab(QStringLiteral("network")));
    QCOMPARE(tabs->currentIndex(), 0);
    QVERIFY(m_window->showTab(QStringLiteral("snapshots")));
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(m_window->snapshotsView()));
    QCOMPARE(QSettings().value(QStringLiteral("view/watchLayout")).toBool(), true);
    {
        DaemonConnection other(m_daemon->socketPath());
        MainWindow next(&other); // a later start of the app
        QVERIFY(next.watchLayout());
        QVERIFY(next.watchLayoutAction()->isChecked());
    }

    QVERIFY(m_window->showTab(QStringLiteral("terminal")));
    m_window->setWatchLayout(false);
    QVERIFY(!m_window->watchLayoutAction()->isChecked());
    QCOMPARE(tabs->count(), 6);
    QCOMPARE(tabs->widget(0), static_cast<QWidget *>(m_window->terminalView()));
    QCOMPARE(tabs->widget(1), static_cast<QWidget *>(m_window->networkView()));
    QCOMPARE(tabs->tabText(0), QStringLiteral("&Terminal"));
    QCOMPARE(tabs->tabText(1), QStringLiteral("&Network"));
    QCOMPARE(tabs->currentIndex(), 0);
    QCOMPARE(m_window->dockWidgetArea(dock), Qt::BottomDockWidgetArea);
    QCOMPARE(columns->visualIndex(EgressModel::DecisionColumn), int(EgressModel::DecisionColumn));
    QVERIFY(!attempts->isColumnHidden(EgressModel::Rule) && !attempts->isColumnHidden(EgressModel::Bytes));
    QCOMPARE(QSettings().value(QStringLiteral("view/watchLayout")).toBool(), false);
}

// Controls stay on one line while they fit; narrower, they wrap and the bar grows down, and
// an expanding item takes what is left of its line.
void TestGuiViews::flowLayoutWrapsWhenNarrow()
{
    QWidget bar;
    auto *flow = new FlowLayout(&bar);
    flow->setContentsMargins(0, 0, 0, 0);
    auto *search = new QLineEdit(&bar);
    search->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    flow->addWidget(search);
    QList<QPushButton *> buttons;
    for (int i = 0; i < 4; ++i)
        flow->addWidget(buttons.emplace_back(new QPushButton(QStringLiteral("Button %1").arg(i), &bar)));
    const int oneLine = flow->sizeHint().height();
    bar.resize(flow->sizeHint().width() + 200, oneLine);
    bar.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bar));
    QCOMPARE(flow->heightForWidth(bar.width()), oneLine);
    QCOMPARE(buttons.last()->geometry().right(), bar.width() - 1);
    QVERIFY(search->width() > search->sizeHint().width()); // took the spare 200 px
    for (QPushButton *b : buttons)
        QCOMPARE(b->y(), search->y());

    const int narrow = search->sizeHint().width() + buttons.first()->sizeHint().width() + 20;
    const int height = flow->heightForWidth(narrow);
    QVERIFY2(height > oneLine, qPrintable(QString::number(height)));
    bar.resize(narrow, height);
    QTRY_VERIFY(buttons.last()->y() > buttons.first()->y());
    for (QWidget *w : bar.findChildren<QWidget *>())
        QVERIFY2(w->geometry().right() < narrow && w->geometry().bottom() < height, w->metaObject()->className());
    QVERIFY(flow->minimumSize().width() <= narrow);
}

QTEST_MAIN(TestGuiViews)
#include "test_gui_views.moc"
