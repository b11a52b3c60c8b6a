// Load benchmark, real airlockd, libvirtd and N tiny guests of 128 MiB (default 16,
// AIRLOCK_BENCH_LOAD_SANDBOXES to change; under ctest 2 unless that is set), each running loadguest (built static, copied in):
// DNS queries to the broker's resolver and HTTP requests through the transparent proxy to a
// test server in a namespace of its own. Three phases of AIRLOCK_BENCH_LOAD_SECONDS (default
// 20, under ctest 10) each, the first being the reference measured in the same run:
//   reference : only the quiet sandbox (#0) runs its probe
//   loaded    : the other N-1 sandboxes run the same loop too
//   flood     : and sandbox #1 floods besides (thousands of idle connections, slow request
//               heads and ClientHellos, a DNS flood of fresh names)
// Measured: airlockd's `status` p50/p99 over its socket (target p99 < 50 ms), the quiet
// sandbox's DNS / connect / request latency (target: flood within 2x of loaded), airlockd's
// RSS idle, loaded and per sandbox. It prints the numbers; it fails only when a measurement
// cannot be made.
#include "daemonharness.h"
#include "netns.h"
#include "recordinghttpserver.h"
#include "residentmemory.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <algorithm>
#include <atomic>
#include <memory>
#include <chrono>
#include <cstdio>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace Qt::StringLiterals;

namespace {

const QString kOutside = u"203.0.113.40"_s;
// Guests started, or commands run in them, at once: airlockd's limit of concurrent commands
// per user (app/daemon/execslots.h), and as fast as more on two cores under TCG.
constexpr int kAtOnce = 4;
constexpr int kPauseMs = 100; // between two rounds of a probe

int envInt(const char *name, int fallback)
{
    bool ok = false;
    const int v = qEnvironmentVariableIntValue(name, &ok);
    return ok && v > 0 ? v : fallback;
}

// Clock ticks of CPU: airlockd's own (utime + stime) and the whole host's busy time, so a
// phase can tell the broker's work apart from the guests' (TCG) competing for the cores.
struct CpuTicks {
    qint64 daemon = 0, hostBusy = 0, hostTotal = 0;
};

CpuTicks cpuTicks(qint64 pid)
{
    CpuTicks t;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (stat.open(QIODevice::ReadOnly)) {
        const QByteArray all = stat.readAll();
        const QList<QByteArray> f = all.mid(all.lastIndexOf(')') + 2).split(' '); // fields from 3 on
        t.daemon = f.value(11).toLongLong() + f.value(12).toLongLong();            // utime, stime
    }
    QFile host(QStringLiteral("/proc/stat"));
    if (host.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> f = host.readLine().simplified().split(' '); // cpu user nice system idle iowait ...
        for (int i = 1; i < f.size(); ++i) {
            t.hostTotal += f[i].toLongLong();
            if (i != 4 && i != 5)
                t.hostBusy += f[i].toLongLong();
        }
    }
    return t;
}

struct Spread {
    double p50 = 0, p99 = 0;
    int n = 0;
};

Spread spread(std::vector<double> v)
{
    if (v.empty())
        return {};
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return v[std::min(v.size() - 1, size_t(q * double(v.size())))]; };
    return {at(0.50), at(0.99), int(v.size())};
}

// `status` over airlockd's socket every 50 ms on a thread of its own, and its RSS every
// 500 ms, for as long as it runs.
class Sampler {
public:
    Sampler(const QString &socketPath, qint64 pid) : m_path(QFile::encodeName(socketPath)), m_pid(pid)
    {
        m_thread = std::thread([this] { run(); });
    }
    ~Sampler() { stop(); }
    void stop()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
    }
    std::vector<double> statusMs, rssKiB;
    int failures = 0;

