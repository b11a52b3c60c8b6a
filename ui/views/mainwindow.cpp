#include "views/mainwindow.h"
#include "connection/daemonconnection.h"
#include "api/remotehosts.h"
#include "common/replies.h"
#include "dialogs/exportdialog.h"
#include "dialogs/imagebuilddialog.h"
#include "dialogs/imageimportdialog.h"
#include "dialogs/newsandboxdialog.h"
#include "dialogs/remotehostdialog.h"
#include "dialogs/secretsdialog.h"
#include "dialogs/vaultdialog.h"
#include "models/decisioncolors.h"
#include "models/egressmodel.h"
#include "models/pendingmodel.h"
#include "models/sandboxmodel.h"
#include "notify/requestnotices.h"
#include "views/connectionbanner.h"
#include "views/networkview.h"
#include "views/pendingpanel.h"
#include "views/watchlayout.h"
#include "views/secretsview.h"
#include "views/settingsview.h"
#include "views/portsview.h"
#include "views/snapshotsview.h"
#include "views/terminalview.h"
#include "protocol/egress.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"
#include "protocol/vault.h"

#include <QActionGroup>
#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QUrl>
#include <QApplication>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace airlock::ui {

MainWindow::MainWindow(DaemonConnection *connection, QWidget *parent)
    : QMainWindow(parent), m_connection(connection), m_sandboxes(new SandboxModel(this)), m_egress(new EgressModel(this)),
      m_pending(new PendingModel(this)),
      m_hosts(new RemoteHosts(this))
{
    setWindowTitle(tr("Airlock"));
    m_sandboxes->setClient(connection->client());
    setCentralWidget(buildCentral());
    buildPendingDock();
    buildMenus();
    buildStatusBar();
    connectEvents();
    buildTray();
    onStateChanged();
    resize(1280, 800);
    setWatchLayout(QSettings().value(QStringLiteral("view/watchLayout"), false).toBool());
}

// The banner above the sandbox list (or its placeholder) beside the selected sandbox's tabs.
QWidget *MainWindow::buildCentral()
{
    ApiClient *client = m_connection->client();
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 4);
    m_banner = new ConnectionBanner(m_connection, central);
    layout->addWidget(m_banner);

    auto *split = m_split = new QSplitter(Qt::Horizontal, central);
    m_listStack = new QStackedWidget(split);
    m_sandboxTable = new QTableView(m_listStack);
    m_sandboxTable->setModel(m_sandboxes);
    m_sandboxTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_sandboxTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_sandboxTable->verticalHeader()->hide();
    // Every column as wide as its text (names are never cut); the last takes what is left.
    m_sandboxTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_sandboxTable->horizontalHeader()->setStretchLastSection(true);
    m_sandboxTable->setColumnHidden(SandboxModel::Image, true);
    m_sandboxTable->setAccessibleName(tr("Sandboxes"));
    m_listPlaceholder = new QLabel(m_listStack);
    m_listPlaceholder->setAlignment(Qt::AlignCenter);
    m_listPlaceholder->setWordWrap(true);
    m_listStack->addWidget(m_sandboxTable);
    m_listStack->addWidget(m_listPlaceholder);

    m_detailStack = new QStackedWidget(split);
    m_tabs = new QTabWidget(m_detailStack);
    m_terminal = new TerminalView(client, m_tabs);
    m_network = new NetworkView(client, m_egress, m_tabs);
    m_snapshots = new SnapshotsView(client, m_sandboxes, m_tabs);
    m_ports = new PortsView(client, m_tabs);
    m_secrets = new SecretsView(client, m_tabs);
    m_settings = new SettingsView(client, m_sandboxes, m_tabs);
    m_tabs->addTab(m_terminal, tr("&Terminal"));
    m_tabs->addTab(m_network, tr("&Network"));
    m_tabs->addTab(m_snapshots, tr("Sna&pshots"));
    m_tabs->addTab(m_ports, tr("P&orts"));
    m_tabs->addTab(m_secrets, tr("S&ecrets"));
    m_tabs->addTab(m_settings, tr("Settin&gs"));
    m_watch = new WatchLayout(m_tabs, m_terminal, m_network, this);
    m_detailPlaceholder = new QLabel(tr("Select a sandbox to see its console, network, snapshots and secrets."), m_detailStack);
    m_detailPlaceholder->setAlignment(Qt::AlignCenter);
    m_detailPlaceholder->setWordWrap(true);
    m_detailStack->addWidget(m_detailPlaceholder);
    m_detailStack->addWidget(m_tabs);
    split->addWidget(m_listStack);
    split->addWidget(m_detailStack);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    split->setSizes({480, 800});
    layout->addWidget(split, 1);
    return central;
}

