#include "sentinel.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

Sentinel::~Sentinel()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

bool Sentinel::start(int type, const QString &ipv4, quint16 port, bool shared)
{
    m_type = type;
    m_fd = ::socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    const int one = 1;
    if (shared)
        ::setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    ::inet_pton(AF_INET, ipv4.toLatin1().constData(), &sa.sin_addr);
    return ::bind(m_fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) == 0 && (type != SOCK_STREAM || ::listen(m_fd, 8) == 0);
}

bool Sentinel::heardAnything()
{
    char buf[512];
    if (m_type == SOCK_STREAM)
        return ::accept(m_fd, nullptr, nullptr) >= 0;
    return ::recv(m_fd, buf, sizeof buf, MSG_DONTWAIT) >= 0;
}