private:
    void run()
    {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::memcpy(a.sun_path, m_path.constData(), size_t(m_path.size()));
        if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
            ++failures;
            ::close(fd);
            return;
        }
        QElapsedTimer sinceRss;
        sinceRss.start();
        for (int id = 1; !m_stop; ++id) {
            const QByteArray req = "{\"jsonrpc\":\"2.0\",\"id\":" + QByteArray::number(id) + ",\"method\":\"status\"}\n";
            QElapsedTimer t;
            t.start();
            bool answered = ::send(fd, req.constData(), size_t(req.size()), MSG_NOSIGNAL) == req.size();
            QByteArray reply;
            while (answered && !reply.contains('\n')) {
                pollfd p{fd, POLLIN, 0};
                char buf[8192];
                const ssize_t n = ::poll(&p, 1, 10000) == 1 ? ::read(fd, buf, sizeof buf) : -1;
                answered = n > 0;
                if (answered)
                    reply.append(buf, n);
            }
            if (answered && reply.contains("\"result\""))
                statusMs.push_back(double(t.nsecsElapsed()) / 1e6);
            else
                ++failures;
            if (sinceRss.elapsed() >= 500) {
                rssKiB.push_back(double(residentKiB(m_pid)));
                sinceRss.restart();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        ::close(fd);
    }
    QByteArray m_path;
    qint64 m_pid;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

// One sandbox: its name, its resolver (the gateway) and quiet.test's synthetic address in it.
struct Box {
    QString name, resolver, quietIp;
};

struct Phase {
    const char *name;
    Spread status, dns, connect, request;
    int rounds = 0, failedRounds = 0, loadRounds = 0, statusFailures = 0;
    double rssMaxKiB = 0;
    double daemonCpu = 0, hostCpu = 0; // percent of one core, percent of all cores
    QString flood;
};

void printPhase(const Phase &p)
{
    std::printf("%-9s  status %6.2f %7.2f ms  dns %7.1f %7.1f ms  connect %6.1f %6.1f ms  request %7.1f %7.1f ms  "
                "rounds %4d (failed %d, neighbours %d)  RSS max %6.1f MiB  airlockd CPU %5.1f%%  host busy %5.1f%%\n",
                p.name, p.status.p50, p.status.p99, p.dns.p50, p.dns.p99, p.connect.p50, p.connect.p99, p.request.p50,
                p.request.p99, p.rounds, p.failedRounds, p.loadRounds, p.rssMaxKiB / 1024, p.daemonCpu, p.hostCpu);
    std::fflush(stdout);
}

void printRatio(const char *what, double measured, double reference, const char *target)
{
    std::printf("%-44s %8.2f / %8.2f  ratio %5.2f   target: %s\n", what, measured, reference,
                reference > 0 ? measured / reference : 0.0, target);
    std::fflush(stdout);
}

} // namespace

class BenchLoad : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void measure();
    void cleanupTestCase();

private:
    bool bootAll(QString *error);
    bool prepare(Box &box, QString *error);
    // airlockctl once per argument list, all at once; the error output of those that failed.
    QStringList ctlAll(const QList<QStringList> &calls, int timeoutMs);
    void startJobs(const QList<QPair<QString, QString>> &jobs); // (sandbox, shell command)
    QList<QByteArray> jobOutput(const QString &sandbox, const QString &file, int waitMs);
    bool serveTool(QString *error);
    Phase runPhase(const char *name, bool load, bool flood);

    DaemonHarness m_daemon;
    QTemporaryDir m_dir;
    RecordingHttpServer m_upstream{QByteArrayLiteral("load\n")};
    std::unique_ptr<RecordingHttpServer> m_toolServer; // the guest tool, gzipped, on load.test:8080
    airlock::test::OutsideNamespace m_outside;
    QList<Box> m_boxes;
    int m_count = 16;
    int m_seconds = 20;
    qint64 m_rssNoSandbox = 0;
};