void MainWindow::buildPendingDock()
{
    m_pendingPanel = new PendingPanel(m_connection->client(), m_pending, this);
    m_pendingDock = new QDockWidget(tr("Pending requests"), this);
    m_pendingDock->setObjectName(QStringLiteral("pendingDock"));
    m_pendingDock->setWidget(m_pendingPanel);
    m_pendingDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::BottomDockWidgetArea, m_pendingDock);
    connect(m_pending, &PendingModel::countsChanged, m_sandboxes, &SandboxModel::setPendingCounts);
    connect(m_pending, &PendingModel::countsChanged, this, [this](const QHash<QString, int> &counts) {
        int total = 0;
        for (int n : counts)
            total += n;
        m_pendingDock->setWindowTitle(total ? tr("Pending requests (%1)").arg(total) : tr("Pending requests"));
        if (total)
            m_pendingDock->show();
    });
}

// Each topic of the connection to the model or view that shows it.
void MainWindow::connectEvents()
{
    DaemonConnection *c = m_connection;
    connect(c, &DaemonConnection::stateChanged, this, &MainWindow::onStateChanged);
    connect(c, &DaemonConnection::statusChanged, this, &MainWindow::onStatus);
    connect(c, &DaemonConnection::sandboxChanged, m_sandboxes, &SandboxModel::applyEvent);
    connect(c, &DaemonConnection::egressEvent, this, [this](const proto::EgressEvent &e) {
        m_egress->enqueue(e);
        m_pending->apply(e);
    });
    connect(c, &DaemonConnection::imageProgress, this, &MainWindow::onImageProgress);
    connect(c, &DaemonConnection::snapshotProgress, m_snapshots, &SnapshotsView::onProgress);
    connect(c, &DaemonConnection::portsChanged, m_ports, &PortsView::onPortsChanged);
    // A start or stop opens or closes the shown sandbox's listeners.
    connect(c, &DaemonConnection::sandboxChanged, this, [this](const proto::SandboxRow &row) {
        if (row.name == m_shown)
            m_ports->reload();
    });
    connect(m_ports, &PortsView::openRequested, this, [this](const QString &url) {
        if (!QDesktopServices::openUrl(QUrl(url)))
            statusBar()->showMessage(tr("No browser could be started; open %1 yourself").arg(url), 15000);
    });
    connect(c, &DaemonConnection::alert, this, &MainWindow::onAlert);
    connect(c, &DaemonConnection::consoleOutput, m_terminal, &TerminalView::onOutput);
    connect(m_sandboxTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &MainWindow::onSandboxSelected);
    connect(m_sandboxes, &SandboxModel::availabilityChanged, this, &MainWindow::updateSandboxPlaceholder);
    connect(m_sandboxes, &SandboxModel::loaded, this, [this] {
        updateSandboxPlaceholder();
        updateCount();
        if (!m_current.isEmpty() && m_sandboxes->rowOf(m_current) >= 0)
            selectSandbox(m_current);
        else if (m_sandboxes->rowCount() > 0)
            m_sandboxTable->selectRow(0);
        else
            onSandboxSelected();
    });
    connect(m_secrets, &SecretsView::manageSecretsRequested, this, [this] {
        manageSecrets();
        m_secrets->reload();
    });
}

