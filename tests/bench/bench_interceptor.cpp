// Interception benchmark: the same header injection through Airlock's intercepting
// relay, haproxy (one thread), mitmproxy and squid (ssl-bump), side by side in one run on this
// machine, against one HTTPS upstream on loopback. Every relay gets the same load: keep-alive
// requests/s over 8 and over 64 connections, new TLS connections/s (handshake + one request
// each, 8 clients) and bulk download throughput, each also per second of the relay's own CPU.
// Checks every answer is a 200 and the upstream really got the real value every time. Targets:
// >= 1.0x haproxy's keep-alive requests/s and >= 0.9x its new connections/s on one relay core,
// >= 10x mitmproxy's requests/s, ahead of squid, >= 1 GB/s bulk. Prints the table; fails only
// when a measurement did not work.
// The load is the bench's own OpenSSL client on threads rather than wrk: it checks each answer
// and runs the same way through the CONNECT proxies, with no package more to install.
#include "core/loginspec.h"
#include "guestfront.h"
#include "haproxyprocess.h"
#include "interceptor.h"
#include "support.h"
#include "tlstestserver.h"
#include "vault.h"
#include "x509util.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <atomic>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <map>
#include <thread>
#include <unistd.h>

using namespace airlock;
using testsupport::writeFile;
using Clock = std::chrono::steady_clock;

