#include "portforwarder.h"
#include "core/logging.h"

#include <QSet>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <netinet/in.h>
#include <set>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace airlock {

namespace {

using Clock = std::chrono::steady_clock;

// Bytes read from one side, not yet written to the other.
struct Buffer {
    std::vector<char> bytes;
    size_t begin = 0, end = 0;
    bool empty() const { return begin == end; }
};

QString errnoText(int err) { return QString::fromLocal8Bit(std::strerror(err)); }

} // namespace

struct PortForwarder::Relay {
    Listener *owner = nullptr;
    int client = -1, guest = -1;
    bool connected = false;
    Clock::time_point connectBy;
    Buffer toGuest, toClient;
    bool clientEof = false, guestEof = false;       // read side ended
    bool guestShut = false, clientShut = false;     // our write side shut after the other's end
    bool clientWatched = false, guestWatched = false; // registered with the loop
};

struct PortForwarder::Listener {
    QString sandbox;
    ExposedPort port;
    quint32 guestIp = 0;
    int fd = -1;
    QString error;
    std::set<Relay *> relays;
    qint64 bytesToGuest = 0, bytesFromGuest = 0;
};

PortForwarder::PortForwarder() : PortForwarder(Limits{}) {}

PortForwarder::PortForwarder(Limits limits) : m_limits(limits) {}

PortForwarder::~PortForwarder() { stop(); }

void PortForwarder::start()
{
    if (!m_loop.running())
        m_loop.start(QStringLiteral("airlock-ports"), [this] { expireConnects(); publishState(); }, 1000);
}

void PortForwarder::stop()
{
    m_loop.call([this] {
        while (!m_sandboxes.empty())
            dropOnLoop(m_sandboxes.begin()->first);
    });
    m_loop.stop();
}

Status PortForwarder::apply(const SandboxNet &net)
{
    Status result = ok();
    m_loop.call([&] { result = applyOnLoop(net); });
    return result;
}

void PortForwarder::drop(const QString &sandbox)
{
    m_loop.call([&] { dropOnLoop(sandbox); });
}

void PortForwarder::reconcile(const QList<SandboxNet> &running)
{
    m_loop.call([&] {
        QSet<QString> keep;
        for (const SandboxNet &net : running) {
            keep.insert(net.name);
            if (Status s = applyOnLoop(net); !s)
                qCWarning(lcBroker) << "exposed ports of" << net.name << ":" << s.error().message();
        }
        QStringList gone;
        for (const auto &[name, box] : m_sandboxes)
            if (!keep.contains(name))
                gone << name;
        for (const QString &name : gone)
            dropOnLoop(name);
    });
}

QList<PortForwarder::PortState> PortForwarder::state(const QString &sandbox) const
{
    std::lock_guard lock(m_stateMutex);
    return m_state.value(sandbox);
}

Status PortForwarder::applyOnLoop(const SandboxNet &net)
{
    Sandbox &box = m_sandboxes[net.name];
    const bool moved = box.guestIp != net.guestIp;
    box.guestIp = net.guestIp;
    std::map<quint16, std::unique_ptr<Listener>> next;
    QStringList failed;
    for (const ExposedPort &port : net.exposed) {
        auto it = box.byGuestPort.find(port.guestPort);
        if (it != box.byGuestPort.end() && it->second->port == port && it->second->fd >= 0 && !moved) {
            next[port.guestPort] = std::move(it->second); // unchanged: its connections stay
            box.byGuestPort.erase(it);
            continue;
        }
        if (it != box.byGuestPort.end()) { // moved to another host port or address: the old one goes first
            closeListener(*it->second);
            box.byGuestPort.erase(it);
        }
        std::unique_ptr<Listener> listener = openListener(net.name, port);
        listener->guestIp = net.guestIp;
        if (listener->fd < 0)
            failed << QStringLiteral("127.0.0.1:%1 (%2)").arg(port.hostPort).arg(listener->error);
        next[port.guestPort] = std::move(listener);
    }
    for (auto &[guestPort, listener] : box.byGuestPort)
        closeListener(*listener);
    box.byGuestPort = std::move(next);
    publishState();
    if (!failed.isEmpty())
        return Error{QStringLiteral("cannot listen for %1").arg(net.name), failed.join(QStringLiteral(", ")), ErrorKind::Conflict};
    return ok();
}

