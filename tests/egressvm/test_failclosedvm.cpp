// The guard stays when the parts around it fail (one real TCG guest of the tiny image):
// libvirtd stops under a running sandbox and comes back, and a process without privileges
// takes the broker's ports beside airlockd and while airlockd is dead. Each time the guest
// must reach nothing it could not reach before, and afterwards the live guard still works.
//
// It stops the namespace's libvirtd (and always starts it again through
// tests/support/libvirt-env.sh, also when a check fails), so it runs on its own, under the
// VM lock, in the network namespace of the tests; every packet stays inside it.
#include "daemonharness.h"
#include "netns.h"
#include "recordinghttpserver.h"
#include "sentinel.h"
#include "squatter.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <cerrno>
#include <csignal>
#include <memory>
#include <sys/socket.h>

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

} // namespace

class TestFailClosedVm : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<DaemonHarness> m_daemon;
    QTemporaryDir m_dir;
    RecordingHttpServer m_upstream{QByteArrayLiteral("hello from upstream\n")};
    airlock::test::LoopbackAddress m_outside;
    QString m_box, m_ip, m_gw, m_table;
    bool m_libvirtdStopped = false;

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
    // As CI starts it; the tables stay (they are what this test checks).
    bool startLibvirtd(QString *error)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"AIRLOCK_KEEP_TABLES"_s, u"1"_s);
        p.setProcessEnvironment(env);
        p.start(u"bash"_s, {qEnvironmentVariable("AIRLOCK_LIBVIRT_ENV"), u"namespace"_s});
        if (!p.waitForFinished(120000) || p.exitCode() != 0) {
            *error = QString::fromUtf8(p.readAllStandardError());
            return false;
        }
        m_libvirtdStopped = false;
        return true;
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
    QVERIFY2(QFile::exists(qEnvironmentVariable("AIRLOCK_LIBVIRT_ENV")), "AIRLOCK_LIBVIRT_ENV is not set; run through ctest");
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_outside.add(kOutside, &error), qPrintable(error));
    QVERIFY2(m_upstream.start(kOutside, 80), "cannot listen on 203.0.113.20:80");
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
    if (m_libvirtdStopped && !startLibvirtd(&error))
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
    const qint64 libvirtd = pidOf({u"-x"_s, u"libvirtd"_s});
    QVERIFY2(libvirtd > 0, "not exactly one libvirtd runs");
    const qint64 qemu = pidOf({u"-f"_s, u"guest=[^,]*-%1,"_s.arg(m_box)});
    QVERIFY2(qemu > 0, "cannot find the guest's QEMU process");

    // As an upgrade or `systemctl restart libvirtd` does: QEMU keeps running.
    m_libvirtdStopped = true;
    QCOMPARE(::kill(pid_t(libvirtd), SIGTERM), 0);
    QElapsedTimer t;
    t.start();
    while (alive(libvirtd) && t.elapsed() < 30000)
        QTest::qWait(200);
    QVERIFY2(!alive(libvirtd), "libvirtd did not stop");
    // Several sweeps (every 2 s) see no libvirtd: the guard must stay all along.
    t.restart();
    while (t.elapsed() < 12000) {
        QVERIFY2(alive(qemu), "the guest's QEMU died with libvirtd");
        QVERIFY2(nftTable().contains(m_gw.toLatin1()), "the guest's chains went away while libvirtd was down");
        QTest::qWait(1000);
    }
    QString error;
    QVERIFY2(startLibvirtd(&error), qPrintable(error));
    t.restart();
    while (state() != "running"_L1 && t.elapsed() < 90000)
        QTest::qWait(1000);
    QCOMPARE(state(), u"running"_s);
    QVERIFY2(m_daemon->log().contains("reconnected to libvirt"), "airlockd did not report the reconnect");
    QVERIFY(alive(qemu));

    for (const QString &port : {u"22"_s, u"2222"_s}) {
        const CtlResult r = guest({u"curl"_s, u"-sS"_s, u"--max-time"_s, u"5"_s, u"http://%1:%2/"_s.arg(m_gw, port)});
        QVERIFY2(r.exitCode != 0, qPrintable(u"the guest reached the gateway's port "_s + port));
    }
    QVERIFY2(!ssh.heardAnything() && !other.heardAnything(), "after libvirtd's restart the guest reached a host service");
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
    QVERIFY(m_daemon->waitForExit(10000));
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
