#pragma once
// Exposed guest ports ("airlockctl expose"): while a sandbox runs, each of its exposed ports
// has a listener on 127.0.0.1:hostPort, and every connection accepted there is relayed to
// guestIp:guestPort. Host to guest only: the relay connects to nothing but the guest's own
// address, and the guest gets no way out through it.
//
// The guest's answers reach the relay because its sockets carry kExposeSocketMark
// (setting SO_MARK needs CAP_NET_ADMIN) and the sandbox's nftables chain accepts the
// guest's packets to the host only for the broker's own listeners and for a socket with
// that mark (broker/nftruleset.cpp). A packet the guest sends to such a socket must match
// an established connection the host opened; a new connection from the guest is
// redirected to the transparent proxy and decided like any other.
//
// Threads: one EpollLoop ("airlock-ports") owns every socket; apply/drop/reconcile wait for
// it (EpollLoop::call) and state() reads a copy under a mutex, from any thread.
#include "core/result.h"
#include "core/sandboxnet.h"
#include "epollloop.h"

#include <QHash>
#include <QList>
#include <QString>
#include <map>
#include <memory>
#include <mutex>

namespace airlock {

class PortForwarder {
public:
    // The mark of every relay socket towards a guest ("Arlk"); the ruleset names it.
    static constexpr uint32_t kExposeSocketMark = 0x41726c6b;

    struct Limits {
        int maxConnectionsPerPort = 128; // more are closed at once
        int connectTimeoutMs = 10000;    // a guest that does not answer the SYN
        int bufferBytes = 64 * 1024;     // per direction and connection
    };
    struct PortState {
        ExposedPort port;
        bool listening = false;
        QString error; // why it is not listening
        int connections = 0;
        qint64 bytesToGuest = 0;
        qint64 bytesFromGuest = 0;
    };

    PortForwarder();
    explicit PortForwarder(Limits limits);
    ~PortForwarder();
    PortForwarder(const PortForwarder &) = delete;
    PortForwarder &operator=(const PortForwarder &) = delete;

    void start();
    void stop(); // closes every listener and connection

    // The sandbox's listeners become exactly `net.exposed`, relaying to `net.guestIp`.
    // Unchanged ports keep their connections. Fails, naming the ports, when a port could
    // not be opened (it is then listed with its error); the others are open.
    Status apply(const SandboxNet &net);
    // Closes the sandbox's listeners and connections (its guest stopped).
    void drop(const QString &sandbox);
    // Exactly these sandboxes run: each is applied, every other one dropped.
    void reconcile(const QList<SandboxNet> &running);
    QList<PortState> state(const QString &sandbox) const;

private:
    struct Relay;
    struct Listener;
    struct Sandbox {
        quint32 guestIp = 0;
        std::map<quint16, std::unique_ptr<Listener>> byGuestPort;
    };

    // Loop thread only, below.
    Status applyOnLoop(const SandboxNet &net);
    void dropOnLoop(const QString &sandbox);
    std::unique_ptr<Listener> openListener(const QString &sandbox, ExposedPort port);
    void closeListener(Listener &listener);
    void accept(Listener &listener);
    void onRelayEvent(Relay *relay, bool fromClient, uint32_t events);
    void pump(Relay *relay);
    void updateInterest(Relay *relay);
    void closeRelay(Relay *relay);
    void expireConnects();
    void publishState();

    Limits m_limits;
    EpollLoop m_loop;
    std::map<QString, Sandbox> m_sandboxes;
    mutable std::mutex m_stateMutex;
    QHash<QString, QList<PortState>> m_state; // a copy for state(), refreshed by the loop
};

} // namespace airlock
