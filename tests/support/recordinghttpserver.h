#pragma once
#include <QByteArray>
#include <QList>
#include <QString>
#include <chrono>
#include <mutex>
#include <thread>

// A plain HTTP server standing in for "the internet" of a test: it records the head of each
// request it receives (or whatever bytes came before a 3 s pause, e.g. a TLS ClientHello) and
// answers 200 with a fixed body. It listens on the current thread's network namespace.
class RecordingHttpServer {
public:
    explicit RecordingHttpServer(QByteArray body = QByteArrayLiteral("ok\n"));
    ~RecordingHttpServer();
    RecordingHttpServer(const RecordingHttpServer &) = delete;
    RecordingHttpServer &operator=(const RecordingHttpServer &) = delete;

    bool start(const QString &ipv4, quint16 port);
    void stop();
    QList<QByteArray> requests();
    // When the latest request was recorded: how long a held flow took to reach "the internet".
    std::chrono::steady_clock::time_point lastRequestAt();

private:
    void serve();
    QByteArray m_body;
    int m_fd = -1;
    std::thread m_thread;
    std::mutex m_mutex;
    QList<QByteArray> m_requests;
    std::chrono::steady_clock::time_point m_lastAt;
};
