#pragma once
#include "api/commandchannel.h"
#include "api/daemonaddress.h"
#include "api/jsonrpc.h"
#include "api/linereader.h"
#include "core/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <functional>
#include <memory>

namespace airlock {

// A synchronous JSON-RPC client over the daemon's Unix socket, or through a command that
// carries the API to an airlockd elsewhere (a remote host), for airlockctl and tests: no
// event loop, plain blocking I/O with a timeout.
class BlockingClient {
public:
    BlockingClient() = default;
    ~BlockingClient();
    BlockingClient(const BlockingClient &) = delete;
    BlockingClient &operator=(const BlockingClient &) = delete;

    Status connectTo(const QString &socketPath);
    // Starts `command` (e.g. ssh HOST airlockctl proxy) and speaks through its stdin/stdout;
    // `remoteName` names it in errors.
    Status connectThrough(const QString &remoteName, const QStringList &command);
    // Either of the two, as the address says.
    Status connect(const DaemonAddress &address);
    int fd() const { return m_fd; }

    // Sends one request and waits for its answer; events that arrive meanwhile go to
    // `onEvent` when set. A JSON-RPC error becomes an Error whose code is the RPC code.
    Result<QJsonValue> call(const QString &method, const QJsonObject &params = {}, int timeoutMs = 600000);

    // Reads the next notification ("event"); used by --follow.
    Result<QJsonObject> nextEvent(int timeoutMs = -1);
    std::function<void(const QJsonObject &)> onEvent;

private:
    Result<QJsonObject> readMessage(int timeoutMs);
    int m_fd = -1;
    int m_nextId = 1;
    rpc::LineReader m_lines{rpc::kMaxReplyLineBytes};
    QString m_path;
    QString m_remoteName;
    std::unique_ptr<CommandChannel> m_channel;
};

} // namespace airlock
