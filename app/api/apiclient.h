#pragma once
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QLocalSocket>
#include <QObject>
#include <QPointer>
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

    void connectTo(const QString &socketPath);
    void disconnectFromDaemon();
    bool isConnected() const { return m_socket->state() == QLocalSocket::ConnectedState; }
    QString socketPath() const { return m_path; }

    // `context` guards the callback: it is dropped when the context object is gone.
    void call(const QString &method, const QJsonObject &params, QObject *context, Callback callback);

Q_SIGNALS:
    void connected();
    void disconnected(const QString &why);
    void event(const QString &topic, const QJsonObject &data);

private:
    void onReadyRead();
    void failAll(const QString &why);

    QLocalSocket *m_socket;
    QString m_path;
    QByteArray m_buffer;
    int m_nextId = 1;
    struct Pending { QPointer<QObject> context; bool hasContext; Callback callback; };
    QHash<int, Pending> m_pending;
};

} // namespace airlock
