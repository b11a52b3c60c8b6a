#pragma once
// The resolver every sandbox's DNS packets are redirected to (UDP and TCP, on the sandbox's
// gateway address). It answers A with a synthetic address from the sandbox's own pool,
// AAAA with an empty answer, and refuses every other type, malformed queries and names that
// look like DNS tunnelling. No query ever leaves the host: the real name is resolved only
// when a connection to it is allowed (TransparentProxy). Runs on its own epoll thread.
#include "core/decision.h"
#include "core/result.h"
#include "epollloop.h"
#include "sandboxnet.h"

#include <QHash>
#include <QString>
#include <atomic>
#include <chrono>

namespace airlock {

class EventLog;
class SyntheticNames;

class DnsResolver {
public:
    struct Limits {
        int queriesPerSecond = 1000;   // per sandbox, token bucket
        int burst = 2000;
        int maxTcpConnections = 16;    // per sandbox
        int maxLabel = 48;             // longer labels: refused as tunnelling
        int maxName = 160;             // longer names: refused as tunnelling
        int ttl = 60;
        int tcpIdleMs = 10000;
    };

    DnsResolver(SyntheticNames &names, EventLog &events, quint16 port, Limits limits);
    DnsResolver(SyntheticNames &names, EventLog &events, quint16 port) : DnsResolver(names, events, port, Limits{}) {}
    ~DnsResolver();

    void start();
    void stop();
    // Listens on the sandbox's gateway address; fails when the port is taken there.
    Status attach(const SandboxNet &net);
    void detach(const QString &sandbox);

    qint64 answered() const { return m_answered.load(); }

private:
    struct Bucket {
        double tokens = 0;
        std::chrono::steady_clock::time_point last;
        qint64 droppedSinceReport = 0;
    };
    struct Sandbox {
        SandboxNet net;
        int udp = -1;
        int tcp = -1;
        int tcpConnections = 0;
        Bucket bucket;
        QHash<QString, std::chrono::steady_clock::time_point> lastLogged;
    };
    struct TcpClient {
        QString sandbox;
        QByteArray buffer;
        std::chrono::steady_clock::time_point lastActive;
    };

    void onUdp(const QString &sandbox);
    void onTcpAccept(const QString &sandbox);
    void onTcpData(int fd);
    void closeTcp(int fd);
    void tick();
    bool admit(Sandbox &s);
    // The answer for one query message; empty = send nothing.
    QByteArray answer(Sandbox &s, const QByteArray &message, const QString &via);
    void record(const Sandbox &s, const QString &name, const QString &ip, Decision decision, const QString &reason);

    SyntheticNames &m_names;
    EventLog &m_events;
    quint16 m_port;
    Limits m_limits;
    EpollLoop m_loop;
    QHash<QString, Sandbox> m_sandboxes;   // loop thread only
    QHash<int, TcpClient> m_tcpClients;     // loop thread only
    std::atomic<qint64> m_answered{0};
};

} // namespace airlock