// The tray icon says when a sandbox raises an alert; a new request while the window is not
// in front is told by a desktop notification (with Allow / Deny) or the tray.
void MainWindow::buildTray()
{
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_tray = new QSystemTrayIcon(windowIcon().isNull() ? style()->standardIcon(QStyle::SP_ComputerIcon) : windowIcon(), this);
        m_tray->setToolTip(tr("Airlock"));
        m_tray->show();
        connect(m_tray, &QSystemTrayIcon::activated, this, [this] {
            showNormal();
            raise();
            activateWindow();
        });
    }
    m_notices = new RequestNotices(m_connection->client(), m_pending, this, m_tray);
    connect(m_notices, &RequestNotices::showRequested, this, [this] {
        showNormal();
        raise();
        activateWindow();
        m_pendingDock->show();
        m_pendingPanel->table()->setFocus();
    });
    connect(m_notices, &RequestNotices::decided, this, [this](const QString &message) { statusBar()->showMessage(message, 15000); });
}

void MainWindow::buildMenus()
{
    QAction *newSandbox = buildFileMenu();
    buildSandboxMenu(newSandbox);
    m_hostsMenu = menuBar()->addMenu(tr("&Hosts"));
    connect(m_hosts, &RemoteHosts::changed, this, &MainWindow::rebuildHostsMenu);
    rebuildHostsMenu();
    buildVaultMenu();

    QMenu *view = menuBar()->addMenu(tr("Vie&w"));
    view->addAction(m_pendingDock->toggleViewAction());
    // Ctrl+Shift: plain Ctrl keys belong to the agent's terminal (Ctrl+P is its shell's history).
    m_pendingDock->toggleViewAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_watchAction = view->addAction(tr("&Watch layout"));
    m_watchAction->setCheckable(true);
    m_watchAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    m_watchAction->setToolTip(tr("The terminal and the live attempts side by side, pending requests above them"));
    connect(m_watchAction, &QAction::toggled, this, &MainWindow::setWatchLayout);
    buildRequestsMenu();

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    connect(help->addAction(tr("&About Airlock")), &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About Airlock"),
                           tr("Airlock %1\nAI coding agents in microVMs, with every network connection approved live "
                              "and secrets lent through a host proxy.").arg(QStringLiteral(AIRLOCK_VERSION)));
    });
}

// Deciding from the keyboard while the focus stays in the terminal. A key with the panel
// hidden shows it first and decides nothing: the person sees the request before answering.
void MainWindow::buildRequestsMenu()
{
    QMenu *requests = menuBar()->addMenu(tr("&Requests"));
    const auto add = [&](const QString &text, Qt::Key key, bool (PendingPanel::*act)()) {
        QAction *a = requests->addAction(text);
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | key));
        a->setShortcutContext(Qt::WindowShortcut);
        connect(a, &QAction::triggered, this, [this, act] {
            if (!m_pendingDock->isVisible()) {
                m_pendingDock->show();
                m_pendingDock->raise();
                return;
            }
            (m_pendingPanel->*act)();
        });
    };
    add(tr("&Allow the selected request"), Qt::Key_A, &PendingPanel::allowSelected);
    add(tr("&Deny the selected request"), Qt::Key_D, &PendingPanel::denySelected);
    add(tr("&Next pending request"), Qt::Key_N, &PendingPanel::selectNext);
}

QAction *MainWindow::buildFileMenu()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *newSandbox = file->addAction(tr("&New sandbox…"));
    m_newSandbox = newSandbox;
    newSandbox->setShortcut(QKeySequence::New);
    connect(newSandbox, &QAction::triggered, this, [this] {
        NewSandboxDialog dialog(m_connection->client(), this);
        if (dialog.exec() == QDialog::Accepted)
            m_sandboxes->reload();
    });
    connect(file->addAction(tr("&Run agent on a folder…")), &QAction::triggered, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, tr("The project the agent works on (a git repository)"));
        if (!folder.isEmpty())
            runAgentOn(folder);
    });
    connect(file->addAction(tr("&Build image…")), &QAction::triggered, this, [this] {
        ImageBuildDialog dialog(m_connection, this);
        dialog.exec();
    });
    connect(file->addAction(tr("&Import image…")), &QAction::triggered, this, [this] {
        ImageImportDialog dialog(m_connection, this);
        dialog.exec();
    });
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, qApp, &QApplication::quit);
    return newSandbox;
}