void PortForwarder::dropOnLoop(const QString &sandbox)
{
    auto it = m_sandboxes.find(sandbox);
    if (it == m_sandboxes.end())
        return;
    for (auto &[guestPort, listener] : it->second.byGuestPort)
        closeListener(*listener);
    m_sandboxes.erase(it);
    publishState();
}

std::unique_ptr<PortForwarder::Listener> PortForwarder::openListener(const QString &sandbox, ExposedPort port)
{
    auto listener = std::make_unique<Listener>();
    listener->sandbox = sandbox;
    listener->port = port;
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        listener->error = errnoText(errno);
        return listener;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK); // the person's machine only, never a network
    addr.sin_port = htons(port.hostPort);
    if (::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0) {
        listener->error = errno == EADDRINUSE ? QStringLiteral("in use by another program") : errnoText(errno);
        ::close(fd);
        return listener;
    }
    listener->fd = fd;
    Listener *raw = listener.get();
    m_loop.add(fd, EPOLLIN, [this, raw](uint32_t) { accept(*raw); });
    return listener;
}

void PortForwarder::closeListener(Listener &listener)
{
    while (!listener.relays.empty())
        closeRelay(*listener.relays.begin());
    if (listener.fd >= 0) {
        m_loop.remove(listener.fd);
        ::close(listener.fd);
        listener.fd = -1;
    }
}

