// The guard stays when the parts around it fail (one real TCG guest of the tiny image):
// libvirtd stops under a running sandbox and comes back, and a process without privileges
// takes the broker's ports beside airlockd and while airlockd is dead. Each time the guest
// must reach nothing it could not reach before, and afterwards the live guard still works.
//
// It stops the libvirtd of the tests' network namespace (and always starts it again, in the
// namespaces it ran in, also when a check fails), so it runs on its own, under the VM lock,
// in the network namespace of the tests; every packet stays inside it.
#include "daemonharness.h"
#include "netns.h"
#include "recordinghttpserver.h"
#include "sentinel.h"
#include "squatter.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <memory>
#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using airlock::test::run;

namespace {

const QString kOutside = u"203.0.113.20"_s;

qint64 pidOf(const QStringList &pgrepArgs)
{
    QByteArray out;
    if (run(u"pgrep"_s, pgrepArgs, &out) != 0)
        return -1;
    const QList<QByteArray> pids = out.trimmed().split('\n');
    return pids.size() == 1 ? pids.first().toLongLong() : -1;
}

bool alive(qint64 pid) { return pid > 0 && ::kill(pid_t(pid), 0) == 0; }

// "net:[4026532177]": readlink itself (QFile::symLinkTarget would make it a path).
QByteArray nsOf(const QString &pid, const char *kind)
{
    char target[64] = {};
    const ssize_t n = ::readlink(qPrintable(u"/proc/%1/ns/%2"_s.arg(pid, QLatin1String(kind))), target, sizeof target - 1);
    return n > 0 ? QByteArray(target, int(n)) : QByteArray();
}

// The libvirtd of this test's network namespace, stopped and started again exactly where it
// ran: its mount and network namespaces are held open while it is down, and the same command
// line starts it in them again (however the test environment made it: libvirt-env.sh).
class Libvirtd {
public:
    ~Libvirtd()
    {
        for (int fd : {m_mnt, m_net})
            if (fd >= 0)
                ::close(fd);
    }
    bool find(QString *error)
    {
        QByteArray out;
        run(u"pgrep"_s, {u"-x"_s, u"libvirtd"_s}, &out);
        const QByteArray ownNet = nsOf(u"self"_s, "net");
        if (ownNet.isEmpty()) {
            *error = u"cannot read this process's network namespace"_s;
            return false;
        }
        QList<qint64> candidates;
        for (const QByteArray &pid : out.trimmed().split('\n'))
            if (!pid.isEmpty() && nsOf(QString::fromLatin1(pid), "net") == ownNet)
                candidates.append(pid.toLongLong());
        if (candidates.size() != 1) {
            *error = u"expected exactly one libvirtd in this network namespace, found %1"_s.arg(candidates.size());
            return false;
        }
        m_pid = candidates.first();
        QFile cmdline(u"/proc/%1/cmdline"_s.arg(m_pid));
        if (!cmdline.open(QIODevice::ReadOnly)) {
            *error = u"cannot read libvirtd's command line"_s;
            return false;
        }
        for (const QByteArray &arg : cmdline.readAll().split('\0'))
            if (!arg.isEmpty())
                m_argv.append(QString::fromLocal8Bit(arg));
        m_mnt = ::open(qPrintable(u"/proc/%1/ns/mnt"_s.arg(m_pid)), O_RDONLY | O_CLOEXEC);
        m_net = ::open(qPrintable(u"/proc/%1/ns/net"_s.arg(m_pid)), O_RDONLY | O_CLOEXEC);
        if (m_mnt < 0 || m_net < 0 || m_argv.isEmpty()) {
            *error = u"cannot hold libvirtd's namespaces"_s;
            return false;
        }
        return true;
    }
    qint64 pid() const { return m_pid; }
    bool stopped() const { return m_stopped; }
    // SIGTERM, as an upgrade or `systemctl restart libvirtd` sends: QEMU keeps running.
    bool stop()
    {
        if (::kill(pid_t(m_pid), SIGTERM) != 0)
            return false;
        m_stopped = true;
        QElapsedTimer t;
        t.start();
        while (alive(m_pid) && t.elapsed() < 30000)
            QTest::qWait(200);
        return !alive(m_pid);
    }
    bool start(QString *error)
    {
        const QString self = QString::number(QCoreApplication::applicationPid());
        const QStringList enter{u"--mount=/proc/%1/fd/%2"_s.arg(self).arg(m_mnt), u"--net=/proc/%1/fd/%2"_s.arg(self).arg(m_net)};
        QByteArray err;
        if (run(u"nsenter"_s, enter + QStringList{u"--"_s} + m_argv, nullptr, 60000, &err) != 0) {
            *error = u"cannot start libvirtd again (%1): %2"_s.arg(m_argv.join(u' '), QString::fromLocal8Bit(err));
            return false;
        }
        m_stopped = false;
        const qint64 old = m_pid;
        QElapsedTimer t;
        t.start();
        QString ignored;
        while (t.elapsed() < 30000) {
            if (find(&ignored) && m_pid != old)
                return true;
            QTest::qWait(200);
        }
        *error = u"libvirtd did not come back"_s;
        return false;
    }

private:
    qint64 m_pid = -1;
    QStringList m_argv;
    int m_mnt = -1;
    int m_net = -1;
    bool m_stopped = false;
};

} // namespace

