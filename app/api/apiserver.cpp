#include "api/apiserver.h"
#include "protocol/events.h"
#include "protocol/names.h"
#include "core/logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QLocalServer>
#include <QLocalSocket>
#include <QThread>
#include <sys/stat.h>
#include <unistd.h>

namespace airlock {

Call::Call(ApiConnection *connection, QJsonValue id, QJsonObject params, PeerCredentials peer, bool notification)
    : m_connection(connection), m_id(std::move(id)), m_params(std::move(params)), m_peer(peer), m_notification(notification)
{
}

void Call::reply(const QJsonValue &result) const { send(rpc::encodeResult(m_id, result)); }

void Call::replyRaw(const QByteArray &json) const { send(rpc::encodeRawResult(m_id, json)); }

void Call::fail(int code, const QString &message, const QJsonValue &data) const
{
    send(rpc::encodeError(m_id, code, message, data));
}

void Call::fail(const Error &error) const { fail(rpc::codeOf(error), error.message()); }

void Call::send(QByteArray line) const
{
    if (m_notification)
        return;
    ApiConnection *c = m_connection.data();
    if (!c)
        return;
    if (QThread::currentThread() == c->thread()) {
        c->write(line);
        return;
    }
    // Answer from a worker: hop to the connection's thread; it may be gone by then.
    QPointer<ApiConnection> guard = m_connection;
    QMetaObject::invokeMethod(c, [guard, line = std::move(line)] {
        if (guard)
            guard->write(line);
    }, Qt::QueuedConnection);
}

ApiServer::ApiServer(AccessPolicy policy, QObject *parent) : QObject(parent), m_policy(policy) {}

ApiServer::~ApiServer()
{
    if (m_server) {
        m_server->close();
        QFile::remove(m_path);
    }
}

Status ApiServer::listen(const QString &path)
{
    const QString what = QStringLiteral("cannot listen on %1").arg(path);
    const QString dir = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(dir))
        return Error{what, QStringLiteral("cannot create the directory %1").arg(dir)};
    if (QFileInfo::exists(path) && !QFile::remove(path))
        return Error{what, QStringLiteral("a stale socket file is in the way and cannot be removed")};

    m_server = new QLocalServer(this);
    // Bind with a umask so the socket is never, even briefly, wider than its final mode.
    const AccessPolicy &access = m_policy.access();
    const mode_t oldMask = ::umask(access.groupAccess ? 0117 : 0177);
    const bool listening = m_server->listen(path);
    ::umask(oldMask);
    if (!listening)
        return Error{what, m_server->errorString()};
    const QByteArray native = QFile::encodeName(path);
    if (::chmod(native.constData(), access.groupAccess ? 0660 : 0600) != 0)
        return Error{what, QStringLiteral("cannot set the socket's mode")};
    if (access.groupAccess && ::chown(native.constData(), static_cast<uid_t>(-1), access.group) != 0)
        return Error{what, QStringLiteral("cannot give the socket to the airlock group")};
    m_path = path;
    m_server->setMaxPendingConnections(64);
    connect(m_server, &QLocalServer::newConnection, this, &ApiServer::onNewConnection);
    qCInfo(lcApi) << "listening on" << path;
    return ok();
}

void ApiServer::registerMethod(const QString &method, Handler handler)
{
    if (!PeerPolicy::knows(method))
        qCWarning(lcApi) << "method" << method << "is not named by the peer policy: only administrators may call it";
    m_handlers.insert(method, std::move(handler));
}

void ApiServer::onNewConnection()
{
    while (QLocalSocket *socket = m_server->nextPendingConnection()) {
        PeerCredentials peer;
        QString why;
        const bool known = peerCredentials(int(socket->socketDescriptor()), &peer);
        if (!known)
            why = QStringLiteral("the peer's credentials cannot be read");
        if (!known || !m_policy.admit(peer, &why) ||
            !m_policy.mayConnect(peer.uid, m_connectionsOf.value(peer.uid), int(m_connections.size()), kMaxConnections, &why)) {
            qCWarning(lcApi) << "refused client pid" << peer.pid << "uid" << peer.uid << ":" << why;
            socket->write(rpc::encodeError(QJsonValue::Null, rpc::PermissionDenied, QStringLiteral("refused: ") + why));
            socket->disconnectFromServer();
            connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
            continue;
        }
        auto *connection = new ApiConnection(this, socket, peer);
        m_connections.insert(connection);
        ++m_connectionsOf[peer.uid];
        connect(connection, &QObject::destroyed, this, [this, connection, uid = peer.uid] {
            m_connections.remove(connection);
            if (--m_connectionsOf[uid] <= 0)
                m_connectionsOf.remove(uid);
        });
    }
}

