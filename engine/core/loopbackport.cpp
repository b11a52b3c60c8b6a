#include "core/loopbackport.h"

#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace airlock {

Result<quint16> freeLoopbackPort(quint16 port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return Error{QStringLiteral("cannot choose a host port"), QString::fromLocal8Bit(std::strerror(errno))};
    const int one = 1; // as the listener will be: a port left in TIME_WAIT is free
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    socklen_t len = sizeof addr;
    const bool bound = ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0 &&
                       ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) == 0;
    const int err = errno;
    ::close(fd);
    if (!bound)
        return Error{QStringLiteral("host port %1 cannot be used").arg(port),
                     err == EADDRINUSE ? QStringLiteral("127.0.0.1:%1 is in use; choose another with --host-port").arg(port)
                     : err == EACCES   ? QStringLiteral("ports below 1024 need root; choose another with --host-port")
                                       : QString::fromLocal8Bit(std::strerror(err)),
                     ErrorKind::Conflict};
    return quint16(ntohs(addr.sin_port));
}

} // namespace airlock
