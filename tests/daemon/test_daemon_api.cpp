// A real airlockd over its real socket: bad input gets a clear answer and the daemon keeps
// serving every other client.
#include "api/blockingclient.h"
#include "api/jsonrpc.h"
#include "protocol/images.h"
#include "protocol/names.h"
#include "protocol/jsonfields.h"
#include "daemonprocess.h"
#include "residentmemory.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <QThread>
#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace airlock;

namespace {

// A raw client, so a test can misbehave exactly as it wants.
class Raw {
public:
    explicit Raw(const QString &path)
    {
        m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        const QByteArray p = QFile::encodeName(path);
        std::memcpy(a.sun_path, p.constData(), size_t(p.size()));
        m_connected = ::connect(m_fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0;
        m_errno = errno;
    }
    ~Raw() { ::close(m_fd); }
    bool connected() const { return m_connected; }
    int connectErrno() const { return m_errno; }
    int fd() const { return m_fd; }

    bool send(const QByteArray &bytes)
    {
        for (qsizetype off = 0; off < bytes.size();) {
            const ssize_t n = ::send(m_fd, bytes.constData() + off, size_t(bytes.size() - off), MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            off += n;
        }
        return true;
    }
    // Next line, or empty on EOF/timeout.
    QByteArray line(int timeoutMs = 10000)
    {
        for (;;) {
            const qsizetype nl = m_buf.indexOf('\n');
            if (nl >= 0) {
                const QByteArray l = m_buf.left(nl);
                m_buf.remove(0, nl + 1);
                return l;
            }
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, timeoutMs) <= 0)
                return {};
            char chunk[65536];
            const ssize_t n = ::read(m_fd, chunk, sizeof chunk);
            if (n <= 0)
                return {};
            m_buf.append(chunk, n);
        }
    }
    QJsonObject message(int timeoutMs = 10000) { return QJsonDocument::fromJson(line(timeoutMs)).object(); }
    // True once the daemon has closed its side.
    bool closedByPeer(int timeoutMs = 10000)
    {
        QDeadlineTimer deadline(timeoutMs);
        while (!deadline.hasExpired()) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 100) > 0) {
                char chunk[65536];
                const ssize_t n = ::read(m_fd, chunk, sizeof chunk);
                if (n == 0 || (n < 0 && errno == ECONNRESET))
                    return true;
            }
        }
        return false;
    }

private:
    int m_fd;
    bool m_connected;
    int m_errno;
    QByteArray m_buf;
};

QByteArray statusRequest(int id)
{
    return QByteArray("{\"jsonrpc\":\"2.0\",\"id\":") + QByteArray::number(id) + ",\"method\":\"status\"}\n";
}

int errorCode(const QJsonObject &m) { return m.value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt(); }
QString errorMessage(const QJsonObject &m) { return m.value(QLatin1String("error")).toObject().value(QLatin1String("message")).toString(); }

} // namespace

class TestDaemonApi : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void cleanup();

    void statusAnswersWithContractFields();
    void socketIsPrivate();
    void notJsonGetsParseErrorAndConnectionSurvives();
    void invalidUtf8IsNamed();
    void hugeLineIsRefusedAndClosed();
    void unknownMethodIsNamed();
    void wrongParameterTypes();
    void clientDisconnectingMidRequest();
    void fiftyClientsEachGetTheirAnswersInOrder();
    void subscriberThatStopsReadingIsDropped();
    void secondDaemonOnSameDataDirIsRefused();
    void clientOfAnotherUidIsRefused();
    void ctlReportsUnreachableDaemon();
    void sigtermShutsDownCleanly();
    void corruptStoreIsReportedAndKept();
    void presetListAnswersTheDaemonsPresets();
    void templateListIsTheTemplateFiles();
    void hundredClientsServedWhileAStalledSubscriberIsDropped();

private:
    void expectStillServing();
    DaemonProcess *m_daemon = nullptr;
};

void TestDaemonApi::initTestCase()
{
    m_daemon = new DaemonProcess;
    QVERIFY2(m_daemon->start(), qPrintable(m_daemon->log()));
}

void TestDaemonApi::cleanupTestCase() { delete m_daemon; }