void BenchLoad::initTestCase()
{
    const QString missing = airlock::test::missingVmTestPrerequisite(
        u"bench_load"_s, u"libvirt's system connection, nftables, a namespace for the test server"_s, u"-R bench_load"_s);
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    // ctest runs a bounded form (the _CI_ values its CMakeLists sets); the caller's own wins.
    m_count = envInt("AIRLOCK_BENCH_LOAD_SANDBOXES", envInt("AIRLOCK_BENCH_LOAD_CI_SANDBOXES", 16));
    m_seconds = envInt("AIRLOCK_BENCH_LOAD_SECONDS", envInt("AIRLOCK_BENCH_LOAD_CI_SECONDS", 20));
    QVERIFY2(m_count >= 2, "AIRLOCK_BENCH_LOAD_SANDBOXES must be at least 2 (a quiet sandbox and a flooding one)");
    QString error;
    QVERIFY2(m_outside.create(u"bld"_s, kOutside, u"192.0.2.40"_s, &error), qPrintable(error));
    bool up = false;
    airlock::test::inNamespace(m_outside.name(), [&] { up = m_upstream.start(kOutside, 80); });
    QVERIFY2(up, "cannot listen on 203.0.113.40:80");
    QVERIFY2(DaemonHarness::setUpstream(m_dir.path(), "203.0.113.40 quiet.test load.test\n", {}, &error), qPrintable(error));
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
    const CtlResult built = m_daemon.ctl({u"image"_s, u"build"_s, u"tiny"_s}, 900000);
    QVERIFY2(built.exitCode == 0, built.err.constData());
    for (const QString &host : {u"quiet.test"_s, u"load.test"_s})
        QVERIFY(m_daemon.ctl({u"rule"_s, u"add"_s, u"--global"_s, u"--action"_s, u"allow"_s, u"--host"_s, host}).exitCode == 0);
    m_rssNoSandbox = residentKiB(m_daemon.pid());
    QVERIFY2(serveTool(&error), qPrintable(error));
    QVERIFY2(bootAll(&error), qPrintable(error));
}

// Defines all, then starts them four at a time: TCG on two shared cores boots a few guests
// at once about as fast as one after the other, and the bench's run time stays bounded.
// The guests fetch the tool over HTTP through the broker like any allowed download: sent
// through the guest agent instead, its ~1 MB of base64 took a minute per guest under TCG.
bool BenchLoad::serveTool(QString *error)
{
    QFile toolFile(qEnvironmentVariable("AIRLOCK_LOADGUEST_BIN"));
    if (!toolFile.open(QIODevice::ReadOnly)) {
        *error = u"cannot read AIRLOCK_LOADGUEST_BIN (run through ctest)"_s;
        return false;
    }
    QProcess gzip;
    gzip.start(u"gzip"_s, {u"-9c"_s});
    gzip.write(toolFile.readAll());
    gzip.closeWriteChannel();
    gzip.waitForFinished(30000);
    m_toolServer = std::make_unique<RecordingHttpServer>(gzip.readAllStandardOutput());
    bool up = false;
    airlock::test::inNamespace(m_outside.name(), [&] { up = m_toolServer->start(kOutside, 8080); });
    if (!up)
        *error = u"cannot listen on 203.0.113.40:8080"_s;
    return up;
}