void MainWindow::buildSandboxMenu(QAction *newSandbox)
{
    QMenu *sandbox = menuBar()->addMenu(tr("&Sandbox"));
    using namespace proto::method;
    const QList<QPair<QString, QString>> actions = {{tr("&Start"), SandboxStart}, {tr("S&top"), SandboxStop},
                                                    {tr("&Pause"), SandboxPause}, {tr("&Resume"), SandboxResume},
                                                    {tr("&Kill"), SandboxKill},   {tr("Re&move…"), SandboxRemove}};
    auto *toolbar = addToolBar(tr("Sandbox"));
    toolbar->setObjectName(QStringLiteral("sandboxToolbar"));
    toolbar->addAction(newSandbox);
    m_sandboxActions << newSandbox;
    for (const auto &[label, method] : actions) {
        QAction *a = sandbox->addAction(label);
        connect(a, &QAction::triggered, this, [this, method = method] { sandboxAction(method); });
        m_sandboxActions << a;
        if (method != SandboxPause && method != SandboxResume)
            toolbar->addAction(a);
    }
    sandbox->addSeparator();
    m_exportChanges = sandbox->addAction(tr("E&xport changes…"));
    m_exportChanges->setObjectName(QStringLiteral("exportChanges"));
    m_exportChanges->setToolTip(tr("Bring the sandbox's new commits in /workspace back as a bundle or patches"));
    connect(m_exportChanges, &QAction::triggered, this, &MainWindow::exportChanges);
    m_sandboxActions << m_exportChanges;
}

void MainWindow::buildVaultMenu()
{
    QMenu *vault = menuBar()->addMenu(tr("&Vault"));
    connect(vault->addAction(tr("&Unlock…")), &QAction::triggered, this, [this] {
        if (VaultDialog(m_connection->client(), VaultDialog::Mode::Unlock, this).exec() == QDialog::Accepted)
            m_connection->refreshStatus();
    });
    connect(vault->addAction(tr("&Lock")), &QAction::triggered, this, [this] {
        m_connection->client()->call(proto::method::VaultLock, {}, this, [this](const ApiClient::Reply &r) {
            if (!r.ok)
                statusBar()->showMessage(tr("Could not lock the vault: %1").arg(r.errorMessage), 8000);
            m_connection->refreshStatus();
        });
    });
    connect(vault->addAction(tr("&Create…")), &QAction::triggered, this, [this] {
        if (VaultDialog(m_connection->client(), VaultDialog::Mode::Init, this).exec() == QDialog::Accepted)
            m_connection->refreshStatus();
    });
    connect(vault->addAction(tr("Change &passphrase…")), &QAction::triggered, this,
            [this] { VaultDialog(m_connection->client(), VaultDialog::Mode::ChangePassphrase, this).exec(); });
    connect(vault->addAction(tr("&Secrets…")), &QAction::triggered, this, &MainWindow::manageSecrets);
}

void MainWindow::rebuildHostsMenu()
{
    m_hostsMenu->clear();
    auto *group = new QActionGroup(m_hostsMenu);
    auto addHost = [&](const QString &label, const QString &name) {
        QAction *a = m_hostsMenu->addAction(label);
        a->setCheckable(true);
        a->setChecked(name == m_host);
        a->setActionGroup(group);
        connect(a, &QAction::triggered, this, [this, name] { connectToHost(name); });
    };
    addHost(tr("This computer"), QString());
    for (const RemoteHosts::Host &h : m_hosts->hosts())
        addHost(h.name, h.name);
    m_hostsMenu->addSeparator();
    connect(m_hostsMenu->addAction(tr("&Add remote host…")), &QAction::triggered, this, [this] {
        RemoteHostDialog dialog(m_hosts, this);
        if (dialog.exec() == QDialog::Accepted)
            connectToHost(dialog.nameEdit()->text().trimmed());
    });
    QAction *remove = m_hostsMenu->addAction(tr("&Remove this host"));
    remove->setEnabled(!m_host.isEmpty());
    connect(remove, &QAction::triggered, this, [this] {
        const QString name = m_host;
        connectToHost(QString());
        m_hosts->remove(name);
    });
}