void TestDaemonApi::cleanup()
{
    if (m_daemon && m_daemon->process().state() == QProcess::Running)
        expectStillServing();
}

void TestDaemonApi::expectStillServing()
{
    BlockingClient c;
    QVERIFY2(c.connectTo(m_daemon->socketPath()).ok(), "daemon is not reachable any more");
    auto s = c.call(QStringLiteral("status"), {}, 5000);
    QVERIFY2(s.ok(), qPrintable(s.error().message()));
    QCOMPARE(s->toObject().value(QLatin1String("version")).toString(), QStringLiteral(AIRLOCK_VERSION));
}

void TestDaemonApi::statusAnswersWithContractFields()
{
    const auto r = m_daemon->ctl({QStringLiteral("--json"), QStringLiteral("status")});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject s = QJsonDocument::fromJson(r.out).object();
    for (const char *field : {"version", "libvirt_uri", "accel", "vault", "sandboxes"})
        QVERIFY2(s.contains(QLatin1String(field)), field);
    QVERIFY(s.value(QLatin1String("accel")) == QLatin1String("kvm") || s.value(QLatin1String("accel")) == QLatin1String("tcg"));
    QVERIFY(QStringList({QStringLiteral("uninitialised"), QStringLiteral("locked"), QStringLiteral("unlocked")})
                .contains(s.value(QLatin1String("vault")).toString()));
    QVERIFY(s.value(QLatin1String("sandboxes")).isDouble());
    QVERIFY(r.err.isEmpty());
}

void TestDaemonApi::socketIsPrivate()
{
    struct stat st{};
    QCOMPARE(::stat(QFile::encodeName(m_daemon->socketPath()).constData(), &st), 0);
    QVERIFY(S_ISSOCK(st.st_mode));
    QCOMPARE(int(st.st_mode & 0777), 0600);
}

void TestDaemonApi::notJsonGetsParseErrorAndConnectionSurvives()
{
    Raw c(m_daemon->socketPath());
    QVERIFY(c.connected());
    QVERIFY(c.send("this is not json\n"));
    const QJsonObject m = c.message();
    QCOMPARE(errorCode(m), int(rpc::ParseError));
    QVERIFY2(errorMessage(m).contains(QLatin1String("not JSON")), qPrintable(errorMessage(m)));
    QVERIFY(m.value(QLatin1String("id")).isNull());
    QVERIFY(c.send(statusRequest(2)));
    QCOMPARE(c.message().value(QLatin1String("id")).toInt(), 2);
}

void TestDaemonApi::invalidUtf8IsNamed()
{
    Raw c(m_daemon->socketPath());
    QVERIFY(c.send(QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sta\xc3\x28tus\"}\n")));
    const QJsonObject m = c.message();
    QCOMPARE(errorCode(m), int(rpc::ParseError));
    QVERIFY2(errorMessage(m).contains(QLatin1String("UTF-8")), qPrintable(errorMessage(m)));
}

void TestDaemonApi::hugeLineIsRefusedAndClosed()
{
    Raw c(m_daemon->socketPath());
    const QByteArray huge = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\",\"params\":{\"x\":\"" +
                            QByteArray(2 << 20, 'a') + "\"}}\n";
    c.send(huge); // the daemon may close before taking it all
    const QJsonObject m = c.message();
    QCOMPARE(errorCode(m), int(rpc::TooLarge));
    QVERIFY2(errorMessage(m).contains(QLatin1String("longer than")), qPrintable(errorMessage(m)));
    QVERIFY(c.closedByPeer());
    QVERIFY(residentKiB(m_daemon->pid()) < 200 * 1024);
}

void TestDaemonApi::unknownMethodIsNamed()
{
    Raw c(m_daemon->socketPath());
    QVERIFY(c.send("{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"frobnicate\"}\n"));
    const QJsonObject m = c.message();
    QCOMPARE(errorCode(m), int(rpc::MethodNotFound));
    QCOMPARE(m.value(QLatin1String("id")).toString(), QStringLiteral("abc"));
    QVERIFY(errorMessage(m).contains(QLatin1String("frobnicate")));
}

