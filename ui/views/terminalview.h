#pragma once
#include <QHash>
#include <QPointer>
#include <QWidget>

class QLabel;
class QStackedWidget;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class TerminalWidget;

// The Terminal tab: each sandbox's serial console in its own terminal widget, with the
// history the daemon kept from before the window opened (console.attach) and live bytes
// from "console:<name>" events; keys go back with console.write.
class TerminalView : public QWidget {
    Q_OBJECT
public:
    explicit TerminalView(ApiClient *client, QWidget *parent = nullptr);

    void setSandbox(const QString &sandbox);
    // Live bytes of a sandbox's console (DaemonConnection::consoleOutput).
    void onOutput(const QString &sandbox, const QByteArray &data);
    // After a reconnect every console is attached again from its history.
    void reattachAll();
    void forget(const QString &sandbox);
    TerminalWidget *terminal(const QString &sandbox) const { return m_terminals.value(sandbox); }

private:
    void attach(const QString &sandbox);

    QPointer<ApiClient> m_client;
    QString m_sandbox;
    QLabel *m_message;
    QStackedWidget *m_stack;
    QHash<QString, TerminalWidget *> m_terminals;
};

} // namespace airlock::ui
