#pragma once
#include "api/jsonrpc.h"
#include "api/linereader.h"
#include "api/peerpolicy.h"
#include "core/result.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <functional>

class QLocalServer;
class QLocalSocket;

namespace airlock {

class ApiConnection;

// One request being answered. Copyable, so a handler may hand it to a worker and answer
// later from any thread; answering twice or after the client left is harmless.
class Call {
public:
    Call() = default;
    Call(ApiConnection *connection, QJsonValue id, QJsonObject params, PeerCredentials peer, bool notification);

    const QJsonObject &params() const { return m_params; }
    const PeerCredentials &peer() const { return m_peer; }

    void reply(const QJsonValue &result) const;
    // `json` is an already serialised result (for hot, cacheable answers such as status).
    void replyRaw(const QByteArray &json) const;
    void fail(int code, const QString &message, const QJsonValue &data = {}) const;
    void fail(const Error &error) const;

private:
    void send(QByteArray line) const;
    QPointer<ApiConnection> m_connection;
    QJsonValue m_id;
    QJsonObject m_params;
    PeerCredentials m_peer;
    bool m_notification = false;
};

// The daemon's socket: line framing, limits, method dispatch and subscriptions. Every
// connection, call and event passes its PeerPolicy; it knows nothing about sandboxes (the
// services register the methods and tell the policy who owns what).
class ApiServer : public QObject {
    Q_OBJECT
public:
    using Handler = std::function<void(const Call &)>;

    // Buffered but unread output a client may accumulate before it is disconnected.
    static constexpr qint64 kMaxPendingOutput = 8 << 20;
    static constexpr int kMaxConnections = 512;

    explicit ApiServer(AccessPolicy policy, QObject *parent = nullptr);
    ~ApiServer() override;

    // Listens on `path` (mode 0600, or 0660 with group access). The caller must already
    // hold the instance lock: a leftover socket file at `path` is removed.
    Status listen(const QString &path);
    QString path() const { return m_path; }

    // `method` must be one the PeerPolicy names (an unnamed one is served to administrators only).
    void registerMethod(const QString &method, Handler handler);
    QStringList methods() const { return m_handlers.keys(); }

    PeerPolicy &policy() { return m_policy; }
    const PeerPolicy &policy() const { return m_policy; }

    // Pushes {topic, data} as an "event" notification to every subscriber of `topic` the
    // policy lets see `audience`.
    void publish(const QString &topic, const QJsonObject &data, const Audience &audience);
    // The same from any thread (workers, relay threads): queued onto the server's thread.
    void post(const QString &topic, const QJsonObject &data, const Audience &audience);
    // An event about the sandbox `sandbox`, for its owner (looked up now); any thread.
    void postAbout(const QString &sandbox, const QString &topic, const QJsonObject &data);
    // An "alert" event the UI shows prominently: {sandbox, kind, message}; any thread.
    void postAlert(const QString &sandbox, const QString &kind, const QString &message);
    int connectionCount() const { return int(m_connections.size()); }

private:
    friend class ApiConnection;
    void onNewConnection();
    void dispatch(ApiConnection *connection, const QByteArray &line);

    PeerPolicy m_policy;
    QLocalServer *m_server = nullptr;
    QString m_path;
    QHash<QString, Handler> m_handlers;
    QSet<ApiConnection *> m_connections;
    QHash<uid_t, int> m_connectionsOf;
};

// One client socket.
class ApiConnection : public QObject {
    Q_OBJECT
public:
    ApiConnection(ApiServer *server, QLocalSocket *socket, PeerCredentials peer);

    const PeerCredentials &peer() const { return m_peer; }
    QSet<QString> &topics() { return m_topics; }
    // Queues a line; a client that stopped reading is dropped instead of buffering forever.
    void write(const QByteArray &line);
    void closeAfterFlush();

private:
    void onReadyRead();
    ApiServer *m_server;
    QLocalSocket *m_socket;
    PeerCredentials m_peer;
    rpc::LineReader m_lines{rpc::kMaxLineBytes};
    QSet<QString> m_topics;
    bool m_closing = false;
};

} // namespace airlock
