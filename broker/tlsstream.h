#pragma once
// Buffered TLS over one socket for the interceptor's workers. Every wait for the socket is
// bounded: a read or write waits at most waitMs() and never past deadline(), so a peer that
// stops sending (or reading) cannot hold a worker longer than that. tryFill() and accept()
// never wait, so a connection idle between requests can be parked without a thread. The
// guest side starts with bytes the transparent proxy already read (its ClientHello peek):
// the socket's BIO serves those first.
#include <QByteArray>
#include <chrono>
#include <openssl/types.h>

namespace airlock {

class TlsStream {
public:
    using Clock = std::chrono::steady_clock;
    enum class Fill { Data, Wait, End }; // Wait: no whole record yet (tryFill only)

    TlsStream() = default;
    ~TlsStream();
    TlsStream(const TlsStream &) = delete;
    TlsStream &operator=(const TlsStream &) = delete;

    // Wraps `fd` (not owned) in a new SSL of `ctx`; `prefix` is read before the socket.
    bool attach(SSL_CTX *ctx, int fd, const QByteArray &prefix = {});
    SSL *ssl() const { return m_ssl; }
    int fd() const;

    void setWaitMs(int ms);
    void setDeadline(Clock::time_point deadline); // Clock::time_point::max(): none
    bool timedOut() const;                         // the last failure was a wait running out

    // Server side: advances the handshake without waiting (Wait: the guest must send more).
    Fill accept();
    // Reads more into buffer(), waiting as allowed; false on EOF, error or timeout.
    bool fill();
    // Reads more into buffer() if a whole record is there, never waiting.
    Fill tryFill();
    // Waits up to `ms` (and the deadline) for the socket to become readable.
    bool waitReadable(int ms) const;
    // Bytes already here: decrypted, in a record OpenSSL read ahead, or left of the prefix.
    bool hasBuffered() const;
    // Frees the read and write buffers of an idle connection (they come back on use).
    void releaseBuffers();

    QByteArray &buffer() { return m_buffer; }
    const QByteArray &buffer() const { return m_buffer; }
    // Writes everything; false on error or timeout.
    bool write(const char *data, qsizetype size);
    bool write(const QByteArray &bytes) { return write(bytes.constData(), bytes.size()); }
    void shutdown(); // close_notify, best effort, never waits

    struct Socket; // the BIO's state (tlsstream.cpp)

private:
    int readRecord(size_t *n);
    SSL *m_ssl = nullptr;
    Socket *m_socket = nullptr; // owned by the SSL's BIO
    QByteArray m_buffer;
};

} // namespace airlock