bool MainWindow::connectToHost(const QString &name)
{
    const RemoteHosts::Host *host = name.isEmpty() ? nullptr : m_hosts->find(name);
    if (!name.isEmpty() && !host)
        return false;
    m_host = name;
    setWindowTitle(name.isEmpty() ? QString() : tr("%1 — Airlock").arg(name));
    rebuildHostsMenu();
    m_connection->switchTo(host ? host->command : QStringList());
    return true;
}

void MainWindow::buildStatusBar()
{
    m_stateLabel = new QLabel(this);
    m_versionLabel = new QLabel(this);
    m_libvirtLabel = new QLabel(this);
    m_accelLabel = new QLabel(this);
    m_vaultLabel = new QLabel(this);
    m_countLabel = new QLabel(this);
    statusBar()->addWidget(m_stateLabel);
    for (QLabel *l : {m_versionLabel, m_libvirtLabel, m_accelLabel, m_vaultLabel, m_countLabel})
        statusBar()->addPermanentWidget(l);
}

QString MainWindow::statusText() const
{
    QStringList parts;
    for (QLabel *l : {m_stateLabel, m_versionLabel, m_libvirtLabel, m_accelLabel, m_vaultLabel, m_countLabel})
        if (l->isVisible() || !l->text().isEmpty())
            parts << l->text();
    return parts.join(QStringLiteral(" | "));
}

void MainWindow::onStateChanged()
{
    using State = DaemonConnection::State;
    const State state = m_connection->state();
    const bool connected = state == State::Connected;
    switch (state) {
    case State::Connected:
        m_stateLabel->setText(m_host.isEmpty() ? tr("Connected to airlockd") : tr("Connected to airlockd on %1").arg(m_host));
        break;
    case State::Connecting: m_stateLabel->setText(tr("Connecting…")); break;
    case State::StartingDaemon: m_stateLabel->setText(tr("Starting airlockd…")); break;
    case State::NotConnected: m_stateLabel->setText(tr("Not connected: %1").arg(m_connection->reason())); break;
    }
    m_stateLabel->setToolTip(m_connection->target());
    updateActions();
    centralWidget()->findChild<QSplitter *>()->setEnabled(connected);
    m_pendingPanel->setEnabled(connected);
    if (connected) {
        m_sandboxes->reload();
        loadPending();
        m_terminal->reattachAll();
        m_network->reload();
    } else {
        for (QLabel *l : {m_versionLabel, m_libvirtLabel, m_accelLabel, m_vaultLabel, m_countLabel})
            l->clear();
    }
}

void MainWindow::onStatus(const proto::DaemonStatus &s)
{
    m_versionLabel->setText(tr("airlockd %1").arg(s.version));
    m_libvirtLabel->setText(tr("libvirt %1").arg(s.libvirtUri));
    if (s.accel == QLatin1String("tcg")) {
        m_accelLabel->setText(tr("⚠ TCG emulation: no usable KVM, VMs run slowly"));
        m_accelLabel->setToolTip(tr("Sandboxes run under QEMU's TCG emulation because KVM is not usable on this host. "
                                    "They work, but boot and run several times slower."));
    } else {
        m_accelLabel->setText(tr("KVM acceleration"));
        m_accelLabel->setToolTip({});
    }
    showVault(s.vault);
    // The vault's own answer is the authority where the daemon has one.
    m_connection->client()->call(proto::method::VaultStatus, {}, this, [this](const ApiClient::Reply &r) {
        if (const Result<proto::VaultStatus> vault = replyAs<proto::VaultStatus>(r))
            showVault(vault->vault);
    });
    // Pending requests count down to the broker's own hold timeout.
    if (s.egress)
        m_pending->setHoldTimeout(s.egress->holdTimeoutS); // 0: held until answered
    m_statusSandboxes = s.sandboxes;
    updateCount();
}

