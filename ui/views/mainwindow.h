#pragma once
#include "protocol/events.h"
#include "protocol/status.h"

#include <QMainWindow>

class QAction;
class QDockWidget;
class QMenu;
class QLabel;
class QSplitter;
class QStackedWidget;
class QSystemTrayIcon;
class QTabWidget;
class QTableView;

namespace airlock { class RemoteHosts; }

namespace airlock::ui {

class ConnectionBanner;
class ExportDialog;
class DaemonConnection;
class EgressModel;
class NetworkView;
class PendingModel;
class PendingPanel;
class RequestNotices;
class SandboxModel;
class SecretsView;
class SettingsView;
class PortsView;
class SnapshotsView;
class TerminalView;
class WatchLayout;

// Sandbox list | the selected sandbox's tabs, the pending-requests panel below, the
// daemon's status in the status bar and a banner whenever airlockd is not reachable.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(DaemonConnection *connection, QWidget *parent = nullptr);

    ConnectionBanner *connectionBanner() const { return m_banner; }
    QString statusText() const;
    SandboxModel *sandboxModel() const { return m_sandboxes; }
    EgressModel *egressModel() const { return m_egress; }
    PendingModel *pendingModel() const { return m_pending; }
    QTableView *sandboxTable() const { return m_sandboxTable; }
    QTabWidget *tabs() const { return m_tabs; }
    NetworkView *networkView() const { return m_network; }
    TerminalView *terminalView() const { return m_terminal; }
    PendingPanel *pendingPanel() const { return m_pendingPanel; }
    SnapshotsView *snapshotsView() const { return m_snapshots; }
    PortsView *portsView() const { return m_ports; }
    QString currentSandbox() const { return m_current; }
    void selectSandbox(const QString &name);
    // Selects `name` as soon as the sandbox list has it (command line: --sandbox).
    void selectSandboxWhenListed(const QString &name) { m_current = name; }
    // The Hosts menu: this computer's airlockd or one on another machine (over ssh).
    RemoteHosts *remoteHosts() const { return m_hosts; }
    QMenu *hostsMenu() const { return m_hostsMenu; }
    // Empty: this computer.
    QString currentHost() const { return m_host; }
    // Switches to the named remote host (empty: this computer); false if there is no such host.
    bool connectToHost(const QString &name);
    // terminal, network, snapshots, secrets or settings.
    bool showTab(const QString &key);
    // File > Run agent on a folder…: the New sandbox dialog with `folder` as the workspace;
    // the sandbox it makes is selected with its terminal shown. True once one was made.
    bool runAgentOn(const QString &folder);
    // Sandbox > Export changes…: opens the export dialog for the selected sandbox.
    ExportDialog *exportChanges();
    QAction *exportChangesAction() const { return m_exportChanges; }
    // View > Watch layout: the terminal and the live attempts side by side, pending requests
    // above them; remembered for the next start.
    void setWatchLayout(bool on);
    bool watchLayout() const;
    QAction *watchLayoutAction() const { return m_watchAction; }
    RequestNotices *requestNotices() const { return m_notices; }

private:
    QWidget *buildCentral();
    void buildPendingDock();
    void buildTray();
    void connectEvents();
    void buildMenus();
    void manageSecrets();
    void showTerminalOf(const QString &sandbox);
    QAction *buildFileMenu();
    void buildRequestsMenu();
    void buildSandboxMenu(QAction *newSandbox);
    void buildVaultMenu();
    void rebuildHostsMenu();
    void buildStatusBar();
    void onStateChanged();
    void onStatus(const proto::DaemonStatus &status);
    void onImageProgress(const proto::ImageProgress &progress);
    void onAlert(const proto::Alert &alert);
    void onSandboxSelected();
    void updateSandboxPlaceholder();
    void sandboxAction(const QString &method);
    void loadPending();
    void updateActions();
    void showVault(VaultState state);
    void updateCount();

    DaemonConnection *m_connection;
    SandboxModel *m_sandboxes;
    EgressModel *m_egress;
    PendingModel *m_pending;
    ConnectionBanner *m_banner;
    QSplitter *m_split;
    QList<int> m_splitSizes; // the list's share before the watch layout narrowed it
    QStackedWidget *m_listStack;
    QLabel *m_listPlaceholder;
    QTableView *m_sandboxTable;
    QStackedWidget *m_detailStack;
    QLabel *m_detailPlaceholder;
    QTabWidget *m_tabs;
    TerminalView *m_terminal;
    NetworkView *m_network;
    SnapshotsView *m_snapshots;
    PortsView *m_ports;
    SecretsView *m_secrets;
    SettingsView *m_settings;
    WatchLayout *m_watch;
    QAction *m_watchAction = nullptr;
    PendingPanel *m_pendingPanel;
    QDockWidget *m_pendingDock;
    QSystemTrayIcon *m_tray = nullptr;
    RequestNotices *m_notices = nullptr;
    QLabel *m_stateLabel, *m_versionLabel, *m_libvirtLabel, *m_accelLabel, *m_vaultLabel, *m_countLabel;
    QString m_current; // selected, or asked for on the command line
    QString m_shown;   // the sandbox the tabs show
    QList<QAction *> m_sandboxActions;
    QAction *m_newSandbox = nullptr;
    QAction *m_exportChanges = nullptr;
    int m_statusSandboxes = 0;
    RemoteHosts *m_hosts;
    QMenu *m_hostsMenu = nullptr;
    QString m_host;
};

} // namespace airlock::ui
