#include "streamrecorder.h"
#include "tcplisten.h"
#include "tlsrecords.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

StreamRecorder::~StreamRecorder() { stop(); }

bool StreamRecorder::start(const QString &ipv4, quint16 port)
{
    m_listener = listenTcp(ipv4, port);
    if (m_listener < 0)
        return false;
    m_accept = std::thread([this] {
        for (;;) {
            const int c = ::accept4(m_listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0)
                return;
            std::lock_guard lock(m_mutex);
            m_received.append(QByteArray());
            m_connections.emplace_back([this, c] { serve(c); });
        }
    });
    return true;
}

void StreamRecorder::stop()
{
    if (m_listener < 0)
        return;
    m_stopping = true;
    ::shutdown(m_listener, SHUT_RDWR);
    m_accept.join();
    std::vector<std::thread> threads;
    {
        std::lock_guard lock(m_mutex);
        threads.swap(m_connections);
    }
    for (std::thread &t : threads)
        t.join();
    ::close(m_listener);
    m_listener = -1;
}

QByteArray StreamRecorder::received()
{
    std::lock_guard lock(m_mutex);
    return m_received.join();
}

int StreamRecorder::connections()
{
    std::lock_guard lock(m_mutex);
    return int(m_received.size());
}

int StreamRecorder::requestsAnswered()
{
    std::lock_guard lock(m_mutex);
    return m_answered;
}

// What to send for the bytes in `buffer` (consumed as far as they were answered).
QByteArray StreamRecorder::answer(QByteArray &buffer, int *hellos)
{
    QByteArray out;
    if (m_mode == Mode::Raw) {
        buffer.clear();
        return QByteArrayLiteral("pong\n");
    }
    for (;;) {
        if (m_mode == Mode::Tls) {
            if (buffer.size() < 5 || buffer.size() < 5 + (quint8(buffer[3]) << 8 | quint8(buffer[4])))
                return out;
            const qsizetype length = 5 + (quint8(buffer[3]) << 8 | quint8(buffer[4]));
            if (buffer[0] == char(22) && ++*hellos <= 2)
                out += tlstest::serverHello(*hellos == 1);
            buffer.remove(0, length);
            continue;
        }
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return out;
        qsizetype body = 0;
        for (const QByteArray &line : buffer.left(end).split('\n'))
            if (line.toLower().startsWith("content-length:"))
                body = line.mid(15).trimmed().toLongLong();
        if (buffer.size() < end + 4 + body)
            return out;
        buffer.remove(0, end + 4 + body);
        out += "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
        ++*hellos;
    }
}

void StreamRecorder::serve(int fd)
{
    qsizetype index = 0;
    {
        std::lock_guard lock(m_mutex);
        index = m_received.size() - 1;
    }
    QByteArray buffer;
    int answered = 0;
    char chunk[4096];
    while (!m_stopping) {
        pollfd pfd{fd, POLLIN, 0};
        if (::poll(&pfd, 1, 100) != 1)
            continue;
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0)
            break;
        buffer.append(chunk, int(n));
        const int before = answered;
        const QByteArray reply = answer(buffer, &answered);
        {
            std::lock_guard lock(m_mutex);
            m_received[index].append(chunk, int(n));
            m_answered += answered - before;
        }
        if (!reply.isEmpty())
            ::send(fd, reply.constData(), size_t(reply.size()), MSG_NOSIGNAL);
    }
    ::close(fd);
}