void TestDaemonApi::wrongParameterTypes()
{
    Raw c(m_daemon->socketPath());
    QVERIFY(c.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\",\"params\":[1,2]}\n"));
    QCOMPARE(errorCode(c.message()), int(rpc::InvalidParams));
    QVERIFY(c.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"subscribe\",\"params\":{\"topics\":5}}\n"));
    const QJsonObject m = c.message();
    QCOMPARE(errorCode(m), int(rpc::InvalidParams));
    QVERIFY(errorMessage(m).contains(QLatin1String("topics")));
    QVERIFY(c.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":7}\n"));
    QCOMPARE(errorCode(c.message()), int(rpc::InvalidRequest));
}

void TestDaemonApi::clientDisconnectingMidRequest()
{
    for (int i = 0; i < 20; ++i) {
        Raw c(m_daemon->socketPath());
        QVERIFY(c.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"meth"));
        // ...and one that leaves right after a complete request, before reading the answer
        Raw d(m_daemon->socketPath());
        QVERIFY(d.send(statusRequest(1)));
    }
}

void TestDaemonApi::fiftyClientsEachGetTheirAnswersInOrder()
{
    constexpr int kClients = 50;
    constexpr int kRequests = 40;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kClients; ++t) {
        threads.emplace_back([&, t] {
            Raw c(m_daemon->socketPath());
            if (!c.connected()) { ++failures; return; }
            QByteArray burst; // pipelined: all requests before any answer
            for (int i = 0; i < kRequests; ++i)
                burst += statusRequest(t * 1000 + i);
            if (!c.send(burst)) { ++failures; return; }
            for (int i = 0; i < kRequests; ++i) {
                const QJsonObject m = c.message();
                if (m.value(QLatin1String("id")).toInt() != t * 1000 + i || !m.contains(QLatin1String("result"))) {
                    ++failures;
                    return;
                }
            }
        });
    }
    for (auto &th : threads)
        th.join();
    QCOMPARE(failures.load(), 0);
}

void TestDaemonApi::subscriberThatStopsReadingIsDropped()
{
    // A client subscribes and then floods requests without ever reading an answer.
    Raw slow(m_daemon->socketPath());
    QVERIFY(slow.send("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"subscribe\",\"params\":{\"topics\":[\"egress\",\"sandbox\"]}}\n"));
    const int flags = ::fcntl(slow.fd(), F_GETFL);
    ::fcntl(slow.fd(), F_SETFL, flags | O_NONBLOCK);
    QByteArray burst;
    for (int i = 0; i < 1000; ++i)
        burst += statusRequest(i);
    const qint64 rssBefore = residentKiB(m_daemon->pid());
    bool dropped = false;
    QElapsedTimer timer;
    timer.start();
    int sentBursts = 0;
    while (!dropped && timer.elapsed() < 60000) {
        const ssize_t n = ::send(slow.fd(), burst.constData(), size_t(burst.size()), MSG_NOSIGNAL);
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
            dropped = true;
        else if (n < 0 && errno == EAGAIN)
            QThread::msleep(5);
        else
            ++sentBursts;
        // Other clients are served promptly all along.
        if (sentBursts % 20 == 0) {
            BlockingClient other;
            QVERIFY(other.connectTo(m_daemon->socketPath()).ok());
            QElapsedTimer rt;
            rt.start();
            QVERIFY(other.call(QStringLiteral("status"), {}, 5000).ok());
            QVERIFY2(rt.elapsed() < 2000, "a stalled client slowed another client down");
        }
    }
    QVERIFY2(dropped, "the daemon kept buffering for a client that never reads");
    const qint64 rssAfter = residentKiB(m_daemon->pid());
    qInfo("daemon RSS before %lld KiB, after the stalled client %lld KiB (%d bursts of 1000 requests sent)",
          rssBefore, rssAfter, sentBursts);
    QVERIFY2(rssAfter - rssBefore < 64 * 1024, "the daemon grew without bound for a stalled client");
}

