// API benchmark: `status` round trips per second and p50/p99 latency with 1 and
// 16 clients against a real airlockd, beside a bare Unix-socket echo server measured the
// same way in the same run. Prints ratios; the target is at least 25% of the echo's rate.
#include "api/blockingclient.h"
#include "daemonprocess.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace airlock;
using Clock = std::chrono::steady_clock;

namespace {

struct Sample {
    double perSecond = 0;
    double p50us = 0;
    double p99us = 0;
    long failures = 0;
};

// The reference: one event loop (like airlockd's) that reads lines and writes back a reply
// of the same size as airlockd's answer, with no parsing and no dispatch.
class EchoServer {
public:
    EchoServer(const QString &path, QByteArray reply) : m_reply(std::move(reply))
    {
        m_listen = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        const QByteArray p = QFile::encodeName(path);
        std::memcpy(a.sun_path, p.constData(), size_t(p.size()));
        ::bind(m_listen, reinterpret_cast<sockaddr *>(&a), sizeof a);
        ::listen(m_listen, 64);
        ::pipe2(m_stop, O_NONBLOCK);
        m_loop = std::thread([this] { run(); });
    }
    ~EchoServer()
    {
        [[maybe_unused]] ssize_t w = ::write(m_stop[1], "x", 1);
        m_loop.join();
        ::close(m_listen);
    }

private:
    void run()
    {
        const int ep = ::epoll_create1(0);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = m_listen;
        ::epoll_ctl(ep, EPOLL_CTL_ADD, m_listen, &ev);
        ev.data.fd = m_stop[0];
        ::epoll_ctl(ep, EPOLL_CTL_ADD, m_stop[0], &ev);
        std::map<int, QByteArray> buffers;
        epoll_event events[64];
        char chunk[65536];
        for (;;) {
            const int n = ::epoll_wait(ep, events, 64, -1);
            for (int i = 0; i < n; ++i) {
                const int fd = events[i].data.fd;
                if (fd == m_stop[0]) {
                    for (auto &[c, b] : buffers)
                        ::close(c);
                    ::close(ep);
                    return;
                }
                if (fd == m_listen) {
                    for (int c; (c = ::accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK)) >= 0;) {
                        epoll_event cev{};
                        cev.events = EPOLLIN;
                        cev.data.fd = c;
                        ::epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
                        buffers[c];
                    }
                    continue;
                }
                const ssize_t got = ::read(fd, chunk, sizeof chunk);
                if (got <= 0) {
                    ::close(fd);
                    buffers.erase(fd);
                    continue;
                }
                QByteArray &buf = buffers[fd];
                buf.append(chunk, got);
                QByteArray out;
                for (qsizetype nl; (nl = buf.indexOf('\n')) >= 0;) {
                    // Echo the id the way a JSON-RPC server would, so the client logic is identical.
                    const qsizetype idAt = buf.indexOf("\"id\":");
                    const QByteArray id = buf.mid(idAt + 5, buf.indexOf(',', idAt) - idAt - 5);
                    out += "{\"id\":" + id + "," + m_reply;
                    buf.remove(0, nl + 1);
                }
                [[maybe_unused]] ssize_t w = ::write(fd, out.constData(), size_t(out.size()));
            }
        }
    }
    QByteArray m_reply;
    int m_listen;
    int m_stop[2];
    std::thread m_loop;
};

Sample measure(const QString &socketPath, int clients, double seconds)
{
    std::vector<std::vector<double>> latencies(static_cast<size_t>(clients));
    std::atomic<long> failures{0};
    std::vector<std::thread> threads;
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    for (int c = 0; c < clients; ++c) {
        threads.emplace_back([&, c] {
            BlockingClient client;
            if (!client.connectTo(socketPath).ok()) {
                ++failures;
                return;
            }
            auto &mine = latencies[size_t(c)];
            mine.reserve(200000);
            while (Clock::now() < end) {
                const auto t0 = Clock::now();
                const auto r = client.call(QStringLiteral("status"), {}, 5000);
                const auto t1 = Clock::now();
                if (!r.ok() || !r->isObject()) {
                    ++failures;
                    continue;
                }
                mine.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            }
        });
    }
    for (auto &t : threads)
        t.join();
    std::vector<double> all;
    for (auto &v : latencies)
        all.insert(all.end(), v.begin(), v.end());
    std::sort(all.begin(), all.end());
    Sample s;
    s.failures = failures;
    if (all.empty())
        return s;
    s.perSecond = double(all.size()) / seconds;
    s.p50us = all[all.size() / 2];
    s.p99us = all[std::min(all.size() - 1, all.size() * 99 / 100)];
    return s;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const double seconds = qEnvironmentVariableIntValue("AIRLOCK_BENCH_SECONDS") > 0
        ? qEnvironmentVariableIntValue("AIRLOCK_BENCH_SECONDS") : 3.0;

    DaemonProcess daemon;
    if (!daemon.start()) {
        std::fprintf(stderr, "bench_api: airlockd did not start: %s\n", qPrintable(daemon.log()));
        return 1;
    }
    // The echo replies with a body as large as airlockd's status result.
    BlockingClient probe;
    if (!probe.connectTo(daemon.socketPath()).ok())
        return 1;
    const QByteArray statusBody = QJsonDocument(probe.call(QStringLiteral("status"))->toObject()).toJson(QJsonDocument::Compact);
    QTemporaryDir dir;
    EchoServer echo(dir.filePath(QStringLiteral("echo.sock")),
                    "\"jsonrpc\":\"2.0\",\"result\":" + statusBody + "}\n");

    std::printf("API benchmark (%s build): `status` round trips, %.0f s per run\n", AIRLOCK_BUILD_TYPE, seconds);
    std::printf("%-8s | %12s %9s %9s | %12s %9s %9s | %s\n", "clients", "airlockd/s", "p50 us", "p99 us",
                "echo/s", "p50 us", "p99 us", "airlockd/echo");
    int rc = 0;
    for (int clients : {1, 16}) {
        const Sample a = measure(daemon.socketPath(), clients, seconds);
        const Sample e = measure(dir.filePath(QStringLiteral("echo.sock")), clients, seconds);
        const double ratio = e.perSecond > 0 ? a.perSecond / e.perSecond : 0;
        std::printf("%-8d | %12.0f %9.1f %9.1f | %12.0f %9.1f %9.1f | %5.1f%% %s\n", clients, a.perSecond, a.p50us,
                    a.p99us, e.perSecond, e.p50us, e.p99us, ratio * 100, ratio >= 0.25 ? "(target >= 25%: met)" : "(target >= 25%: MISSED)");
        if (a.failures || e.failures || a.perSecond <= 0) {
            std::fprintf(stderr, "bench_api: %ld failed calls to airlockd, %ld to the echo\n", a.failures, e.failures);
            rc = 1;
        }
    }
    daemon.stop();
    return rc;
}
