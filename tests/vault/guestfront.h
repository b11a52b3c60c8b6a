#pragma once
// Stands in for the egress broker's transparent proxy in tests and benchmarks: accepts guest
// connections on loopback, reads the ClientHello as the broker does, and hands each flow to
// the interceptor with the bytes it read.
#include "interceptor.h"

#include "clienthello.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <thread>

namespace airlock {

// Accepts guest connections on loopback, reads the ClientHello like the egress proxy, and
// hands each flow to the interceptor with the bytes it read.
class Front {
public:
    using Route = std::function<UpstreamAddress(const QString &sni)>;
    Front(Interceptor &interceptor, QString sandbox, Route route)
        : m_interceptor(interceptor), m_sandbox(std::move(sandbox)), m_route(std::move(route))
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(m_fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
        ::listen(m_fd, 64);
        socklen_t len = sizeof a;
        ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&a), &len);
        m_port = ntohs(a.sin_port);
        m_thread = std::thread([this] { loop(); });
    }
    ~Front()
    {
        ::shutdown(m_fd, SHUT_RDWR);
        m_thread.join();
        ::close(m_fd);
    }
    quint16 port() const { return m_port; }
    // Flows the interceptor reported ended (or refused), as the transparent proxy counts them.
    int ended() const { return m_ended->load(); }
    // Hand later flows over to be decided request by request (FlowVerdict::perRequest).
    void setPerRequest(bool on) { m_perRequest = on; }
    // What later flows say the guest reports about their socket (the proxy's table lookup).
    void setWhoAsks(GuestProcessLookup whoAsks)
    {
        std::lock_guard lock(m_whoAsksMutex);
        m_whoAsks = std::move(whoAsks);
    }

private:
    void loop()
    {
        for (;;) {
            const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0)
                return;
            QByteArray peeked;
            tls::ClientHello hello;
            char buf[4096];
            do {
                const ssize_t n = ::recv(c, buf, sizeof buf, 0);
                if (n <= 0)
                    break;
                peeked.append(buf, qsizetype(n));
                hello = tls::parseClientHello(peeked);
            } while (hello.status == tls::ClientHello::Status::NeedMore);
            if (hello.status != tls::ClientHello::Status::Complete || !hello.hasSni) {
                ::close(c);
                continue;
            }
            GuestProcessLookup whoAsks;
            {
                std::lock_guard lock(m_whoAsksMutex);
                whoAsks = m_whoAsks;
            }
            m_interceptor.handle(c, m_sandbox, hello.sni, peeked, m_route(hello.sni), m_perRequest.load(),
                                 [ended = m_ended] { ++*ended; }, std::move(whoAsks));
        }
    }
    Interceptor &m_interceptor;
    QString m_sandbox;
    Route m_route;
    int m_fd = -1;
    quint16 m_port = 0;
    std::thread m_thread;
    std::atomic<bool> m_perRequest{false};
    std::mutex m_whoAsksMutex;
    GuestProcessLookup m_whoAsks;
    std::shared_ptr<std::atomic<int>> m_ended = std::make_shared<std::atomic<int>>(0); // outlives the Front
};

} // namespace airlock
