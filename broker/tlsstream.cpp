#include "tlsstream.h"

#include <cerrno>
#include <mutex>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace airlock {

namespace {

struct PrefixedSocket {
    int fd;
    QByteArray prefix;
    qsizetype offset = 0;
};

int prefixedRead(BIO *bio, char *out, size_t size, size_t *read)
{
    auto *s = static_cast<PrefixedSocket *>(BIO_get_data(bio));
    BIO_clear_retry_flags(bio);
    if (s->offset < s->prefix.size()) {
        const size_t n = std::min(size, size_t(s->prefix.size() - s->offset));
        memcpy(out, s->prefix.constData() + s->offset, n);
        s->offset += qsizetype(n);
        *read = n;
        return 1;
    }
    for (;;) {
        const ssize_t n = ::recv(s->fd, out, size, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *read = 0;
            return 0;
        }
        *read = size_t(n);
        return 1;
    }
}

int prefixedWrite(BIO *bio, const char *data, size_t size, size_t *written)
{
    auto *s = static_cast<PrefixedSocket *>(BIO_get_data(bio));
    BIO_clear_retry_flags(bio);
    for (;;) {
        const ssize_t n = ::send(s->fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        *written = size_t(n);
        return 1;
    }
}

long prefixedCtrl(BIO *, int cmd, long, void *) { return cmd == BIO_CTRL_FLUSH ? 1 : 0; }

int prefixedDestroy(BIO *bio)
{
    delete static_cast<PrefixedSocket *>(BIO_get_data(bio));
    BIO_set_data(bio, nullptr);
    return 1;
}

BIO_METHOD *prefixedMethod()
{
    static BIO_METHOD *method = nullptr;
    static std::once_flag once;
    std::call_once(once, [] {
        method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "airlock prefixed socket");
        BIO_meth_set_read_ex(method, prefixedRead);
        BIO_meth_set_write_ex(method, prefixedWrite);
        BIO_meth_set_ctrl(method, prefixedCtrl);
        BIO_meth_set_destroy(method, prefixedDestroy);
    });
    return method;
}

} // namespace

TlsStream::~TlsStream() { SSL_free(m_ssl); }

bool TlsStream::attach(SSL_CTX *ctx, int fd, const QByteArray &prefix)
{
    m_ssl = SSL_new(ctx);
    if (!m_ssl)
        return false;
    if (prefix.isEmpty()) {
        SSL_set_fd(m_ssl, fd);
        return true;
    }
    BIO *bio = BIO_new(prefixedMethod());
    if (!bio)
        return false;
    BIO_set_data(bio, new PrefixedSocket{fd, prefix});
    BIO_set_init(bio, 1);
    SSL_set_bio(m_ssl, bio, bio);
    return true;
}

bool TlsStream::fill()
{
    const qsizetype old = m_buffer.size();
    m_buffer.resize(old + 16384 + 64);
    size_t n = 0;
    const int rc = SSL_read_ex(m_ssl, m_buffer.data() + old, 16384 + 64, &n);
    m_buffer.resize(old + (rc == 1 ? qsizetype(n) : 0));
    return rc == 1 && n > 0;
}

bool TlsStream::write(const char *data, qsizetype size)
{
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
    if (m_ssl && SSL_is_init_finished(m_ssl))
        SSL_shutdown(m_ssl);
}

} // namespace airlock
