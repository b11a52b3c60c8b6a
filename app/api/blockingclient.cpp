#include "api/blockingclient.h"
#include "api/jsonrpc.h"

#include <QFile>
#include <QJsonDocument>
#include <QElapsedTimer>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace airlock {

BlockingClient::~BlockingClient()
{
    if (m_channel)
        m_channel->close(); // owns m_fd
    else if (m_fd >= 0)
        ::close(m_fd);
}

Status BlockingClient::connect(const DaemonAddress &address)
{
    return address.isRemote() ? connectThrough(address.name.isEmpty() ? address.command.join(QLatin1Char(' ')) : address.name, address.command)
                              : connectTo(address.socketPath);
}

Status BlockingClient::connectThrough(const QString &remoteName, const QStringList &command)
{
    m_remoteName = remoteName;
    m_channel = std::make_unique<CommandChannel>();
    if (Status s = m_channel->start(command); !s)
        return Error{QStringLiteral("cannot reach the remote host %1").arg(remoteName), s.error().message()};
    m_fd = m_channel->fd();
    return ok();
}

Status BlockingClient::connectTo(const QString &socketPath)
{
    m_path = socketPath;
    const QString what = QStringLiteral("cannot reach airlockd at %1").arg(socketPath);
    const QByteArray native = QFile::encodeName(socketPath);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (size_t(native.size()) >= sizeof addr.sun_path)
        return Error{what, QStringLiteral("the socket path is too long")};
    std::memcpy(addr.sun_path, native.constData(), size_t(native.size()));
    m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (m_fd < 0)
        return Error{what, QString::fromLocal8Bit(std::strerror(errno))};
    if (::connect(m_fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        const int e = errno;
        ::close(m_fd);
        m_fd = -1;
        QString why = QString::fromLocal8Bit(std::strerror(e));
        if (e == ENOENT || e == ECONNREFUSED)
            why += QStringLiteral("; is airlockd running? start it with `airlockd` (or `systemctl start airlockd`), "
                                  "or point --socket / AIRLOCK_SOCKET at the right socket");
        else if (e == EACCES)
            why += QStringLiteral("; you need to be root or in the airlock group");
        return Error{what, why};
    }
    return ok();
}

Result<QJsonObject> BlockingClient::readMessage(int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    for (;;) {
        if (const std::optional<QByteArray> line = m_lines.next()) {
            const QJsonDocument doc = QJsonDocument::fromJson(*line);
            if (!doc.isObject())
                return Error{QStringLiteral("airlockd sent something that is not JSON-RPC"), QString::fromUtf8(line->left(200))};
            return doc.object();
        }
        if (m_lines.overflowed())
            return Error{QStringLiteral("airlockd sent a line longer than %1 MiB").arg(rpc::kMaxReplyLineBytes >> 20),
                         QStringLiteral("it is not speaking the protocol; check that the socket is airlockd's")};
        int wait = -1;
        if (timeoutMs >= 0) {
            wait = int(timeoutMs - timer.elapsed());
            if (wait <= 0)
                return Error{QStringLiteral("airlockd did not answer in time"), QStringLiteral("it may be busy; retry")};
        }
        pollfd p{m_fd, POLLIN, 0};
        const int r = ::poll(&p, 1, wait);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return Error{QStringLiteral("cannot read from airlockd"), QString::fromLocal8Bit(std::strerror(errno))};
        if (r == 0)
            continue;
        char chunk[65536];
        const ssize_t n = ::read(m_fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 && m_channel) {
            const QString ended = m_channel->exitDescription();
            const QString what = QStringLiteral("the remote host %1 closed the connection").arg(m_remoteName);
            return Error{what, QStringLiteral("%1%2; what its command printed is above. Try the command by hand "
                                              "(`airlockctl remote ls` shows it): it must run `airlockctl proxy` there")
                                   .arg(what, ended.isEmpty() ? QString() : QStringLiteral(" (its command %1)").arg(ended))};
        }
        if (n <= 0)
            return Error{QStringLiteral("airlockd closed the connection"), QStringLiteral("it may have stopped; check its log")};
        m_lines.append(QByteArrayView(chunk, n));
    }
}

Result<QJsonValue> BlockingClient::call(const QString &method, const QJsonObject &params, int timeoutMs)
{
    const int id = m_nextId++;
    const QByteArray out = rpc::encodeRequest(id, method, params);
    for (qsizetype sent = 0; sent < out.size();) {
        const ssize_t n = ::send(m_fd, out.constData() + sent, size_t(out.size() - sent), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return Error{QStringLiteral("cannot send to airlockd"), QString::fromLocal8Bit(std::strerror(errno))};
        sent += n;
    }
    for (;;) {
        Result<QJsonObject> message = readMessage(timeoutMs);
        if (!message)
            return message.error();
        const QJsonObject &m = *message;
        if (!m.contains(QLatin1String("id"))) {
            if (onEvent)
                onEvent(m.value(QLatin1String("params")).toObject());
            continue;
        }
        const QJsonValue gotId = m.value(QLatin1String("id"));
        if (m.contains(QLatin1String("error"))) {
            const QJsonObject e = m.value(QLatin1String("error")).toObject();
            if (gotId.isNull() || gotId.toInt() == id)
                return Error{method, e.value(QLatin1String("message")).toString(), rpc::kindOf(e.value(QLatin1String("code")).toInt())};
            continue;
        }
        if (gotId.toInt() == id)
            return m.value(QLatin1String("result"));
    }
}

Result<QJsonObject> BlockingClient::nextEvent(int timeoutMs)
{
    for (;;) {
        Result<QJsonObject> message = readMessage(timeoutMs);
        if (!message)
            return message.error();
        if (!message->contains(QLatin1String("id")))
            return message->value(QLatin1String("params")).toObject();
    }
}

} // namespace airlock