void MainWindow::updateCount()
{
    // The live list is the better count where the daemon has one.
    const int n = m_sandboxes->availability() == SandboxModel::Available ? m_sandboxes->rowCount() : m_statusSandboxes;
    if (m_connection->state() == DaemonConnection::State::Connected)
        m_countLabel->setText(tr("%n sandbox(es)", nullptr, n));
}

void MainWindow::showVault(VaultState state)
{
    switch (state) {
    case VaultState::Unlocked: m_vaultLabel->setText(tr("vault unlocked")); break;
    case VaultState::Locked: m_vaultLabel->setText(tr("vault locked")); break;
    case VaultState::Uninitialised: m_vaultLabel->setText(tr("no vault yet")); break;
    }
}

void MainWindow::loadPending()
{
    proto::EgressListParams params;
    params.pending = true;
    m_connection->client()->call(proto::method::EgressList, params.toJson(), this, [this](const ApiClient::Reply &r) {
        const Result<QList<proto::EgressEvent>> held = replyListAs<proto::EgressEvent>(r);
        if (!held)
            return;
        m_pending->clear();
        for (const proto::EgressEvent &e : held.value())
            m_pending->apply(e);
    });
}

// Image builds take minutes: their progress stays visible in the status bar.
void MainWindow::onImageProgress(const proto::ImageProgress &p)
{
    QString text = tr("Image %1: %2").arg(p.name, p.phase);
    if (p.percent >= 0)
        text += QStringLiteral(" (%1%)").arg(p.percent);
    if (!p.message.isEmpty())
        text += QStringLiteral(" — ") + p.message;
    statusBar()->showMessage(text, p.phase == QLatin1String("done") || p.phase == QLatin1String("failed") ? 15000 : 0);
}

void MainWindow::onAlert(const proto::Alert &alert)
{
    m_secrets->onAlert(alert);
    if (m_tray)
        m_tray->showMessage(tr("Alert from %1").arg(alert.sandbox), alert.message, QSystemTrayIcon::Critical, 15000);
}

void MainWindow::updateSandboxPlaceholder()
{
    switch (m_sandboxes->availability()) {
    case SandboxModel::NotAvailable:
        m_listPlaceholder->setText(tr("This airlockd cannot manage sandboxes yet (sandbox.list is not available).\n"
                                      "Update airlockd to create and run sandboxes."));
        m_listStack->setCurrentWidget(m_listPlaceholder);
        break;
    case SandboxModel::Available:
        if (m_sandboxes->rowCount() == 0) {
            m_listPlaceholder->setText(tr("No sandboxes yet.\nCreate one with File → New sandbox (Ctrl+N)."));
            m_listStack->setCurrentWidget(m_listPlaceholder);
        } else {
            m_listStack->setCurrentWidget(m_sandboxTable);
        }
        break;
    case SandboxModel::Unknown:
        m_listStack->setCurrentWidget(m_sandboxTable);
        break;
    }
}

bool MainWindow::runAgentOn(const QString &folder)
{
    NewSandboxDialog dialog(m_connection->client(), this);
    dialog.setWindowTitle(tr("Run an agent on %1").arg(QDir::toNativeSeparators(folder)));
    dialog.workspaceEdit()->setText(folder);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    showTerminalOf(dialog.createdSandbox().value(QLatin1String("name")).toString());
    return true;
}

// A sandbox just made from a dialog: selected once the list has it, its terminal shown.
void MainWindow::showTerminalOf(const QString &sandbox)
{
    selectSandboxWhenListed(sandbox);
    m_sandboxes->reload();
    showTab(QStringLiteral("terminal"));
}

// The secrets dialog; a sign-in it started shows its sandbox's terminal.
void MainWindow::manageSecrets()
{
    SecretsDialog dialog(m_connection->client(), this);
    if (dialog.exec() == QDialog::Accepted && !dialog.signInSandbox().isEmpty())
        showTerminalOf(dialog.signInSandbox());
}

void MainWindow::selectSandbox(const QString &name)
{
    const int row = m_sandboxes->rowOf(name);
    if (row >= 0)
        m_sandboxTable->selectRow(row);
}

