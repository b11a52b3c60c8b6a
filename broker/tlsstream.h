#pragma once
// Blocking, buffered TLS over one socket, for the relay's per-connection thread. The guest
// side starts with bytes the transparent proxy already read (its ClientHello peek): a small
// BIO serves those first, then reads the socket.
#include <QByteArray>
#include <openssl/types.h>

namespace airlock {

class TlsStream {
public:
    TlsStream() = default;
    ~TlsStream();
    TlsStream(const TlsStream &) = delete;
    TlsStream &operator=(const TlsStream &) = delete;

    // Wraps `fd` (not owned) in a new SSL of `ctx`; `prefix` is read before the socket.
    bool attach(SSL_CTX *ctx, int fd, const QByteArray &prefix = {});
    SSL *ssl() const { return m_ssl; }

    // Reads more into buffer(); false on EOF, error or timeout.
    bool fill();
    QByteArray &buffer() { return m_buffer; }
    // Writes everything; false on error.
    bool write(const char *data, qsizetype size);
    bool write(const QByteArray &bytes) { return write(bytes.constData(), bytes.size()); }
    void shutdown(); // close_notify, best effort

private:
    SSL *m_ssl = nullptr;
    QByteArray m_buffer;
};

} // namespace airlock
