#include "tlsstream.h"

#include <cerrno>
#include <mutex>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace airlock {

struct TlsStream::Socket {
    int fd;
    QByteArray prefix;
    qsizetype offset = 0;
    int waitMs = 60000;
    Clock::time_point deadline = Clock::time_point::max();
    bool readsWait = true;
    bool timedOut = false;

    // Polls for `events` as long as waitMs and the deadline allow; false when that ran out.
    bool wait(short events, int ms) const
    {
        for (;;) {
            int allowed = ms;
            if (deadline != Clock::time_point::max()) {
                const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
                allowed = int(std::clamp<qint64>(left, 0, ms));
            }
            if (allowed <= 0)
                return false;
            pollfd p{fd, events, 0};
            const int rc = ::poll(&p, 1, allowed);
            if (rc > 0)
                return true; // readable, writable, or hung up: the next call says which
            if (rc == 0 || errno != EINTR)
                return false;
        }
    }
};

namespace {

using Socket = TlsStream::Socket;

int socketRead(BIO *bio, char *out, size_t size, size_t *read)
{
    auto *s = static_cast<Socket *>(BIO_get_data(bio));
    BIO_clear_retry_flags(bio);
    *read = 0;
    if (s->offset < s->prefix.size()) {
        const size_t n = std::min(size, size_t(s->prefix.size() - s->offset));
        memcpy(out, s->prefix.constData() + s->offset, n);
        s->offset += qsizetype(n);
        if (s->offset == s->prefix.size())
            s->prefix = QByteArray();
        *read = n;
        return 1;
    }
    for (;;) {
        const ssize_t n = ::recv(s->fd, out, size, MSG_DONTWAIT);
        if (n > 0) {
            *read = size_t(n);
            return 1;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!s->readsWait) {
                BIO_set_retry_read(bio);
                return 0;
            }
            if (s->wait(POLLIN, s->waitMs))
                continue;
            s->timedOut = true;
        }
        return 0; // EOF, error or timeout
    }
}

int socketWrite(BIO *bio, const char *data, size_t size, size_t *written)
{
    auto *s = static_cast<Socket *>(BIO_get_data(bio));
    BIO_clear_retry_flags(bio);
    for (;;) {
        const ssize_t n = ::send(s->fd, data, size, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) {
            *written = size_t(n);
            return 1;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (s->wait(POLLOUT, s->waitMs))
                continue;
            s->timedOut = true;
        }
        return 0;
    }
}

long socketCtrl(BIO *, int cmd, long, void *) { return cmd == BIO_CTRL_FLUSH ? 1 : 0; }

int socketDestroy(BIO *bio)
{
    delete static_cast<Socket *>(BIO_get_data(bio));
    BIO_set_data(bio, nullptr);
    return 1;
}

BIO_METHOD *socketMethod()
{
    static BIO_METHOD *method = nullptr;
    static std::once_flag once;
    std::call_once(once, [] {
        method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "airlock bounded socket");
        BIO_meth_set_read_ex(method, socketRead);
        BIO_meth_set_write_ex(method, socketWrite);
        BIO_meth_set_ctrl(method, socketCtrl);
        BIO_meth_set_destroy(method, socketDestroy);
    });
    return method;
}

} // namespace

TlsStream::~TlsStream() { SSL_free(m_ssl); }

bool TlsStream::attach(SSL_CTX *ctx, int fd, const QByteArray &prefix)
{
    m_ssl = SSL_new(ctx);
    BIO *bio = m_ssl ? BIO_new(socketMethod()) : nullptr;
    if (!bio)
        return false;
    m_socket = new Socket{fd, prefix};
    BIO_set_data(bio, m_socket);
    BIO_set_init(bio, 1);
    SSL_set_bio(m_ssl, bio, bio);
    return true;
}

int TlsStream::fd() const { return m_socket ? m_socket->fd : -1; }
void TlsStream::setWaitMs(int ms) { m_socket->waitMs = ms; }
void TlsStream::setDeadline(Clock::time_point deadline) { m_socket->deadline = deadline; }
bool TlsStream::timedOut() const { return m_socket && m_socket->timedOut; }

TlsStream::Fill TlsStream::accept()
{
    m_socket->readsWait = false;
    const int rc = SSL_accept(m_ssl);
    m_socket->readsWait = true;
    if (rc == 1)
        return Fill::Data;
    return SSL_get_error(m_ssl, rc) == SSL_ERROR_WANT_READ ? Fill::Wait : Fill::End;
}

// One SSL_read_ex into the end of buffer(); its return code.
int TlsStream::readRecord(size_t *n)
{
    const qsizetype old = m_buffer.size();
    m_buffer.resize(old + 16384 + 64);
    const int rc = SSL_read_ex(m_ssl, m_buffer.data() + old, 16384 + 64, n);
    m_buffer.resize(old + (rc == 1 ? qsizetype(*n) : 0));
    return rc;
}

bool TlsStream::fill()
{
    m_socket->timedOut = false;
    size_t n = 0;
    return readRecord(&n) == 1 && n > 0;
}

TlsStream::Fill TlsStream::tryFill()
{
    m_socket->readsWait = false;
    size_t n = 0;
    const int rc = readRecord(&n);
    m_socket->readsWait = true;
    if (rc == 1 && n > 0)
        return Fill::Data;
    if (SSL_get_error(m_ssl, rc) == SSL_ERROR_WANT_READ) {
        ERR_clear_error();
        return Fill::Wait;
    }
    return Fill::End;
}

bool TlsStream::waitReadable(int ms) const { return m_socket->wait(POLLIN, ms); }

bool TlsStream::hasBuffered() const
{
    return !m_buffer.isEmpty() || SSL_has_pending(m_ssl) || m_socket->offset < m_socket->prefix.size();
}

void TlsStream::releaseBuffers()
{
    if (m_buffer.isEmpty())
        m_buffer = QByteArray();
    if (m_ssl)
        SSL_free_buffers(m_ssl);
}

bool TlsStream::write(const char *data, qsizetype size)
{
    m_socket->timedOut = false;
    while (size > 0) {
        size_t n = 0;
        if (SSL_write_ex(m_ssl, data, size_t(size), &n) != 1)
            return false;
        data += n;
        size -= qsizetype(n);
    }
    return true;
}

void TlsStream::shutdown()
{
    if (m_ssl && SSL_is_init_finished(m_ssl)) {
        m_socket->waitMs = 0; // a peer that does not read gets no close_notify, and costs no wait
        SSL_shutdown(m_ssl);
    }
}

} // namespace airlock
