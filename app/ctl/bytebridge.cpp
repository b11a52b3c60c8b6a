#include "ctl/bytebridge.h"

#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace airlock::ctl {

namespace {

bool writeAll(int fd, const char *data, ssize_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size_t(size));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= n;
    }
    return true;
}

} // namespace

QString bridge(int in, int out, int sock)
{
    pollfd fds[2] = {{in, POLLIN, 0}, {sock, POLLIN, 0}};
    char buffer[65536];
    bool inOpen = true;
    for (;;) {
        fds[0].fd = inOpen ? in : -1;
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return QStringLiteral("poll failed");
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t n = ::read(sock, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0 || !writeAll(out, buffer, n))
                return {}; // the far side is done, or nobody reads what it says
        }
        if (inOpen && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::read(in, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                inOpen = false;
                ::shutdown(sock, SHUT_WR); // let the far side finish answering, then it closes
            } else if (!writeAll(sock, buffer, n)) {
                return QStringLiteral("the other side closed the connection");
            }
        }
    }
}

int connectLoopback(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(quint16(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        const int e = errno;
        ::close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

} // namespace airlock::ctl
