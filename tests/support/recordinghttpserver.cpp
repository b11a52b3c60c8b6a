#include "recordinghttpserver.h"
#include "tcplisten.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

RecordingHttpServer::RecordingHttpServer(QByteArray body) : m_body(std::move(body)) {}

RecordingHttpServer::~RecordingHttpServer() { stop(); }

bool RecordingHttpServer::start(const QString &ipv4, quint16 port)
{
    m_fd = listenTcp(ipv4, port);
    if (m_fd < 0)
        return false;
    m_thread = std::thread([this] { serve(); });
    return true;
}

void RecordingHttpServer::stop()
{
    if (m_fd < 0)
        return;
    ::shutdown(m_fd, SHUT_RDWR);
    if (m_thread.joinable())
        m_thread.join();
    ::close(m_fd);
    m_fd = -1;
}

QList<QByteArray> RecordingHttpServer::requests()
{
    std::lock_guard lock(m_mutex);
    return m_requests;
}

std::chrono::steady_clock::time_point RecordingHttpServer::lastRequestAt()
{
    std::lock_guard lock(m_mutex);
    return m_lastAt;
}

void RecordingHttpServer::serve()
{
    const QByteArray response = "HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(m_body.size()) +
                                "\r\nConnection: close\r\n\r\n" + m_body;
    for (;;) {
        const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0)
            return;
        QByteArray request;
        char buf[4096];
        // The head, then as much body as Content-Length announces (bounded): what was
        // uploaded is part of what the test checks.
        auto complete = [&request] {
            const qsizetype end = request.indexOf("\r\n\r\n");
            if (end < 0)
                return false;
            qsizetype length = 0;
            for (const QByteArray &line : request.left(end).split('\n'))
                if (line.toLower().startsWith("content-length:"))
                    length = qMin<qsizetype>(line.mid(15).trimmed().toLongLong(), 16 << 20);
            return request.size() >= end + 4 + length;
        };
        while (!complete()) {
            pollfd pfd{c, POLLIN, 0};
            if (::poll(&pfd, 1, 3000) != 1)
                break;
            const ssize_t n = ::recv(c, buf, sizeof buf, 0);
            if (n <= 0)
                break;
            request.append(buf, int(n));
        }
        {
            std::lock_guard lock(m_mutex);
            m_requests.append(request);
            m_lastAt = std::chrono::steady_clock::now();
        }
        ::send(c, response.constData(), size_t(response.size()), MSG_NOSIGNAL);
        ::close(c);
    }
}
