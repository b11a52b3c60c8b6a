#pragma once
// A small HTTPS/1.1 server for the interception tests: its own certificate (from a test CA),
// keep-alive, and a record of every request exactly as it arrived.
#include <QByteArray>
#include <QList>
#include <QPair>
#include <atomic>
#include <functional>
#include <mutex>
#include <openssl/types.h>
#include <thread>
#include <vector>

class TlsTestServer {
public:
    struct Request {
        int connection = 0;
        QByteArray method;
        QByteArray target;
        QList<QPair<QByteArray, QByteArray>> headers;
        QByteArray body; // de-chunked
        QByteArray header(const QByteArray &name) const;
    };

    TlsTestServer(X509 *cert, EVP_PKEY *key); // listens on 127.0.0.1, an ephemeral port
    // Listens on `ipv4` (host order) and `port` (tests/secretsvm: a stand-in outside address).
    TlsTestServer(X509 *cert, EVP_PKEY *key, quint32 ipv4, quint16 port);
    ~TlsTestServer();
    quint16 port() const { return m_port; }
    QList<Request> requests();
    qint64 applicationBytes() const { return m_appBytes.load(); } // bytes read after a handshake
    int connections() const { return m_connections.load(); }
    // Benchmarks: stop keeping every request; count those whose `name` header equals `value`.
    void setRecording(bool on) { m_recording = on; }
    void expectHeader(const QByteArray &name, const QByteArray &value) { m_expectName = name; m_expectValue = value; }
    qint64 served() const { return m_served.load(); }
    // Answers requests with whole HTTP responses of its own (an empty one: the default "ok"
    // answer); set before the first request arrives.
    using Responder = std::function<QByteArray(const Request &)>;
    void setResponder(Responder responder) { m_responder = std::move(responder); }
    qint64 matched() const { return m_matched.load(); }

private:
    void acceptLoop();
    void serve(int fd, int id);
    SSL_CTX *m_ctx = nullptr;
    int m_listener = -1;
    quint16 m_port = 0;
    std::thread m_acceptor;
    std::mutex m_mutex;
    std::atomic<int> m_active{0};
    std::vector<int> m_fds;
    QList<Request> m_requests;
    std::atomic<qint64> m_appBytes{0};
    std::atomic<int> m_connections{0};
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_recording{true};
    std::atomic<qint64> m_served{0};
    std::atomic<qint64> m_matched{0};
    QByteArray m_expectName;
    QByteArray m_expectValue;
    Responder m_responder;
};

// Test PKI: a CA and certificates it signs (EC P-256).
struct TestPki {
    X509 *caCert = nullptr;
    EVP_PKEY *caKey = nullptr;
    TestPki();
    ~TestPki();
    // A server certificate for `names` signed by this CA; the caller frees both.
    void issue(const QList<QByteArray> &names, X509 **cert, EVP_PKEY **key) const;
    QByteArray caPem() const;
};