bool BenchLoad::bootAll(QString *error)
{
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < m_count; ++i) {
        Box box{uniqueName(u"load%1"_s.arg(i)), {}, {}};
        const CtlResult r = m_daemon.ctl({u"create"_s, box.name, u"--memory"_s, u"128"_s}, 300000);
        if (r.exitCode != 0) {
            *error = u"create %1: %2"_s.arg(box.name, QString::fromUtf8(r.err));
            return false;
        }
        m_boxes << box;
    }
    for (int first = 0; first < m_count; first += kAtOnce) {
        QList<QStringList> starts;
        for (int i = first; i < std::min(m_count, first + kAtOnce); ++i)
            starts.append({u"start"_s, m_boxes[i].name});
        const QStringList failed = ctlAll(starts, 600000);
        if (!failed.isEmpty()) {
            *error = u"start failed: "_s + failed.join(u'\n');
            return false;
        }
    }
    std::printf("bench_load (%s build): %d sandboxes of 128 MiB booted in %.1f s (%d at a time)\n", AIRLOCK_BUILD_TYPE, m_count,
                double(t.elapsed()) / 1000,
                kAtOnce);
    for (Box &box : m_boxes)
        if (!prepare(box, error))
            return false;
    std::printf("bench_load: guest agents answering and the tool copied in after %.1f s\n", double(t.elapsed()) / 1000);
    return true;
}

// Copies the tool in and finds the resolver and quiet.test's synthetic address.
bool BenchLoad::prepare(Box &box, QString *error)
{
    const QString script = u"curl -sSf --max-time 60 http://load.test:8080/lg | gunzip > /tmp/lg && chmod +x /tmp/lg && "
                           "awk '/^nameserver/{print $2; exit}' /etc/resolv.conf && "
                           "nslookup quiet.test | grep -o '198\\.1[89]\\.[0-9.]*' | tail -n 1"_s;
    CtlResult r = m_daemon.guestSh(box.name, script, 120000);
    // `start` returns once the domain runs; its agent answers a little later (and an agent
    // still starting may fail a first command).
    int otherFailures = 0;
    for (QDeadlineTimer booting(300000); r.exitCode != 0 && !booting.hasExpired();) {
        if (!r.err.contains("not answering yet") && ++otherFailures > 3)
            break;
        QThread::sleep(2);
        r = m_daemon.guestSh(box.name, script, 120000);
    }
    const QStringList lines = QString::fromUtf8(r.out).split(u'\n', Qt::SkipEmptyParts);
    if (r.exitCode != 0 || lines.size() < 2) {
        *error = u"preparing %1 failed: %2 %3"_s.arg(box.name, QString::fromUtf8(r.out), QString::fromUtf8(r.err));
        return false;
    }
    box.resolver = lines.value(0).trimmed();
    box.quietIp = lines.value(1).trimmed();
    return true;
}

QStringList BenchLoad::ctlAll(const QList<QStringList> &calls, int timeoutMs)
{
    QList<QProcess *> running;
    for (const QStringList &args : calls) {
        auto *p = new QProcess(this);
        p->start(qEnvironmentVariable("AIRLOCKCTL_BIN"), QStringList{u"--socket"_s, m_daemon.socketPath()} + args);
        running << p;
    }
    QStringList failed;
    for (QProcess *p : running) {
        if (!p->waitForFinished(timeoutMs) || p->exitCode() != 0)
            failed << p->arguments().mid(2).join(u' ') + u": "_s + QString::fromUtf8(p->readAllStandardError());
        p->deleteLater();
    }
    return failed;
}

void BenchLoad::startJobs(const QList<QPair<QString, QString>> &jobs)
{
    QList<QStringList> calls;
    for (const auto &[sandbox, command] : jobs)
        calls.append({u"exec"_s, sandbox, u"--"_s, u"sh"_s, u"-c"_s, u"setsid sh -c '%1' </dev/null >/dev/null 2>&1 &"_s.arg(command)});
    // airlockd runs at most kAtOnce commands of one user at a time and refuses more.
    for (qsizetype first = 0; first < calls.size(); first += kAtOnce)
        for (const QString &failure : ctlAll(calls.mid(first, kAtOnce), 120000))
            qWarning("starting a guest job failed: %s", qPrintable(failure));
}

