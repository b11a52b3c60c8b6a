#include "gatewaysocket.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace airlock {

int gatewaySocket(int type, quint32 address, quint16 port, int backlog, QString *why)
{
    const int fd = ::socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *why = QString::fromLocal8Bit(strerror(errno));
        return -1;
    }
    const int one = 1;
    if (::setsockopt(fd, SOL_IP, IP_TRANSPARENT, &one, sizeof one) != 0) {
        *why = QStringLiteral("cannot mark the socket as the broker's (IP_TRANSPARENT: %1); airlockd needs root or "
                              "CAP_NET_ADMIN")
                   .arg(QString::fromLocal8Bit(strerror(errno)));
        ::close(fd);
        return -1;
    }
    if (type == SOCK_STREAM)
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    // The bridge may get its address a moment after the sandbox is announced.
    ::setsockopt(fd, SOL_IP, IP_FREEBIND, &one, sizeof one);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(address);
    if (::bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 || (type == SOCK_STREAM && ::listen(fd, backlog) != 0)) {
        *why = QString::fromLocal8Bit(strerror(errno));
        ::close(fd);
        return -1;
    }
    return fd;
}

} // namespace airlock