namespace {

const QByteArray kReal = QByteArrayLiteral("bench-REAL-api-key-0123456789abcdefghij");
const char *kHost = "api.bench.test";

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

// How the client reaches the upstream: straight (the interceptor's front stands in for the
// transparent redirect) or through an explicit proxy with CONNECT.
struct Path {
    QString name;
    quint16 port = 0;
    bool connect = false;      // send CONNECT first
    QString connectTarget;     // host:port for CONNECT
    QString caFile;            // what the client trusts
    QByteArray header;         // what the client sends (placeholder, or nothing for the proxies)
    quint16 hostPort = 0;      // the port in the Host header, as clients send it
};

class Client {
public:
    explicit Client(const Path &path) : m_path(path)
    {
        m_ctx = SSL_CTX_new(TLS_client_method());
        SSL_CTX_load_verify_locations(m_ctx, path.caFile.toLocal8Bit().constData(), nullptr);
        SSL_CTX_set_verify(m_ctx, SSL_VERIFY_PEER, nullptr);
        static const unsigned char alpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
        SSL_CTX_set_alpn_protos(m_ctx, alpn, sizeof alpn);
    }
    ~Client()
    {
        close();
        SSL_CTX_free(m_ctx);
    }
    bool open()
    {
        close();
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(m_path.port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        const int one = 1;
        ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        timeval tv{20, 0};
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (::connect(m_fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0)
            return false;
        if (m_path.connect) {
            const QByteArray req = "CONNECT " + m_path.connectTarget.toLatin1() + " HTTP/1.1\r\nHost: " +
                                   m_path.connectTarget.toLatin1() + "\r\n\r\n";
            ::send(m_fd, req.constData(), size_t(req.size()), MSG_NOSIGNAL);
            QByteArray reply;
            char c;
            while (!reply.endsWith("\r\n\r\n") && ::recv(m_fd, &c, 1, 0) == 1)
                reply.append(c);
            if (!reply.startsWith("HTTP/1.1 200") && !reply.startsWith("HTTP/1.0 200")) {
                std::fprintf(stderr, "  %s: CONNECT refused: %s\n", qPrintable(m_path.name), reply.left(200).constData());
                return false;
            }
        }
        m_ssl = SSL_new(m_ctx);
        SSL_set_fd(m_ssl, m_fd);
        SSL_set_tlsext_host_name(m_ssl, kHost);
        SSL_set1_host(m_ssl, kHost);
        if (SSL_connect(m_ssl) != 1) {
            if (!m_reported) {
                char err[256];
                ERR_error_string_n(ERR_get_error(), err, sizeof err);
                std::fprintf(stderr, "  %s: TLS handshake failed: %s (verify %ld)\n", qPrintable(m_path.name), err,
                             SSL_get_verify_result(m_ssl));
                m_reported = true;
            }
            return false;
        }
        m_buf.clear();
        return true;
    }
    void close()
    {
        if (m_ssl) {
            SSL_free(m_ssl);
            m_ssl = nullptr;
        }
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }
    // One GET; returns the body size, or -1.
    qint64 get(const QByteArray &target)
    {
        const QByteArray req = "GET " + target + " HTTP/1.1\r\nHost: " + QByteArray(kHost) + ':' + QByteArray::number(m_path.hostPort) + "\r\n" + m_path.header +
                               "User-Agent: airlock-bench\r\n\r\n";
        if (SSL_write(m_ssl, req.constData(), int(req.size())) <= 0)
            return -1;
        qsizetype end;
        while ((end = m_buf.indexOf("\r\n\r\n")) < 0) {
            if (!fill()) {
                if (!m_reported)
                    std::fprintf(stderr, "  %s: connection closed before an answer\n", qPrintable(m_path.name));
                m_reported = true;
                return -1;
            }
        }
        const QByteArray head = m_buf.left(end).toLower();
        const qsizetype cl = head.indexOf("content-length:");
        if (!head.startsWith("http/1.1 200") || cl < 0) {
            if (!m_reported)
                std::fprintf(stderr, "  %s: unexpected answer: %s\n", qPrintable(m_path.name), m_buf.left(300).constData());
            m_reported = true;
            return -1;
        }
        const qint64 length = head.mid(cl + 15, head.indexOf('\r', cl) - cl - 15).trimmed().toLongLong();
        m_buf.remove(0, end + 4);
        qint64 left = length;
        while (left > 0) {
            if (m_buf.isEmpty() && !fill())
                return -1;
            const qint64 take = std::min<qint64>(left, m_buf.size());
            m_buf.remove(0, qsizetype(take));
            left -= take;
        }
        return length;
    }

private:
    bool fill()
    {
        char tmp[65536];
        size_t n = 0;
        if (SSL_read_ex(m_ssl, tmp, sizeof tmp, &n) != 1)
            return false;
        m_buf.append(tmp, qsizetype(n));
        return true;
    }
    Path m_path;
    SSL_CTX *m_ctx = nullptr;
    SSL *m_ssl = nullptr;
    int m_fd = -1;
    QByteArray m_buf;
    bool m_reported = false;
};

// CPU time the relay spent, per thread, read from /proc/PID/task/*/schedstat (nanoseconds on
// a CPU). "On one core" in the target means bytes per second of relay CPU: on a 2-core machine
// the wall-clock rate also pays for the client's and the upstream's own TLS on the same cores.
struct RelayThreads {
    pid_t pid = 0;       // whose threads
    QByteArray comm;     // only threads whose name starts so; empty: all of them
};

std::map<pid_t, qint64> relayCpuNs(const RelayThreads &relay)
{
    std::map<pid_t, qint64> ns;
    const QString tasks = QStringLiteral("/proc/%1/task").arg(relay.pid);
    for (const QString &tid : QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks + QLatin1Char('/') + tid + QStringLiteral("/comm"));
        QFile stat(tasks + QLatin1Char('/') + tid + QStringLiteral("/schedstat"));
        if (!comm.open(QIODevice::ReadOnly) || !stat.open(QIODevice::ReadOnly))
            continue; // the thread just ended
        if (!relay.comm.isEmpty() && !comm.readAll().startsWith(relay.comm))
            continue;
        ns[pid_t(tid.toInt())] = stat.readAll().split(' ').value(0).toLongLong();
    }
    return ns;
}

// CPU seconds between two snapshots. A thread only in `after` began in between (a pool
// growing under load): all of its time counts. One that ended in between is not seen.
double cpuSecondsBetween(const std::map<pid_t, qint64> &before, const std::map<pid_t, qint64> &after)
{
    qint64 ns = 0;
    for (const auto &[tid, t] : after) {
        const auto it = before.find(tid);
        ns += it != before.end() ? t - it->second : t;
    }
    return double(ns) / 1e9;
}

struct Result3 {
    double rps8 = 0, rps64 = 0, cps = 0, mbps = 0; // keep-alive with 8 and 64 connections, new connections, bulk
    double rps8PerCore = 0, rps64PerCore = 0, cpsPerCore = 0; // the same per second of the relay's CPU; 0: no relay
    double relayCpuSeconds = 0; // the relay's CPU for the bulk download; 0: no relay
    qint64 bulkBytes = 0;
    double mbpsPerCore() const { return relayCpuSeconds > 0 ? double(bulkBytes) / 1e6 / relayCpuSeconds : 0; }
    long failures = 0;
    bool ok = false;
    bool injected = false; // the upstream saw the real value in every request of this run
};

TlsTestServer *g_upstream = nullptr;

// `clients` threads, each with its own connection, for `window` seconds: keep-alive requests
// back to back, or (fresh) a new TLS connection per request. Answers that are not a 200 count
// as failures.
struct Rate {
    double perSecond = 0;
    double perRelayCpuSecond = 0; // 0: no relay
};

Rate drive(const Path &path, double window, int clients, bool fresh, std::atomic<long> &failed, const RelayThreads &relay)
{
    std::atomic<long> done{0};
    const auto cpuBefore = relay.pid ? relayCpuNs(relay) : std::map<pid_t, qint64>{};
    const auto start = Clock::now();
    std::vector<std::thread> threads;
    for (int i = 0; i < clients; ++i) {
        threads.emplace_back([&] {
            Client c(path);
            if (!fresh && !c.open()) {
                ++failed;
                return;
            }
            while (seconds(start) < window) {
                if (fresh) {
                    if (c.open() && c.get("/n") >= 0)
                        ++done;
                    else
                        ++failed;
                    c.close();
                } else if (c.get("/k") >= 0) {
                    ++done;
                } else {
                    ++failed;
                    if (!c.open())
                        return;
                }
            }
        });
    }
    for (auto &t : threads)
        t.join();
    // Keep-alive connections are closed by now; their worker threads stay (the pool keeps them).
    const double elapsed = seconds(start);
    const double cpu = relay.pid ? cpuSecondsBetween(cpuBefore, relayCpuNs(relay)) : 0;
    return Rate{double(done) / elapsed, cpu > 0 ? double(done) / cpu : 0};
}

Result3 measure(const Path &path, double window, qint64 bulkBytes, const RelayThreads &relay = {})
{
    Result3 r;
    const qint64 servedBefore = g_upstream->served(), matchedBefore = g_upstream->matched();
    // Warm up (leaf minting, upstream connection) and check the path works at all.
    for (int attempt = 0;; ++attempt) { // a proxy may accept before it is ready to serve
        Client c(path);
        if (c.open() && c.get("/warm") >= 0)
            break;
        if (attempt == 10)
            return r;
        QThread::msleep(500);
    }
    std::atomic<long> failed{0};
    const Rate k8 = drive(path, window, 8, false, failed, relay);
    const Rate k64 = drive(path, window, 64, false, failed, relay);
    const Rate conns = drive(path, window, 8, true, failed, relay);
    r.rps8 = k8.perSecond;
    r.rps8PerCore = k8.perRelayCpuSecond;
    r.rps64 = k64.perSecond;
    r.rps64PerCore = k64.perRelayCpuSecond;
    r.cps = conns.perSecond;
    r.cpsPerCore = conns.perRelayCpuSecond;
    // Bulk: one download.
    Client c(path);
    const bool opened = c.open();
    const auto cpuBefore = relay.pid ? relayCpuNs(relay) : std::map<pid_t, qint64>{};
    const auto start = Clock::now();
    const qint64 got = opened ? c.get("/big?n=" + QByteArray::number(bulkBytes)) : -1;
    if (got == bulkBytes)
        r.mbps = double(got) / 1e6 / seconds(start);
    else
        ++failed;
    if (relay.pid) // before closing: the relay's connection thread is still there
        r.relayCpuSeconds = cpuSecondsBetween(cpuBefore, relayCpuNs(relay));
    r.bulkBytes = got;
    r.failures = failed;
    r.ok = r.rps8 > 0 && r.rps64 > 0 && r.cps > 0 && r.mbps > 0;
    r.injected = g_upstream->served() - servedBefore == g_upstream->matched() - matchedBefore;
    return r;
}

bool waitForPort(quint16 port, int ms)
{
    const auto start = Clock::now();
    while (seconds(start) * 1000 < ms) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        const bool up = ::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0;
        ::close(fd);
        if (up)
            return true;
        QThread::msleep(100);
    }
    return false;
}

quint16 freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

QByteArray keyPem(EVP_PKEY *key)
{
    BIO *bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    char *data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    QByteArray out(data, n);
    BIO_free(bio);
    return out;
}

void print(const char *name, const Result3 &r, const Result3 &airlock, bool ratios, const char *note)
{
    if (!r.ok) {
        std::printf("  %-20s %s\n", name, "unavailable (see above)");
        return;
    }
    auto perCore = [](double v) { return v > 0 ? QByteArray::number(v, 'f', 0) : QByteArrayLiteral("-"); };
    std::printf("  %-20s %9.0f %9.0f %9.0f %9.0f | %9s %9s %9s %9s |", name, r.rps8, r.rps64, r.cps, r.mbps,
                perCore(r.rps8PerCore).constData(), perCore(r.rps64PerCore).constData(), perCore(r.cpsPerCore).constData(),
                perCore(r.mbpsPerCore()).constData());
    if (ratios)
        std::printf("  x%.2f / x%.2f / x%.2f / x%.2f; x%.2f / x%.2f", airlock.rps8 / r.rps8, airlock.rps64 / r.rps64, airlock.cps / r.cps,
                    airlock.mbps / r.mbps, r.rps8PerCore > 0 ? airlock.rps8PerCore / r.rps8PerCore : 0,
                    r.cpsPerCore > 0 ? airlock.cpsPerCore / r.cpsPerCore : 0);
    std::printf("  %s%s(failures %ld, header injected: %s)\n", note, *note ? " " : "", r.failures, r.injected ? "yes" : "NO");
}

} // namespace

