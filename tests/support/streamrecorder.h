#pragma once
// An upstream standing in for "the internet" that records every byte each connection brings
// (so a test can assert that a host name never arrived at all) and answers as
//   Http: a keep-alive HTTP/1.1 server: every complete request (head, Content-Length body)
//         gets "200 ok", so pipelined and keep-alive requests reach it;
//   Tls:  the first ClientHello record gets a HelloRetryRequest, the second a ServerHello;
//   Raw:  every read gets "pong\n".
// It listens on the current thread's network namespace.
#include <QByteArray>
#include <QList>
#include <QString>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

class StreamRecorder {
public:
    enum class Mode { Http, Tls, Raw };
    explicit StreamRecorder(Mode mode) : m_mode(mode) {}
    ~StreamRecorder();
    StreamRecorder(const StreamRecorder &) = delete;
    StreamRecorder &operator=(const StreamRecorder &) = delete;

    bool start(const QString &ipv4, quint16 port);
    void stop();
    // Everything received, all connections joined in order of their arrival.
    QByteArray received();
    int connections();
    int requestsAnswered(); // Http: requests, Tls: hellos

private:
    void serve(int fd);
    QByteArray answer(QByteArray &buffer, int *hellos);
    Mode m_mode;
    int m_listener = -1;
    std::atomic<bool> m_stopping{false};
    std::thread m_accept;
    std::mutex m_mutex;
    std::vector<std::thread> m_connections;
    QList<QByteArray> m_received;
    int m_answered = 0;
};