void ApiServer::dispatch(ApiConnection *connection, const QByteArray &line)
{
    auto parsed = rpc::parseRequest(line);
    if (auto *failure = std::get_if<rpc::ParseFailure>(&parsed)) {
        connection->write(rpc::encodeError(failure->id, failure->code, failure->message));
        return;
    }
    const rpc::Request &request = std::get<rpc::Request>(parsed);
    Call call(connection, request.id, request.params, connection->peer(), request.notification);

    // Subscriptions are the server's own business.
    if (request.method == QLatin1String("subscribe") || request.method == QLatin1String("unsubscribe")) {
        const QJsonValue topics = request.params.value(QLatin1String("topics"));
        if (!topics.isArray()) {
            call.fail(rpc::InvalidParams, QStringLiteral("\"topics\" must be an array of topic names"));
            return;
        }
        for (const QJsonValue &t : topics.toArray()) {
            if (!t.isString()) {
                call.fail(rpc::InvalidParams, QStringLiteral("every topic must be a string"));
                return;
            }
            if (const std::optional<Refusal> refused = m_policy.checkTopic(call.peer().uid, t.toString());
                refused && request.method == QLatin1String("subscribe")) {
                call.fail(refused->code, refused->message);
                return;
            }
        }
        for (const QJsonValue &t : topics.toArray()) {
            if (request.method == QLatin1String("subscribe"))
                connection->topics().insert(t.toString());
            else
                connection->topics().remove(t.toString());
        }
        call.reply(QJsonArray::fromStringList(QStringList(connection->topics().begin(), connection->topics().end())));
        return;
    }

    const auto handler = m_handlers.constFind(request.method);
    if (handler == m_handlers.constEnd()) {
        call.fail(rpc::MethodNotFound, QStringLiteral("unknown method \"%1\"; see `airlockctl --help`").arg(request.method));
        return;
    }
    if (const std::optional<Refusal> refused = m_policy.check(call.peer().uid, request.method, request.params)) {
        qCInfo(lcApi) << "refused" << request.method << "to uid" << call.peer().uid;
        call.fail(refused->code, refused->message);
        return;
    }
    (*handler)(call);
}

void ApiServer::publish(const QString &topic, const QJsonObject &data, const Audience &audience)
{
    QByteArray line;
    const auto targets = m_connections; // write() may drop a slow subscriber
    for (ApiConnection *c : targets) {
        if (!c->topics().contains(topic) || !m_policy.maySee(c->peer().uid, audience))
            continue;
        if (line.isEmpty())
            line = rpc::encodeNotification(QStringLiteral("event"),
                                           {{QStringLiteral("topic"), topic}, {QStringLiteral("data"), data}});
        c->write(line);
    }
}

void ApiServer::post(const QString &topic, const QJsonObject &data, const Audience &audience)
{
    QMetaObject::invokeMethod(this, [this, topic, data, audience] { publish(topic, data, audience); }, Qt::QueuedConnection);
}

void ApiServer::postAbout(const QString &sandbox, const QString &topic, const QJsonObject &data)
{
    post(topic, data, m_policy.audienceOfSandbox(sandbox));
}

void ApiServer::postAlert(const QString &sandbox, const QString &kind, const QString &message)
{
    postAbout(sandbox, proto::topic::Alert, proto::Alert{sandbox, kind, message}.toJson());
}

ApiConnection::ApiConnection(ApiServer *server, QLocalSocket *socket, PeerCredentials peer)
    : QObject(server), m_server(server), m_socket(socket), m_peer(peer)
{
    socket->setParent(this);
    connect(socket, &QLocalSocket::readyRead, this, &ApiConnection::onReadyRead);
    connect(socket, &QLocalSocket::disconnected, this, &QObject::deleteLater);
    onReadyRead();
}

void ApiConnection::onReadyRead()
{
    while (!m_closing && m_socket->bytesAvailable() > 0) {
        m_buffer += m_socket->read(64 * 1024);
        qsizetype start = 0;
        for (qsizetype nl; !m_closing && (nl = m_buffer.indexOf('\n', start)) >= 0; start = nl + 1) {
            QByteArray line = m_buffer.mid(start, nl - start);
            if (line.endsWith('\r'))
                line.chop(1);
            if (!line.trimmed().isEmpty())
                m_server->dispatch(this, line);
        }
        m_buffer.remove(0, start);
        if (m_buffer.size() > rpc::kMaxLineBytes) {
            write(rpc::encodeError(QJsonValue::Null, rpc::TooLarge,
                                   QStringLiteral("a request line is longer than %1 bytes; the connection is closed")
                                       .arg(rpc::kMaxLineBytes)));
            closeAfterFlush();
        }
    }
}

void ApiConnection::write(const QByteArray &line)
{
    if (m_closing && m_socket->state() != QLocalSocket::ConnectedState)
        return;
    if (m_socket->bytesToWrite() + line.size() > ApiServer::kMaxPendingOutput) {
        qCWarning(lcApi) << "dropping client pid" << m_peer.pid << ": it stopped reading its replies and events";
        m_closing = true;
        m_socket->abort();
        return;
    }
    m_socket->write(line);
    m_socket->flush(); // a peer that half-closes after its last request still gets the answer
}

void ApiConnection::closeAfterFlush()
{
    m_closing = true;
    m_buffer.clear();
    m_socket->disconnectFromServer(); // flushes what is queued, then closes
}

} // namespace airlock