class TestFailClosedVm : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<DaemonHarness> m_daemon;
    QTemporaryDir m_dir;
    RecordingHttpServer m_upstream{QByteArrayLiteral("hello from upstream\n")};
    airlock::test::OutsideNamespace m_outside; // holds 203.0.113.20: not an address of this host
    QString m_box, m_ip, m_gw, m_table;
    Libvirtd m_libvirtd;

    CtlResult guest(const QStringList &argv, int timeoutMs = 90000) { return m_daemon->guestExec(m_box, argv, timeoutMs); }
    QByteArray nftTable()
    {
        QByteArray out;
        run(u"nft"_s, {u"list"_s, u"table"_s, u"inet"_s, m_table}, &out);
        return out;
    }
    QString state()
    {
        const CtlResult r = m_daemon->ctl({u"ls"_s}, 30000);
        for (const QJsonValue &v : r.json().toArray())
            if (v.toObject().value("name"_L1).toString() == m_box)
                return v.toObject().value("state"_L1).toString();
        return {};
    }
    bool startDaemon(QString *error)
    {
        m_daemon = std::make_unique<DaemonHarness>();
        return m_daemon->startWithTinyImage(error);
    }
    bool allowedFlowWorks(QByteArray *why)
    {
        const CtlResult r = guest({u"curl"_s, u"-sS"_s, u"--max-time"_s, u"30"_s, u"http://allowed.test/hello"_s});
        *why = r.err + r.out;
        return r.exitCode == 0 && r.out == "hello from upstream\n";
    }
    bool deniedEvent(const QString &ip, int ms)
    {
        QElapsedTimer t;
        t.start();
        do {
            const CtlResult r = m_daemon->ctl({u"egress"_s, u"ls"_s, m_box}, 30000);
            for (const QJsonValue &v : QJsonDocument::fromJson(r.out).array())
                if (v.toObject().value("ip"_L1).toString() == ip && v.toObject().value("decision"_L1).toString() == "denied"_L1)
                    return true;
            QTest::qWait(300);
        } while (t.elapsed() < ms);
        return false;
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void aLibvirtdRestartLeavesTheGuardInPlace();
    void anUnprivilegedProcessCannotBindBesideTheBroker();
    void whileAirlockdIsDownAnUnprivilegedListenerHearsNothing();
};

