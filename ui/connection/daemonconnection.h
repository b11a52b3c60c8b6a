#pragma once
#include "api/apiclient.h"
#include "protocol/egress.h"
#include "protocol/events.h"
#include "protocol/ports.h"
#include "protocol/sandbox.h"
#include "protocol/status.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QTimer>

namespace airlock::ui {

// The GUI's one link to airlockd: connects to the user's daemon, starts one when none
// runs, keeps the daemon's `status` fresh and reconnects when the daemon comes back.
// Every step is asynchronous; the GUI thread never waits. Events arrive parsed, one typed
// signal per topic; an event the protocol library refuses is logged and dropped.
class DaemonConnection : public QObject {
    Q_OBJECT
public:
    enum class State { Connecting, StartingDaemon, Connected, NotConnected };
    Q_ENUM(State)

    explicit DaemonConnection(const QString &socketPath, QObject *parent = nullptr);
    ~DaemonConnection() override;

    ApiClient *client() const { return m_client; }
    State state() const { return m_state; }
    QString socketPath() const { return m_socketPath; }
    // The last `status` answer; empty (default) while not connected.
    const proto::DaemonStatus &status() const { return m_status; }

    // Why we are not connected, what the user can do about it, and raw details (airlockd's stderr).
    QString reason() const { return m_reason; }
    QString hint() const { return m_hint; }
    QString details() const { return m_details; }

    // The airlockd binary to start when none runs; empty disables starting one.
    void setDaemonProgram(const QString &program) { m_daemonProgram = program; }
    QString daemonProgram() const { return m_daemonProgram; }
    // Whether a missing daemon is started (the user's choice: --no-start-daemon turns it off).
    void setAutoStart(bool on) { m_autoStart = on; }
    void setReconnectInterval(int ms) { m_reconnectTimer.setInterval(ms); }

    // Reach airlockd through a command's stdin/stdout instead of the local socket, e.g.
    // {"ssh", "devbox", "airlockctl", "proxy"}; empty: the local socket. No daemon is started
    // for a command. Takes effect on the next start(); switchTo() applies it at once.
    void setCommand(const QStringList &argv) { m_command = argv; }
    QStringList command() const { return m_command; }
    // Drops the current connection (views clear) and connects to the given target.
    void switchTo(const QStringList &command);
    // The socket path or the command line this connection reaches airlockd by.
    QString target() const;

    // Begins connecting (and starting a daemon if none listens).
    void start();
    // The user's Retry: like start(), starting a daemon again if needed.
    void retry();
    void refreshStatus();

    // Where airlock looks for airlockd when nobody said: next to this binary, else $PATH.
    static QString defaultDaemonProgram();

Q_SIGNALS:
    void stateChanged(airlock::ui::DaemonConnection::State state);
    void statusChanged(const airlock::proto::DaemonStatus &status);
    // One signal per topic the connection subscribes to (kTopics in daemonconnection.cpp).
    void sandboxChanged(const airlock::proto::SandboxRow &row);
    // Every egress attempt as it is written: new, joined a held request, decided, closed.
    void egressEvent(const airlock::proto::EgressEvent &event);
    void imageProgress(const airlock::proto::ImageProgress &progress);
    void snapshotProgress(const airlock::proto::SnapshotProgress &progress);
    void alert(const airlock::proto::Alert &alert);
    void portsChanged(const airlock::proto::PortsChanged &ports);
    // Bytes of a `console:NAME` topic (subscribed to by TerminalView per sandbox).
    void consoleOutput(const QString &sandbox, const QByteArray &data);

private:
    void attempt(bool mayStartDaemon, bool quiet);
    void onConnected();
    void onConnectFailed(const QString &why);
    void onEvent(const QString &topic, const QJsonObject &data);
    void onStatusReply(const ApiClient::Reply &r);
    void startDaemon();
    void setState(State s);
    void fail(const QString &reason, const QString &hint, const QString &details = {});

    ApiClient *m_client;
    QString m_socketPath;
    QString m_daemonProgram;
    QStringList m_command;
    State m_state = State::NotConnected;
    proto::DaemonStatus m_status;
    QString m_reason, m_hint, m_details;
    bool m_mayStartDaemon = false;
    bool m_autoStart = true;
    bool m_quietAttempt = false;
    bool m_attempting = false;
    QPointer<QProcess> m_daemonProcess;
    QTimer m_reconnectTimer;
    QTimer m_statusTimer;
};

} // namespace airlock::ui