// The lines of a job's output file once the job has written its last one.
QList<QByteArray> BenchLoad::jobOutput(const QString &sandbox, const QString &file, int waitMs)
{
    QDeadlineTimer deadline(waitMs);
    do {
        const CtlResult r = m_daemon.guestSh(sandbox, u"cat %1; [ -e %1.done ] && echo END"_s.arg(file), 60000);
        QList<QByteArray> lines = r.out.split('\n');
        lines.removeAll(QByteArray());
        if (!lines.isEmpty() && lines.last() == "END") {
            lines.removeLast();
            return lines;
        }
        QThread::msleep(1000);
    } while (!deadline.hasExpired());
    qWarning() << "the job writing" << file << "in" << sandbox << "did not finish";
    return {};
}

Phase BenchLoad::runPhase(const char *name, bool load, bool flood)
{
    Phase p{name, {}, {}, {}, {}};
    QElapsedTimer took;
    took.start();
    // The neighbours start first and stop last, so the whole quiet probe runs under load.
    const int neighbourSeconds = m_seconds + 8;
    QList<QPair<QString, QString>> jobs;
    for (int i = 1; load && i < m_boxes.size(); ++i) {
        const Box &b = m_boxes[i];
        jobs.append({b.name, u"/tmp/lg probe %1 80 load.test %2 %3 %4 load.test > /tmp/load.out 2>&1; touch /tmp/load.out.done"_s
                                 .arg(b.quietIp).arg(neighbourSeconds).arg(kPauseMs).arg(b.resolver)});
    }
    if (flood) {
        const Box &b = m_boxes[1];
        jobs.append({b.name, u"/tmp/lg flood %1 %2 2000 100 %3 > /tmp/flood.out 2>&1; touch /tmp/flood.out.done"_s
                                 .arg(b.quietIp).arg(neighbourSeconds).arg(b.resolver)});
    }
    for (const Box &b : m_boxes)
        m_daemon.guestSh(b.name, u"rm -f /tmp/*.out /tmp/*.done"_s);
    startJobs(jobs);
    QThread::sleep(3);
    Sampler sampler(m_daemon.socketPath(), m_daemon.pid());
    const CpuTicks cpuBefore = cpuTicks(m_daemon.pid());
    QElapsedTimer wall;
    wall.start();
    const Box &q = m_boxes[0];
    startJobs({{q.name, u"/tmp/lg probe %1 80 quiet.test %2 %3 %4 quiet.test > /tmp/quiet.out 2>&1; touch /tmp/quiet.out.done"_s
                            .arg(q.quietIp).arg(m_seconds).arg(kPauseMs).arg(q.resolver)}});
    QThread::sleep(unsigned(m_seconds));
    sampler.stop();
    const CpuTicks cpuAfter = cpuTicks(m_daemon.pid());
    p.daemonCpu = 100.0 * double(cpuAfter.daemon - cpuBefore.daemon) / double(::sysconf(_SC_CLK_TCK)) /
                  (double(wall.elapsed()) / 1000);
    p.hostCpu = 100.0 * double(cpuAfter.hostBusy - cpuBefore.hostBusy) / double(std::max<qint64>(1, cpuAfter.hostTotal - cpuBefore.hostTotal));

    std::vector<double> dns, connect, request;
    for (const QByteArray &line : jobOutput(q.name, u"/tmp/quiet.out"_s, 60000)) {
        const QList<QByteArray> f = line.split(' ');
        if (f.size() != 4 || f[0] != "r")
            continue;
        ++p.rounds;
        if (f[3].toLongLong() < 0 || f[1].toLongLong() < 0) {
            ++p.failedRounds;
            continue;
        }
        dns.push_back(f[1].toDouble() / 1000);
        connect.push_back(f[2].toDouble() / 1000);
        request.push_back(f[3].toDouble() / 1000);
    }
    for (int i = 1; load && i < m_boxes.size(); ++i)
        p.loadRounds += int(jobOutput(m_boxes[i].name, u"/tmp/load.out"_s, 60000).size());
    if (flood)
        p.flood = QString::fromUtf8(jobOutput(m_boxes[1].name, u"/tmp/flood.out"_s, 60000).join(' '));
    p.dns = spread(dns);
    p.connect = spread(connect);
    p.request = spread(request);
    p.status = spread(sampler.statusMs);
    p.statusFailures = sampler.failures;
    p.rssMaxKiB = sampler.rssKiB.empty() ? 0 : *std::max_element(sampler.rssKiB.begin(), sampler.rssKiB.end());
    printPhase(p);
    std::printf("           (phase took %.1f s)\n", double(took.elapsed()) / 1000);
    return p;
}

