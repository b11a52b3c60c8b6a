#include "ctl/loopbackforward.h"
#include "api/commandchannel.h"
#include "ctl/bytebridge.h"

#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace airlock::ctl {

namespace {

std::atomic<bool> g_stop{false};
void stopOnSignal(int) { g_stop = true; }

int bindLoopback(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(quint16(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(fd, 64) != 0) {
        const int e = errno;
        ::close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

void relay(int client, QStringList command)
{
    CommandChannel channel;
    if (channel.start(command))
        bridge(client, client, channel.fd());
    ::close(client);
}

} // namespace

LoopbackForward::~LoopbackForward()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

Result<int> LoopbackForward::listen(int port, int preferred)
{
    m_fd = bindLoopback(port ? port : preferred);
    if (m_fd < 0 && port == 0)
        m_fd = bindLoopback(0);
    if (m_fd < 0)
        return Error{QStringLiteral("cannot listen on 127.0.0.1:%1").arg(port ? port : preferred),
                     QString::fromLocal8Bit(std::strerror(errno)) + QStringLiteral("; choose another with --host-port")};
    sockaddr_in a{};
    socklen_t len = sizeof a;
    ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&a), &len);
    return int(ntohs(a.sin_port));
}

void LoopbackForward::run(const QStringList &command)
{
    struct sigaction action{};
    action.sa_handler = stopOnSignal; // no SA_RESTART: poll returns at once
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    while (!g_stop) {
        pollfd p{m_fd, POLLIN, 0};
        if (::poll(&p, 1, 500) <= 0)
            continue;
        const int client = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (client >= 0)
            std::thread(relay, client, command).detach(); // ends with its connection or with the process
    }
}

} // namespace airlock::ctl