int main(int argc, char **argv)
{
    ::signal(SIGPIPE, SIG_IGN); // a peer closing mid-write is an error return, not death
    QCoreApplication app(argc, argv);
    const double window = qEnvironmentVariableIntValue("BENCH_SECONDS") > 0 ? qEnvironmentVariableIntValue("BENCH_SECONDS") : 2;
    const qint64 bulk = qint64(qEnvironmentVariableIntValue("BENCH_BULK_MB") > 0 ? qEnvironmentVariableIntValue("BENCH_BULK_MB") : 1024) << 20;
    QTemporaryDir dir;
    dir.setAutoRemove(qEnvironmentVariableIsEmpty("BENCH_KEEP"));
    if (!dir.autoRemove())
        std::fprintf(stderr, "keeping %s\n", qPrintable(dir.path()));
    QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                                          QFileDevice::ReadOther | QFileDevice::ExeOther | QFileDevice::ReadGroup |
                                          QFileDevice::ExeGroup);

    // Vault, secret, sandbox and its CA, as sandbox creation makes them.
    const QString db = dir.filePath(QStringLiteral("airlock.db"));
    Vault vault(db);
    if (!vault.open() || !vault.init(QByteArrayLiteral("benchmark passphrase")) ||
        !vault.setSecret(QStringLiteral("bench"), {QString::fromLatin1(kHost)}, QStringLiteral("x-api-key: {}"), kReal, 0)) {
        std::fprintf(stderr, "bench_interceptor: cannot set up the vault\n");
        return 1;
    }
    const qint64 box = testsupport::addSandbox(db, QStringLiteral("bench"));
    const QByteArray placeholder = vault.lendSecret(box, QStringLiteral("bench"), QStringLiteral("KEY"), 0).value();
    const QString sandboxCa = dir.filePath(QStringLiteral("sandbox-ca.pem"));
    writeFile(sandboxCa, vault.issueSandboxCa(box).value());

    // Upstream.
    TestPki pki;
    X509 *cert = nullptr;
    EVP_PKEY *key = nullptr;
    pki.issue({kHost, "127.0.0.1"}, &cert, &key);
    TlsTestServer upstream(cert, key);
    X509_free(cert);
    EVP_PKEY_free(key);
    upstream.setRecording(false);
    upstream.expectHeader("x-api-key", kReal);
    g_upstream = &upstream;
    const QString upstreamCa = dir.filePath(QStringLiteral("upstream-ca.pem"));
    writeFile(upstreamCa, pki.caPem());

    Interceptor::Options options;
    options.extraCaFile = upstreamCa;
    Interceptor interceptor(vault, options, {});
    if (!interceptor.init()) {
        std::fprintf(stderr, "bench_interceptor: interceptor init failed\n");
        return 1;
    }
    const quint16 upPort = upstream.port();
    Front front(interceptor, QStringLiteral("bench"), [upPort](const QString &sni) {
        return UpstreamAddress{sni, QHostAddress(QHostAddress::LocalHost), upPort};
    });

    std::printf("interception benchmark, %s build: %.0f s windows, keep-alive over 8 and 64 connections, new connections from 8 "
                "clients, %lld MiB bulk, %d cores\n", AIRLOCK_BUILD_TYPE, window, bulk >> 20, QThread::idealThreadCount());
    const QByteArray keyHeader = "x-api-key: " + placeholder + "\r\n";

    Path direct{QStringLiteral("upstream direct"), upPort, false, {}, upstreamCa, "x-api-key: " + kReal + "\r\n", upPort};
    const Result3 base = measure(direct, window, bulk);

    Path airlockPath{QStringLiteral("airlock"), front.port(), false, {}, sandboxCa, keyHeader, front.port()};
    const Result3 air = measure(airlockPath, window, bulk, RelayThreads{::getpid(), QByteArrayLiteral("alk-i")});
    const bool injected = air.injected;

    // The same interception with no secret to swap or scan for: a sandbox whose CA covers the
    // host through a sign-in that has issued nothing yet, its client sending the key itself.
    // Beside the row above it is the cost of the secret checks (the header swap, the
    // placeholder search in every request, the answer scanned for the real value).
    const qint64 plainBox = testsupport::addSandbox(db, QStringLiteral("bench-plain"));
    const Result<LoginSpec> login = LoginSpec::fromJson(QStringLiteral("bench"), QJsonDocument::fromJson(
        R"({"token_urls": ["https://api.bench.test/token"], "tokens": [{"field": "t", "name": "t", "sent_in": ["t"]}]})").object(),
        QStringLiteral("bench"));
    const QString plainCa = dir.filePath(QStringLiteral("plain-ca.pem"));
    if (!login || !vault.bindLogin(plainBox, *login) || !writeFile(plainCa, vault.issueSandboxCa(plainBox).value())) {
        std::fprintf(stderr, "bench_interceptor: cannot set up the sandbox without secrets\n");
        return 1;
    }
    Front plainFront(interceptor, QStringLiteral("bench-plain"), [upPort](const QString &sni) {
        return UpstreamAddress{sni, QHostAddress(QHostAddress::LocalHost), upPort};
    });
    Path plainPath{QStringLiteral("airlock, no secret"), plainFront.port(), false, {}, plainCa, "x-api-key: " + kReal + "\r\n", plainFront.port()};
    const Result3 unchecked = measure(plainPath, window, bulk, RelayThreads{::getpid(), QByteArrayLiteral("alk-i")});

    // haproxy on one thread doing the same work: TLS in with a certificate the client trusts,
    // the header set to the real value, verified TLS to the same upstream, keep-alive on both
    // sides (its default). The client sends the placeholder, as through airlock.
    Result3 haproxy;
    HaproxyProcess haproxyProcess;
    {
        TestPki frontPki;
        X509 *frontCert = nullptr;
        EVP_PKEY *frontKey = nullptr;
        frontPki.issue({kHost}, &frontCert, &frontKey);
        const QString crt = haproxyProcess.dir() + QStringLiteral("/front.pem");
        const QString frontCa = haproxyProcess.dir() + QStringLiteral("/front-ca.pem");
        writeFile(crt, x509util::toPem(frontCert) + keyPem(frontKey));
        writeFile(frontCa, frontPki.caPem());
        X509_free(frontCert);
        EVP_PKEY_free(frontKey);
        const quint16 port = freePort();
        const QByteArray config =
            "global\n  nbthread 1\n  maxconn 4096\n"
            "defaults\n  mode http\n  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\n"
            "  timeout http-keep-alive 30s\n"
            "frontend fe\n  bind 127.0.0.1:" + QByteArray::number(port) + " ssl crt " + crt.toLocal8Bit() + " alpn http/1.1\n"
            "  http-request set-header x-api-key " + kReal + "\n  default_backend up\n"
            "backend up\n  server up 127.0.0.1:" + QByteArray::number(upPort) + " ssl verify required ca-file " +
            upstreamCa.toLocal8Bit() + " verifyhost " + kHost + " sni str(" + kHost + ") alpn http/1.1\n";
        if (haproxyProcess.start(config, QHostAddress(QHostAddress::LocalHost), port)) {
            Path p{QStringLiteral("haproxy"), port, false, {}, frontCa, keyHeader, upPort};
            haproxy = measure(p, window, bulk, RelayThreads{pid_t(haproxyProcess.pid()), {}});
        } else {
            std::fprintf(stderr, "  %s\n", qPrintable(haproxyProcess.error()));
        }
    }

    // mitmproxy: explicit proxy, CONNECT, an addon that sets the same header.
    Result3 mitm;
    QProcess mitmProcess;
    const QString mitmDump = QStringLiteral("/usr/bin/mitmdump");
    if (QFile::exists(mitmDump)) {
        const QString conf = dir.filePath(QStringLiteral("mitm"));
        QDir().mkpath(conf);
        writeFile(dir.filePath(QStringLiteral("addheader.py")),
                  "def request(flow):\n    flow.request.headers[\"x-api-key\"] = \"" + kReal + "\"\n");
        const quint16 port = freePort();
        mitmProcess.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        mitmProcess.setStandardOutputFile(dir.filePath(QStringLiteral("mitm.log")));
        mitmProcess.start(mitmDump, {QStringLiteral("--set"), QStringLiteral("flow_detail=0"), QStringLiteral("--set"),
                                     QStringLiteral("stream_large_bodies=1m"), QStringLiteral("--listen-host"), QStringLiteral("127.0.0.1"),
                                     QStringLiteral("--listen-port"), QString::number(port), QStringLiteral("--set"),
                                     QStringLiteral("confdir=") + conf, QStringLiteral("--set"),
                                     QStringLiteral("ssl_verify_upstream_trusted_ca=") + upstreamCa, QStringLiteral("-s"),
                                     dir.filePath(QStringLiteral("addheader.py"))});
        if (waitForPort(port, 30000) && QFile::exists(conf + QStringLiteral("/mitmproxy-ca-cert.pem"))) {
            Path p{QStringLiteral("mitmproxy"), port, true, QStringLiteral("127.0.0.1:%1").arg(upPort),
                   conf + QStringLiteral("/mitmproxy-ca-cert.pem"), {}, upPort};
            mitm = measure(p, window, std::min<qint64>(bulk, 64 << 20), // ~5 MB/s: keep it short
                           RelayThreads{pid_t(mitmProcess.processId()), {}});
            if (!mitm.ok) {
                QFile log(dir.filePath(QStringLiteral("mitm.log")));
                if (log.open(QIODevice::ReadOnly))
                    std::fprintf(stderr, "  mitmproxy's log ends:\n%s\n", log.readAll().right(1500).constData());
            }
        } else {
            std::fprintf(stderr, "  mitmproxy did not start\n");
        }
        mitmProcess.terminate();
        mitmProcess.waitForFinished(5000);
    } else {
        std::fprintf(stderr, "  mitmproxy is not installed (apt-get install mitmproxy)\n");
    }

    // squid with ssl-bump: the same header added by request_header_add.
    Result3 squid;
    QProcess squidProcess;
    const QString squidBin = QStringLiteral("/usr/sbin/squid");
    const QString certgen = QStringLiteral("/usr/lib/squid/security_file_certgen");
    if (QFile::exists(squidBin) && QFile::exists(certgen)) {
        const QString sq = dir.filePath(QStringLiteral("squid"));
        QDir().mkpath(sq);
        TestPki squidCa;
        writeFile(sq + QStringLiteral("/ca.pem"), squidCa.caPem());
        writeFile(sq + QStringLiteral("/ca.key"), keyPem(squidCa.caKey));
        QProcess::execute(certgen, {QStringLiteral("-c"), QStringLiteral("-s"), sq + QStringLiteral("/ssl_db"),
                                    QStringLiteral("-M"), QStringLiteral("16MB")});
        QProcess::execute(QStringLiteral("chown"), {QStringLiteral("-R"), QStringLiteral("proxy:proxy"), sq});
        QProcess::execute(QStringLiteral("chmod"), {QStringLiteral("a+r"), upstreamCa});
        const quint16 port = freePort();
        const QByteArray config =
            "http_port 127.0.0.1:" + QByteArray::number(port) + " ssl-bump tls-cert=" + sq.toLocal8Bit() +
            "/ca.pem tls-key=" + sq.toLocal8Bit() + "/ca.key generate-host-certificates=on dynamic_cert_mem_cache_size=16MB\n"
            "sslcrtd_program " + certgen.toLocal8Bit() + " -s " + sq.toLocal8Bit() + "/ssl_db -M 16MB\n"
            "sslcrtd_children 4\n"
            "acl step1 at_step SslBump1\n"
            "ssl_bump peek step1\n"
            "ssl_bump bump all\n"
            "tls_outgoing_options cafile=" + upstreamCa.toLocal8Bit() + "\n"
            "request_header_add x-api-key \"" + kReal + "\" all\n"
            "hosts_file " + sq.toLocal8Bit() + "/hosts\n"
            "http_access allow all\n"
            "cache deny all\ncache_mem 0\naccess_log none\n"
            "cache_log " + sq.toLocal8Bit() + "/cache.log\npid_filename " + sq.toLocal8Bit() + "/squid.pid\n"
            "coredump_dir " + sq.toLocal8Bit() + "\ncache_effective_user proxy\nshutdown_lifetime 0 seconds\n";
        writeFile(sq + QStringLiteral("/squid.conf"), config);
        writeFile(sq + QStringLiteral("/hosts"), QByteArray("127.0.0.1 ") + kHost + "\n"); // no DNS here
        QProcess::execute(QStringLiteral("chown"), {QStringLiteral("proxy:proxy"), sq + QStringLiteral("/squid.conf")});
        squidProcess.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        squidProcess.start(squidBin, {QStringLiteral("-N"), QStringLiteral("-f"), sq + QStringLiteral("/squid.conf")});
        if (waitForPort(port, 30000)) {
            Path p{QStringLiteral("squid"), port, true, QStringLiteral("%1:%2").arg(QLatin1String(kHost)).arg(upPort),
                   sq + QStringLiteral("/ca.pem"), {}, upPort};
            squid = measure(p, window, std::min<qint64>(bulk, 512 << 20), RelayThreads{pid_t(squidProcess.processId()), {}});
        } else {
            std::fprintf(stderr, "  squid did not start (see %s/cache.log)\n", qPrintable(sq));
        }
        squidProcess.terminate();
        squidProcess.waitForFinished(10000);
    } else {
        std::fprintf(stderr, "  squid with ssl-bump is not installed (apt-get install squid-openssl)\n");
    }

    std::printf("\n  %-20s %9s %9s %9s %9s | %9s %9s %9s %9s |  airlock is (ka8 / ka64 / conn / bulk; per core: ka8 / conn)\n",
                "path", "ka8 r/s", "ka64 r/s", "conn/s", "bulk MB/s", "ka8/core", "ka64/core", "conn/core", "MB/s/core");
    print("upstream direct", base, air, false, "(no proxy: the ceiling)");
    print("airlock interceptor", air, air, false, "");
    print("airlock, no secret", unchecked, air, false, "(the same relay with no secret to swap or scan for)");
    print("haproxy (1 thread)", haproxy, air, true, "");
    print("mitmproxy", mitm, air, true, "");
    print("squid ssl-bump", squid, air, true, "");
    std::printf("  (ka8/ka64: keep-alive requests/s over 8/64 connections; conn: new TLS connection + one request; "
                "/core: per second of the relay's own CPU)\n");
    std::printf("\n  header injected on every request through airlock: %s\n", injected ? "yes" : "NO");
    if (unchecked.ok)
        std::printf("  cost of the secret checks: req/s x%.2f, bulk (answer scanned for the real value) x%.2f of the relay without them\n",
                    air.rps8 / unchecked.rps8, air.mbps / unchecked.mbps);
    if (haproxy.ok) {
        // One relay core against haproxy's one thread: the relay's own CPU per request decides.
        // The wall-clock rates share the two cores with the client's and the upstream's TLS.
        std::printf("  target >= 1.0x haproxy keep-alive req/s on one relay core: %s (x%.2f with 8 connections, x%.2f with 64; "
                    "wall clock x%.2f / x%.2f)\n",
                    air.rps8PerCore >= haproxy.rps8PerCore && air.rps64PerCore >= haproxy.rps64PerCore ? "met" : "NOT met",
                    air.rps8PerCore / haproxy.rps8PerCore, air.rps64PerCore / haproxy.rps64PerCore, air.rps8 / haproxy.rps8,
                    air.rps64 / haproxy.rps64);
        std::printf("  target >= 0.9x haproxy new connections/s on one relay core: %s (x%.2f; wall clock x%.2f)\n",
                    air.cpsPerCore >= 0.9 * haproxy.cpsPerCore ? "met" : "NOT met", air.cpsPerCore / haproxy.cpsPerCore,
                    air.cps / haproxy.cps);
    }
    if (mitm.ok)
        std::printf("  target >= 10x mitmproxy req/s: %s\n", air.rps8 >= 10 * mitm.rps8 ? "met" : "NOT met");
    if (squid.ok)
        std::printf("  target ahead of squid req/s: %s\n", air.rps8 > squid.rps8 ? "met" : "NOT met");
    // "On one core": bytes per second of the relay's own CPU. The wall-clock figure beside it
    // also pays for the client's and the upstream's TLS on the same cores.
    std::printf("  target >= 1 GB/s bulk on one core: %s (%.0f MB/s per core of relay CPU; %.0f MB/s wall clock on %d cores shared "
                "with both TLS endpoints)\n",
                air.mbpsPerCore() >= 1000 ? "met" : "NOT met", air.mbpsPerCore(), air.mbps, QThread::idealThreadCount());
    return air.ok && base.ok && injected ? 0 : 1;
}