void BenchLoad::measure()
{
    const qint64 rssBooted = residentKiB(m_daemon.pid());
    std::printf("bench_load: %d sandboxes, phases of %d s, %d CPUs on the host; airlockd RSS %.1f MiB with no sandbox, "
                "%.1f MiB with %d running and idle\n",
                m_count, m_seconds, QThread::idealThreadCount(), double(m_rssNoSandbox) / 1024, double(rssBooted) / 1024,
                m_count);
    const Phase reference = runPhase("reference", false, false);
    const Phase loaded = runPhase("loaded", true, false);
    const Phase flooded = runPhase("flood", true, true);
    const qint64 rssAfter = residentKiB(m_daemon.pid());
    std::printf("flood sandbox: %s\n", qPrintable(flooded.flood));

    for (const Phase *p : {&reference, &loaded, &flooded}) {
        QVERIFY2(p->rounds > 0 && p->failedRounds < p->rounds, p->name);
        QVERIFY2(p->status.n > 0, p->name);
        if (p->statusFailures)
            qWarning("%s: %d status calls failed", p->name, p->statusFailures);
    }
    QVERIFY2(loaded.loadRounds > 0, "the neighbours' loops did not run");
    QVERIFY2(!flooded.flood.isEmpty(), "the flood did not report");

    printRatio("status p99 ms, loaded vs reference", loaded.status.p99, reference.status.p99, "p99 < 50 ms");
    printRatio("status p99 ms, flood vs reference", flooded.status.p99, reference.status.p99, "p99 < 50 ms");
    printRatio("quiet request p50 ms, loaded vs reference", loaded.request.p50, reference.request.p50, "(no target)");
    printRatio("quiet connect p99 ms, flood vs loaded", flooded.connect.p99, loaded.connect.p99, "<= 2x");
    printRatio("quiet request p50 ms, flood vs loaded", flooded.request.p50, loaded.request.p50, "<= 2x");
    printRatio("quiet request p99 ms, flood vs loaded", flooded.request.p99, loaded.request.p99, "<= 2x");
    printRatio("quiet dns p99 ms, flood vs loaded", flooded.dns.p99, loaded.dns.p99, "<= 2x");
    printRatio("airlockd RSS MiB, flood max vs loaded max", flooded.rssMaxKiB / 1024, loaded.rssMaxKiB / 1024, "bounded");
    std::printf("%-44s %8.2f MiB  (idle with %d sandboxes minus no sandbox, per sandbox)\n", "airlockd RSS per sandbox",
                double(rssBooted - m_rssNoSandbox) / 1024 / m_count, m_count);
    std::printf("%-44s %8.2f MiB  (after the flood ended)\n", "airlockd RSS after", double(rssAfter) / 1024);
    std::fflush(stdout);
}

void BenchLoad::cleanupTestCase()
{
    QList<QStringList> kills, removals;
    for (const Box &box : m_boxes) {
        kills.append({u"kill"_s, box.name});
        removals.append({u"rm"_s, box.name});
    }
    ctlAll(kills, 120000); // rm refuses a running sandbox
    for (const QString &failure : ctlAll(removals, 120000))
        qWarning("left behind: %s", qPrintable(failure));
    m_daemon.stop();
    m_upstream.stop();
    m_outside.remove();
}

QTEST_GUILESS_MAIN(BenchLoad)
#include "bench_load.moc"