void TestFailClosedVm::initTestCase()
{
    const QString missing = airlock::test::missingVmTestPrerequisite(
        u"test_failclosedvm"_s, u"libvirt's system connection, nftables, stopping libvirtd"_s, u"-R test_failclosedvm"_s);
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_outside.create(u"fcv"_s, kOutside, u"192.0.2.16"_s, &error), qPrintable(error));
    bool listening = false;
    airlock::test::inNamespace(m_outside.name(), [&] { listening = m_upstream.start(kOutside, 80); });
    QVERIFY2(listening, "cannot listen on 203.0.113.20:80");
    QVERIFY2(DaemonHarness::setUpstream(m_dir.path(), "203.0.113.20 allowed.test\n", {}, &error), qPrintable(error));
    QVERIFY2(startDaemon(&error), qPrintable(error));
    m_table = m_daemon->ctl({u"status"_s}).json().toObject().value("egress"_L1).toObject().value("nft_table"_L1).toString();
    QVERIFY2(m_table.startsWith("airlock_"_L1), qPrintable(m_table));

    m_box = uniqueName(u"fc"_s);
    const CtlResult created = m_daemon->ctl({u"create"_s, m_box, u"--memory"_s, u"256"_s, u"--start"_s}, 300000);
    QVERIFY2(created.exitCode == 0, created.err.constData());
    m_ip = created.json().toObject().value("ip"_L1).toString();
    QVERIFY(!m_ip.isEmpty());
    m_gw = m_ip.section(u'.', 0, 2) + u"."_s + QString::number(m_ip.section(u'.', 3, 3).toInt() - 1);
    QCOMPARE(m_daemon->ctl({u"rule"_s, u"add"_s, u"--sandbox"_s, m_box, u"--action"_s, u"allow"_s, u"--host"_s, u"allowed.test"_s}).exitCode, 0);
    QByteArray why;
    QVERIFY2(allowedFlowWorks(&why), why.constData());
}

void TestFailClosedVm::cleanupTestCase()
{
    QString error;
    if (m_libvirtd.stopped() && !m_libvirtd.start(&error))
        qWarning("could not start libvirtd again: %s", qPrintable(error));
    if (m_daemon && !m_daemon->running())
        startDaemon(&error);
    if (m_daemon && !m_box.isEmpty())
        m_daemon->killAndRemove(m_box);
    if (m_daemon)
        m_daemon->stop();
    m_upstream.stop();
    m_outside.remove();
}

void TestFailClosedVm::aLibvirtdRestartLeavesTheGuardInPlace()
{
    // Services of the host on the gateway address, as ssh would be.
    Sentinel ssh, other;
    QVERIFY(ssh.start(SOCK_STREAM, m_gw, 22));
    QVERIFY(other.start(SOCK_STREAM, m_gw, 2222));
    QVERIFY(nftTable().contains(m_gw.toLatin1()));
    QString error;
    QVERIFY2(m_libvirtd.find(&error), qPrintable(error));
    const qint64 qemu = pidOf({u"-f"_s, u"guest=[^,]*-%1,"_s.arg(m_box)});
    QVERIFY2(qemu > 0, "cannot find the guest's QEMU process");
    QVERIFY2(m_libvirtd.stop(), "libvirtd did not stop");
    QElapsedTimer t;
    // Several sweeps (every 2 s) see no libvirtd: the guard must stay all along.
    t.restart();
    while (t.elapsed() < 12000) {
        QVERIFY2(alive(qemu), "the guest's QEMU died with libvirtd");
        QVERIFY2(nftTable().contains(m_gw.toLatin1()), "the guest's chains went away while libvirtd was down");
        QTest::qWait(1000);
    }
    QVERIFY2(m_libvirtd.start(&error), qPrintable(error));
    t.restart();
    while (state() != "running"_L1 && t.elapsed() < 90000)
        QTest::qWait(1000);
    QCOMPARE(state(), u"running"_s);
    QFile log(QFileInfo(m_daemon->socketPath()).dir().filePath(u"airlockd.log"_s));
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QByteArray logged = log.readAll();
    QVERIFY2(logged.contains("libvirt connection lost") && logged.contains("reconnected to libvirt"),
             qPrintable(u"airlockd did not report losing and regaining libvirt: "_s + QString::fromUtf8(logged.right(3000))));
    QVERIFY(alive(qemu));

    for (const QString &port : {u"22"_s, u"2222"_s}) {
        const CtlResult r = guest({u"curl"_s, u"-sS"_s, u"--max-time"_s, u"5"_s, u"http://%1:%2/"_s.arg(m_gw, port)});
        QVERIFY2(r.exitCode != 0, qPrintable(u"the guest reached the gateway's port "_s + port));
    }
    QVERIFY2(!ssh.heardAnything() && !other.heardAnything(), "after libvirtd's restart the guest reached a host service");
    // The image keeps IPv6 off; a hostile guest turns it on, and the guard must still drop it.
    QCOMPARE(guest({u"sh"_s, u"-c"_s, u"echo 0 > /proc/sys/net/ipv6/conf/eth0/disable_ipv6"_s}).exitCode, 0);
    QTest::qWait(2500); // past duplicate address detection of its link-local address
    const CtlResult ping = guest({u"ping6"_s, u"-c"_s, u"1"_s, u"-W"_s, u"2"_s, u"ff02::114%eth0"_s});
    QVERIFY2(!ping.out.contains("bytes from"), ping.out.constData());
    QVERIFY2(deniedEvent(u"ff02::114"_s, 8000), "no denied event for IPv6 after libvirtd's restart: is the guard live?");
    QVERIFY(nftTable().contains(m_gw.toLatin1()));
    QCOMPARE(state(), u"running"_s);
    QByteArray why;
    QVERIFY2(allowedFlowWorks(&why), why.constData());
}

