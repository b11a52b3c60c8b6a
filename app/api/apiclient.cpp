#include "api/apiclient.h"
#include "api/jsonrpc.h"

#include <QJsonDocument>

namespace airlock {

ApiClient::ApiClient(QObject *parent) : QObject(parent), m_socket(new QLocalSocket(this))
{
    connect(m_socket, &QLocalSocket::connected, this, &ApiClient::connected);
    connect(m_socket, &QLocalSocket::readyRead, this, &ApiClient::onReadyRead);
    connect(m_socket, &QLocalSocket::disconnected, this, [this] {
        failAll(tr("airlockd closed the connection"));
        Q_EMIT disconnected(tr("airlockd closed the connection; it may have stopped"));
    });
    connect(m_socket, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError error) {
        QString why = m_socket->errorString();
        if (error == QLocalSocket::ServerNotFoundError || error == QLocalSocket::ConnectionRefusedError)
            why = tr("no airlockd is listening on %1").arg(m_path);
        else if (error == QLocalSocket::SocketAccessError)
            why = tr("permission denied on %1: you need to be root or in the airlock group").arg(m_path);
        failAll(why);
        if (m_socket->state() != QLocalSocket::ConnectedState)
            Q_EMIT disconnected(why);
    });
}

void ApiClient::connectTo(const QString &socketPath)
{
    m_path = socketPath;
    m_buffer.clear();
    m_socket->abort();
    m_socket->connectToServer(socketPath);
}

void ApiClient::disconnectFromDaemon() { m_socket->disconnectFromServer(); }

void ApiClient::call(const QString &method, const QJsonObject &params, QObject *context, Callback callback)
{
    if (!isConnected()) {
        Reply r;
        r.errorCode = rpc::Unavailable;
        r.errorMessage = tr("not connected to airlockd");
        if (callback)
            QMetaObject::invokeMethod(context ? context : this, [callback, r] { callback(r); }, Qt::QueuedConnection);
        return;
    }
    const int id = m_nextId++;
    m_pending.insert(id, Pending{context, context != nullptr, std::move(callback)});
    m_socket->write(rpc::encodeRequest(id, method, params));
}

void ApiClient::onReadyRead()
{
    m_buffer += m_socket->readAll();
    qsizetype start = 0;
    for (qsizetype nl; (nl = m_buffer.indexOf('\n', start)) >= 0; start = nl + 1) {
        const QJsonObject m = QJsonDocument::fromJson(m_buffer.mid(start, nl - start)).object();
        if (!m.contains(QLatin1String("id"))) {
            const QJsonObject params = m.value(QLatin1String("params")).toObject();
            Q_EMIT event(params.value(QLatin1String("topic")).toString(), params.value(QLatin1String("data")).toObject());
            continue;
        }
        const int id = m.value(QLatin1String("id")).toInt();
        const auto it = m_pending.find(id);
        if (it == m_pending.end())
            continue;
        Pending pending = it.value();
        m_pending.erase(it);
        if (pending.hasContext && !pending.context)
            continue;
        Reply r;
        if (m.contains(QLatin1String("error"))) {
            const QJsonObject e = m.value(QLatin1String("error")).toObject();
            r.errorCode = e.value(QLatin1String("code")).toInt();
            r.errorMessage = e.value(QLatin1String("message")).toString();
        } else {
            r.ok = true;
            r.result = m.value(QLatin1String("result"));
        }
        if (pending.callback)
            pending.callback(r);
    }
    m_buffer.remove(0, start);
}

void ApiClient::failAll(const QString &why)
{
    const auto pending = std::exchange(m_pending, {});
    for (const Pending &p : pending) {
        if ((p.hasContext && !p.context) || !p.callback)
            continue;
        Reply r;
        r.errorCode = rpc::Unavailable;
        r.errorMessage = why;
        p.callback(r);
    }
}

} // namespace airlock