void TestDaemonApi::secondDaemonOnSameDataDirIsRefused()
{
    QProcess second;
    second.start(DaemonProcess::daemonBinary(),
                 {QStringLiteral("--foreground"), QStringLiteral("--data-dir"), m_daemon->dataDir(),
                  QStringLiteral("--socket"), m_daemon->socketPath() + QStringLiteral(".2")});
    QVERIFY(second.waitForFinished(15000));
    QCOMPARE(second.exitCode(), 1);
    const QString err = QString::fromUtf8(second.readAllStandardError());
    QVERIFY2(err.contains(QLatin1String("already serves this data directory")), qPrintable(err));
    QVERIFY(!QFileInfo::exists(m_daemon->socketPath() + QStringLiteral(".2")));

    // And a second daemon on the same socket but another data dir must not steal it.
    QTemporaryDir other;
    QProcess third;
    third.start(DaemonProcess::daemonBinary(),
                {QStringLiteral("--foreground"), QStringLiteral("--data-dir"), other.path(),
                 QStringLiteral("--socket"), m_daemon->socketPath()});
    QVERIFY(third.waitForFinished(15000));
    QCOMPARE(third.exitCode(), 1);
    const QString thirdErr = QString::fromUtf8(third.readAllStandardError());
    QVERIFY2(thirdErr.contains(QLatin1String("another daemon is listening")), qPrintable(thirdErr));
    QVERIFY(QFileInfo::exists(m_daemon->socketPath()));
}

void TestDaemonApi::clientOfAnotherUidIsRefused()
{
    if (::geteuid() != 0)
        QFAIL("this test needs root (it switches a child process to uid 65534)");
    const QByteArray path = QFile::encodeName(m_daemon->socketPath());
    // Let uid 65534 reach the socket file: first the directory, then (second round) the socket.
    QVERIFY(::chmod(QFile::encodeName(QFileInfo(m_daemon->socketPath()).absolutePath()).constData(), 0755) == 0);

    auto tryAsNobody = [&](QByteArray *answer) -> int {
        int pipeFds[2];
        if (::pipe(pipeFds) != 0)
            return -1;
        const pid_t child = ::fork();
        if (child == 0) {
            ::close(pipeFds[0]);
            if (::setgid(65534) != 0 || ::setuid(65534) != 0)
                ::_exit(90);
            const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un a{};
            a.sun_family = AF_UNIX;
            std::memcpy(a.sun_path, path.constData(), size_t(path.size()));
            if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0)
                ::_exit(errno == EACCES ? 13 : 91);
            const QByteArray req = statusRequest(1);
            [[maybe_unused]] ssize_t w = ::write(fd, req.constData(), size_t(req.size()));
            char buf[4096];
            ssize_t total = 0, n;
            while ((n = ::read(fd, buf + total, sizeof buf - size_t(total) - 1)) > 0)
                total += n;
            [[maybe_unused]] ssize_t w2 = ::write(pipeFds[1], buf, size_t(total));
            ::_exit(0);
        }
        ::close(pipeFds[1]);
        char buf[4096];
        ssize_t n;
        while ((n = ::read(pipeFds[0], buf, sizeof buf)) > 0)
            answer->append(buf, n);
        ::close(pipeFds[0]);
        int status = 0;
        ::waitpid(child, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };

    // Mode 0600 keeps another user out at the file system...
    QByteArray answer;
    QCOMPARE(tryAsNobody(&answer), 13);
    // ...and were the mode ever loosened, the peer check still refuses with a clear reason.
    QVERIFY(::chmod(path.constData(), 0666) == 0);
    answer.clear();
    QCOMPARE(tryAsNobody(&answer), 0);
    ::chmod(path.constData(), 0600);
    const QJsonObject m = QJsonDocument::fromJson(answer.split('\n').value(0)).object();
    QCOMPARE(errorCode(m), int(rpc::PermissionDenied));
    QVERIFY2(errorMessage(m).contains(QLatin1String("uid 65534")), qPrintable(errorMessage(m)));
    QVERIFY(!answer.contains("\"result\""));
}

void TestDaemonApi::ctlReportsUnreachableDaemon()
{
    QProcess p;
    p.start(DaemonProcess::ctlBinary(), {QStringLiteral("--socket"), QStringLiteral("/nonexistent/airlockd.sock"),
                                         QStringLiteral("status")});
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitCode(), 1);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.startsWith(QLatin1String("airlockctl: status : ")), qPrintable(err));
    QVERIFY2(err.contains(QLatin1String("is airlockd running")), qPrintable(err));

    const auto usage = m_daemon->ctl({QStringLiteral("no-such-command")});
    QCOMPARE(usage.exitCode, 2);
    QVERIFY(usage.err.startsWith("airlockctl: "));
}