void TestFailClosedVm::anUnprivilegedProcessCannotBindBesideTheBroker()
{
    for (const auto &[type, port] : {std::pair{SOCK_DGRAM, 15053}, std::pair{SOCK_STREAM, 15053}, std::pair{SOCK_STREAM, 15001}}) {
        Squatter squatter;
        QString error;
        const int rc = squatter.start(type, m_gw, quint16(port), true, &error);
        QVERIFY2(rc >= 0, qPrintable(error));
        QVERIFY2(rc == EADDRINUSE, qPrintable(u"%1 %2:%3: an unprivileged bind gave %4 (0: it holds the port beside airlockd)"_s
                                                  .arg(type == SOCK_DGRAM ? u"udp"_s : u"tcp"_s, m_gw).arg(port).arg(rc)));
    }
}

void TestFailClosedVm::whileAirlockdIsDownAnUnprivilegedListenerHearsNothing()
{
    // The guest tries a connection (redirected to the proxy's port) and a DNS query (to the
    // resolver's) a little after airlockd is gone; its results are read once airlockd is back.
    const QString job = u"rm -f /tmp/fc.*; setsid sh -c 'sleep 8; curl -sS --max-time 5 http://%1/ >/tmp/fc.curl 2>&1; "
                        "echo $? >/tmp/fc.curlrc; nslookup allowed.test %2 >/tmp/fc.dns 2>&1; echo $? >/tmp/fc.dnsrc' "
                        "</dev/null >/dev/null 2>&1 &"_s.arg(kOutside, m_gw);
    QCOMPARE(m_daemon->guestSh(m_box, job).exitCode, 0);
    m_daemon->killHard();
    QVERIFY(!m_daemon->running());
    QVERIFY(nftTable().contains(m_gw.toLatin1())); // a dead airlockd leaves its table
    Squatter proxy, dns;
    QString error;
    QCOMPARE(proxy.start(SOCK_STREAM, m_gw, 15001, true, &error), 0);
    QCOMPARE(dns.start(SOCK_DGRAM, m_gw, 15053, true, &error), 0);
    QTest::qWait(30000); // the job's sleep, curl's 5 s and nslookup's retries
    const bool heardConnection = proxy.heardAnything();
    const bool heardQuery = dns.heardAnything();
    QVERIFY2(startDaemon(&error), qPrintable(error));
    QVERIFY2(!heardConnection, "an unprivileged listener received the guest's connection while airlockd was down");
    QVERIFY2(!heardQuery, "an unprivileged listener received the guest's DNS query while airlockd was down");
    const CtlResult rc = m_daemon->guestSh(m_box, u"cat /tmp/fc.curlrc /tmp/fc.dnsrc"_s);
    QVERIFY2(rc.exitCode == 0, rc.err.constData());
    const QList<QByteArray> codes = rc.out.trimmed().split('\n');
    QCOMPARE(codes.size(), 2);
    QVERIFY2(codes.at(0).trimmed() != "0" && codes.at(1).trimmed() != "0", rc.out.constData());
    // Back up: the restarted airlockd guards the guest again, and an allowed flow works.
    QCOMPARE(state(), u"running"_s);
    QByteArray why;
    QVERIFY2(allowedFlowWorks(&why), why.constData());
}

QTEST_GUILESS_MAIN(TestFailClosedVm)
#include "test_failclosedvm.moc"