bool MainWindow::showTab(const QString &key)
{
    const QStringList keys = {QStringLiteral("terminal"), QStringLiteral("network"), QStringLiteral("snapshots"), QStringLiteral("ports"),
                              QStringLiteral("secrets"), QStringLiteral("settings")};
    const QList<QWidget *> pages = {m_terminal, m_network, m_snapshots, m_ports, m_secrets, m_settings};
    const int index = keys.indexOf(key);
    if (index < 0)
        return false;
    m_tabs->setCurrentIndex(m_watch->tabOf(pages.at(index)));
    return true;
}

bool MainWindow::watchLayout() const
{
    return m_watch->isOn();
}

void MainWindow::setWatchLayout(bool on)
{
    if (on == m_watch->isOn())
        return;
    m_watch->setOn(on);
    m_network->setNarrow(on);
    // The action, the setting and the window agree whichever of them asked.
    const QSignalBlocker quiet(m_watchAction);
    m_watchAction->setChecked(on);
    QSettings().setValue(QStringLiteral("view/watchLayout"), on);
    // Pending requests above what they are about; the sandbox list narrow, one click away.
    addDockWidget(on ? Qt::TopDockWidgetArea : Qt::BottomDockWidgetArea, m_pendingDock);
    if (on) {
        // A few rows of requests; the height goes to the terminal and the attempts.
        resizeDocks({m_pendingDock}, {qMax(m_pendingDock->minimumSizeHint().height(), height() / 4)}, Qt::Vertical);
        m_splitSizes = m_split->sizes();
        const int total = m_splitSizes.value(0) + m_splitSizes.value(1);
        m_split->setSizes({qMin(m_splitSizes.value(0), 220), total - qMin(m_splitSizes.value(0), 220)});
    } else if (!m_splitSizes.isEmpty()) {
        m_split->setSizes(m_splitSizes);
    }
}

void MainWindow::updateActions()
{
    const bool connected = m_connection->state() == DaemonConnection::State::Connected;
    for (QAction *a : m_sandboxActions)
        a->setEnabled(connected && (a == m_newSandbox || !m_shown.isEmpty()));
}

void MainWindow::onSandboxSelected()
{
    const QModelIndex current = m_sandboxTable->currentIndex();
    const QString name = current.isValid() ? m_sandboxes->nameAt(current.row()) : QString();
    if (name == m_shown && !name.isEmpty())
        return;
    m_current = name;
    m_shown = name;
    m_detailStack->setCurrentWidget(name.isEmpty() ? static_cast<QWidget *>(m_detailPlaceholder) : m_tabs);
    updateActions();
    if (name.isEmpty())
        return;
    m_terminal->setSandbox(name);
    m_network->setSandbox(name);
    m_snapshots->setSandbox(name);
    m_ports->setSandbox(name);
    m_secrets->setSandbox(name);
    m_settings->setSandbox(name);
}

ExportDialog *MainWindow::exportChanges()
{
    if (m_current.isEmpty())
        return nullptr;
    auto *dialog = new ExportDialog(m_connection->client()->address(), m_current, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    return dialog;
}

void MainWindow::sandboxAction(const QString &method)
{
    const QString name = m_current;
    if (name.isEmpty())
        return;
    if (method == proto::method::SandboxRemove
        && QMessageBox::question(this, tr("Remove sandbox"),
                                 tr("Remove %1 with its disk and snapshots? This cannot be undone.").arg(name),
                                 QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Yes)
        return;
    m_connection->client()->call(method, proto::NameParams{name}.toJson(), this, [this, method, name](const ApiClient::Reply &r) {
        if (!r.ok) {
            // Not exec(): a callback must not spin a nested event loop.
            auto *box = new QMessageBox(QMessageBox::Warning, tr("Airlock"), tr("%1 failed for %2.").arg(method, name), QMessageBox::Ok, this);
            box->setInformativeText(r.errorMessage);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
            return;
        }
        if (method == proto::method::SandboxRemove)
            m_terminal->forget(name);
        m_sandboxes->reload();
    });
}

} // namespace airlock::ui