void TestDaemonApi::sigtermShutsDownCleanly()
{
    DaemonProcess d;
    QVERIFY2(d.start(), qPrintable(d.log()));
    QCOMPARE(d.stop(), 0);
    QVERIFY2(!QFileInfo::exists(d.socketPath()), "the socket file was left behind");
    QVERIFY(d.log().contains(QLatin1String("shutting down")));
    // The next daemon on the same data dir starts at once: nothing stale blocks it.
    QVERIFY2(d.start(), qPrintable(d.log()));
    QCOMPARE(d.stop(), 0);
}

void TestDaemonApi::corruptStoreIsReportedAndKept()
{
    DaemonProcess d;
    QDir().mkpath(d.dataDir());
    const QByteArray junk(10000, '\x42');
    {
        QFile f(d.dataDir() + QStringLiteral("/airlock.db"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(junk);
    }
    QVERIFY(!d.start(5000));
    QCOMPARE(d.process().exitCode(), 1);
    const QString log = d.log();
    QVERIFY2(log.contains(QLatin1String("not a SQLite database")), qPrintable(log));
    QFile f(d.dataDir() + QStringLiteral("/airlock.db"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), junk);
}

// preset.list: the presets this daemon's broker loads (the source tree's in a development
// build), each with its rules, so a GUI on another host offers this host's presets.
void TestDaemonApi::presetListAnswersTheDaemonsPresets()
{
    BlockingClient c;
    QVERIFY(c.connectTo(m_daemon->socketPath()).ok());
    const auto r = c.call(QString(proto::method::PresetList), {}, 5000);
    QVERIFY2(r.ok(), qPrintable(r.error().message()));
    const Result<QList<proto::PresetInfo>> presets = proto::listFromJson<proto::PresetInfo>(r.value());
    QVERIFY2(presets.ok(), qPrintable(presets.error().message()));
    QStringList names;
    for (const proto::PresetInfo &p : presets.value()) {
        names << p.name;
        QVERIFY2(!p.description.isEmpty() && !p.rules.isEmpty(), qPrintable(p.name));
        for (const proto::PresetRuleInfo &rule : p.rules)
            QVERIFY2(!rule.host.isEmpty() && !rule.why.isEmpty() && rule.port >= 0 && rule.port <= 65535, qPrintable(p.name));
    }
    QVERIFY2(names.contains(QStringLiteral("npm")) && names.contains(QStringLiteral("pypi")), qPrintable(names.join(u',')));
    QStringList sorted = names;
    sorted.sort();
    QCOMPARE(names, sorted); // loadPresets' order: by name
}

// template.list: one row per file in resources/templates, each key the file sets with the
// file's value (the daemon maps AgentTemplate to proto::TemplateInfo), "secret" only when the
// file lends one.
void TestDaemonApi::templateListIsTheTemplateFiles()
{
    BlockingClient c;
    QVERIFY(c.connectTo(m_daemon->socketPath()).ok());
    const auto r = c.call(QString(proto::method::TemplateList), {}, 5000);
    QVERIFY2(r.ok() && r->isArray(), qPrintable(r.ok() ? QStringLiteral("not an array") : r.error().message()));
    const QDir dir(QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/templates"));
    const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    QCOMPARE(r->toArray().size(), files.size());
    for (qsizetype i = 0; i < files.size(); ++i) {
        QFile f(dir.filePath(files.at(i)));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject file = QJsonDocument::fromJson(f.readAll()).object();
        const QJsonObject row = r->toArray().at(i).toObject();
        const Result<proto::TemplateInfo> typed = proto::TemplateInfo::fromJson(row);
        QVERIFY2(typed.ok(), qPrintable(typed.error().message()));
        QCOMPARE(typed->name, file.value(QLatin1String("name")).toString());
        for (auto it = file.begin(); it != file.end(); ++it)
            QVERIFY2(row.value(it.key()) == it.value(), qPrintable(files.at(i) + u' ' + it.key()));
        QCOMPARE(row.contains(QLatin1String("secret")), file.contains(QLatin1String("secret")));
    }
}

// 100 clients pipelining `status` round after round while one subscriber floods requests and
// never reads: every client gets all its answers in order, the stalled one alone is dropped
// (with airlockd's log line naming it), and the daemon's memory stays bounded.
void TestDaemonApi::hundredClientsServedWhileAStalledSubscriberIsDropped()
{
    constexpr int kClients = 100;
    constexpr int kRequests = 20;
    constexpr int kMinRounds = 3;
    const QString dropLine = QStringLiteral("dropping client pid %1 :").arg(::getpid());
    while (m_daemon->process().waitForReadyRead(300)) {} // what earlier cases logged, in before counting
    const qsizetype dropsBefore = m_daemon->log().count(dropLine);
    const qint64 rssBefore = residentKiB(m_daemon->pid());

    Raw slow(m_daemon->socketPath());
    QVERIFY(slow.send("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"subscribe\",\"params\":{\"topics\":[\"egress\",\"sandbox\"]}}\n"));
    ::fcntl(slow.fd(), F_SETFL, ::fcntl(slow.fd(), F_GETFL) | O_NONBLOCK);

    std::atomic<bool> stop{false};
    std::atomic<int> failures{0}, rounds{0}, ready{0};
    std::atomic<qint64> worstRoundMs{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kClients; ++t) {
        threads.emplace_back([&, t] {
            Raw c(m_daemon->socketPath());
            ++ready;
            if (!c.connected()) { ++failures; return; }
            for (int round = 0; round < kMinRounds || !stop.load(); ++round) {
                QByteArray burst;
                const int base = (t * 1000 + round) * 100;
                for (int i = 0; i < kRequests; ++i)
                    burst += statusRequest(base + i);
                QElapsedTimer rt;
                rt.start();
                if (!c.send(burst)) { ++failures; return; }
                for (int i = 0; i < kRequests; ++i) {
                    const QJsonObject m = c.message();
                    if (m.value(QLatin1String("id")).toInt() != base + i || !m.contains(QLatin1String("result"))) {
                        ++failures;
                        return;
                    }
                }
                qint64 worst = worstRoundMs.load();
                while (rt.elapsed() > worst && !worstRoundMs.compare_exchange_weak(worst, rt.elapsed())) {}
                ++rounds;
            }
        });
    }

    // The stalled subscriber floods until the daemon hangs up on it.
    QByteArray burst;
    for (int i = 0; i < 1000; ++i)
        burst += statusRequest(i);
    bool dropped = false;
    QElapsedTimer timer;
    timer.start();
    while (!dropped && timer.elapsed() < 90000) {
        const ssize_t n = ::send(slow.fd(), burst.constData(), size_t(burst.size()), MSG_NOSIGNAL);
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
            dropped = true;
        else if (n < 0 && errno == EAGAIN)
            QThread::msleep(5);
    }
    stop = true;
    for (auto &th : threads)
        th.join();
    const qint64 rssAfter = residentKiB(m_daemon->pid());
    qInfo("%d clients answered %d rounds of %d pipelined requests (slowest round %lld ms) while the stalled "
          "subscriber was dropped after %lld ms; daemon RSS %lld KiB before, %lld KiB after",
          kClients, rounds.load(), kRequests, worstRoundMs.load(), timer.elapsed(), rssBefore, rssAfter);

    QVERIFY2(dropped, "the daemon kept buffering for a subscriber that never reads");
    QCOMPARE(ready.load(), kClients);
    QCOMPARE(failures.load(), 0);
    QVERIFY(rounds.load() >= kClients * kMinRounds);
    // Exactly one more drop: the stalled subscriber, none of the clients that read.
    QDeadlineTimer logged(5000); // QProcess takes in the daemon's output only when waited on
    while (m_daemon->log().count(dropLine) == dropsBefore && !logged.hasExpired())
        m_daemon->process().waitForReadyRead(100);
    QVERIFY2(m_daemon->log().count(dropLine) == dropsBefore + 1, qPrintable(m_daemon->log().right(2000)));
    QVERIFY2(rssAfter - rssBefore < 64 * 1024, "the daemon grew without bound under 100 clients and a stalled one");
    QVERIFY2(rssAfter < 200 * 1024, "airlockd's RSS is over 200 MiB");
}

QTEST_GUILESS_MAIN(TestDaemonApi)
#include "test_daemon_api.moc"
