#pragma once
#include "api/daemonaddress.h"
#include "api/jsonrpc.h"
#include "api/linereader.h"

#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QLocalSocket>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <functional>

namespace airlock {

// The GUI's asynchronous client: every call returns at once and answers through a callback
// on the GUI thread, so no view ever waits on the daemon.
class ApiClient : public QObject {
    Q_OBJECT
public:
    struct Reply {
        bool ok = false;
        QJsonValue result;
        int errorCode = 0;
        QString errorMessage;
    };
    using Callback = std::function<void(const Reply &)>;

    explicit ApiClient(QObject *parent = nullptr);
    ~ApiClient() override;

    void connectTo(const QString &socketPath);
    // Speaks the same protocol over a command's stdin/stdout, e.g. `ssh host airlockctl proxy`
    // for an airlockd on another machine. "connected" means the command started; its exit
    // (with the end of its stderr) is the disconnect.
    void connectToCommand(const QString &program, const QStringList &arguments);
    void disconnectFromDaemon();
    bool isConnected() const;
    // What the client connected to, for messages: the socket path or the command line.
    QString socketPath() const { return m_path; }
    // Where a second connection to the same daemon goes (a workspace copy's worker).
    DaemonAddress address() const { return {m_command.isEmpty() ? m_path : QString(), m_command, {}}; }

    // `context` guards the callback: it is dropped when the context object is gone.
    void call(const QString &method, const QJsonObject &params, QObject *context, Callback callback);

Q_SIGNALS:
    void connected();
    void disconnected(const QString &why);
    void event(const QString &topic, const QJsonObject &data);

private:
    void onReadyRead();
    void failAll(const QString &why);
    void dropOverlongPeer();
    void dropProcess();

    QLocalSocket *m_socket;
    QProcess *m_process = nullptr; // set while a command is the transport
    QByteArray m_stderr;           // the end of the command's stderr, for the error message
    QString m_path;
    QStringList m_command; // the transport's command line, empty for the socket
    rpc::LineReader m_lines{rpc::kMaxReplyLineBytes};
    int m_nextId = 1;
    struct Pending { QPointer<QObject> context; bool hasContext; Callback callback; };
    QHash<int, Pending> m_pending;
};

} // namespace airlock