void PortForwarder::accept(Listener &listener)
{
    for (;;) {
        const int client = ::accept4(listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (client < 0)
            return; // EAGAIN, or a connection that went away before it was taken
        if (int(listener.relays.size()) >= m_limits.maxConnectionsPerPort) {
            ::close(client);
            continue;
        }
        const int guest = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        const uint32_t mark = kExposeSocketMark;
        sockaddr_in to{};
        to.sin_family = AF_INET;
        to.sin_addr.s_addr = htonl(listener.guestIp);
        to.sin_port = htons(listener.port.guestPort);
        // Without the mark the guest's answers are dropped; better to say no at once.
        if (guest < 0 || ::setsockopt(guest, SOL_SOCKET, SO_MARK, &mark, sizeof mark) != 0 ||
            (::connect(guest, reinterpret_cast<sockaddr *>(&to), sizeof to) != 0 && errno != EINPROGRESS)) {
            qCWarning(lcBroker) << "exposed port" << listener.port.guestPort << "of" << listener.sandbox
                                << ": cannot connect to the guest:" << errnoText(errno);
            if (guest >= 0)
                ::close(guest);
            ::close(client);
            continue;
        }
        auto *relay = new Relay;
        relay->owner = &listener;
        relay->client = client;
        relay->guest = guest;
        relay->connectBy = Clock::now() + std::chrono::milliseconds(m_limits.connectTimeoutMs);
        relay->toGuest.bytes.resize(size_t(m_limits.bufferBytes));
        relay->toClient.bytes.resize(size_t(m_limits.bufferBytes));
        listener.relays.insert(relay);
        updateInterest(relay);
        publishState();
    }
}

void PortForwarder::onRelayEvent(Relay *relay, bool fromClient, uint32_t events)
{
    if (!relay->connected && !fromClient) {
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(relay->guest, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0 || !(events & EPOLLOUT)) {
            closeRelay(relay); // refused or unreachable: the client sees its connection closed
            return;
        }
        relay->connected = true;
    }
    pump(relay);
}

// Moves what can move without blocking, both ways, then closes or re-arms.
void PortForwarder::pump(Relay *relay)
{
    const auto readInto = [](int fd, Buffer &buffer, bool &eof) -> bool {
        if (eof || !buffer.empty())
            return true;
        const ssize_t n = ::read(fd, buffer.bytes.data(), buffer.bytes.size());
        if (n > 0) {
            buffer.begin = 0;
            buffer.end = size_t(n);
        } else if (n == 0) {
            eof = true;
        } else if (errno != EAGAIN && errno != EINTR) {
            return false;
        }
        return true;
    };
    const auto writeFrom = [](int fd, Buffer &buffer, qint64 &counted) -> bool {
        while (!buffer.empty()) {
            const ssize_t n = ::send(fd, buffer.bytes.data() + buffer.begin, buffer.end - buffer.begin, MSG_NOSIGNAL);
            if (n < 0)
                return errno == EAGAIN || errno == EINTR;
            buffer.begin += size_t(n);
            counted += n;
        }
        return true;
    };
    if (relay->connected) {
        Listener &l = *relay->owner;
        const bool fine = readInto(relay->client, relay->toGuest, relay->clientEof) &&
                          readInto(relay->guest, relay->toClient, relay->guestEof) &&
                          writeFrom(relay->guest, relay->toGuest, l.bytesToGuest) &&
                          writeFrom(relay->client, relay->toClient, l.bytesFromGuest);
        if (!fine) {
            closeRelay(relay);
            return;
        }
        // A side that ended has its end passed on once everything it sent is delivered.
        if (relay->clientEof && relay->toGuest.empty() && !relay->guestShut) {
            ::shutdown(relay->guest, SHUT_WR);
            relay->guestShut = true;
        }
        if (relay->guestEof && relay->toClient.empty() && !relay->clientShut) {
            ::shutdown(relay->client, SHUT_WR);
            relay->clientShut = true;
        }
        if (relay->guestShut && relay->clientShut) {
            closeRelay(relay);
            return;
        }
    }
    updateInterest(relay);
}

// A socket is watched only for what it can do next; one with nothing to do is not watched
// at all, so a hang-up it reports cannot spin the loop while the other side drains.
void PortForwarder::updateInterest(Relay *relay)
{
    uint32_t client = 0, guest = 0;
    if (!relay->connected) {
        guest = EPOLLOUT;
    } else {
        if (!relay->clientEof && relay->toGuest.empty())
            client |= EPOLLIN;
        if (!relay->toClient.empty())
            client |= EPOLLOUT;
        if (!relay->guestEof && relay->toClient.empty())
            guest |= EPOLLIN;
        if (!relay->toGuest.empty())
            guest |= EPOLLOUT;
    }
    const auto watch = [this, relay](int fd, uint32_t events, bool &watched, bool fromClient) {
        if (events == 0) {
            if (watched)
                m_loop.remove(fd);
            watched = false;
        } else if (watched) {
            m_loop.modify(fd, events);
        } else {
            watched = m_loop.add(fd, events, [this, relay, fromClient](uint32_t e) { onRelayEvent(relay, fromClient, e); });
        }
    };
    watch(relay->client, client, relay->clientWatched, true);
    watch(relay->guest, guest, relay->guestWatched, false);
}

void PortForwarder::closeRelay(Relay *relay)
{
    for (int fd : {relay->client, relay->guest}) {
        m_loop.remove(fd);
        ::close(fd);
    }
    relay->owner->relays.erase(relay);
    delete relay;
    publishState(); // its bytes and the count of open connections
}

void PortForwarder::expireConnects()
{
    const auto now = Clock::now();
    std::vector<Relay *> late;
    for (auto &[name, box] : m_sandboxes)
        for (auto &[guestPort, listener] : box.byGuestPort)
            for (Relay *r : listener->relays)
                if (!r->connected && now >= r->connectBy)
                    late.push_back(r);
    for (Relay *r : late)
        closeRelay(r);
}

void PortForwarder::publishState()
{
    QHash<QString, QList<PortState>> state;
    for (const auto &[name, box] : m_sandboxes) {
        QList<PortState> &ports = state[name];
        for (const auto &[guestPort, l] : box.byGuestPort)
            ports.append({l->port, l->fd >= 0, l->error, int(l->relays.size()), l->bytesToGuest, l->bytesFromGuest});
    }
    std::lock_guard lock(m_stateMutex);
    m_state = std::move(state);
}

} // namespace airlock
