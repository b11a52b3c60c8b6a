// Every byte of a flow decided on a name passes a checker, seen from a hostile guest, no VM:
// a "guest" namespace wired to a bridge in a "broker" namespace, the real nftables ruleset
// redirecting its TCP to a real TransparentProxy whose decider this test writes (so a rule
// can allow raw TCP). The upstreams on 203.0.113.30, on the broker namespace's loopback,
// record every byte they receive: a keep-alive HTTP server (:80), a TLS server that answers
// the first ClientHello with a HelloRetryRequest (:443), a raw one (:7000). The guest sends
// what curl would not: pipelined and keep-alive requests naming another host, blank lines,
// odd methods, no Host, absolute URLs, smuggling, ECH, a second ClientHello after the retry,
// another protocol. "evil.test" must never reach an upstream. Every packet stays inside the
// two namespaces this test creates.
#include "store/store.h"
#include "eventlog.h"
#include "flowhandoff.h"
#include "netns.h"
#include "nftruleset.h"
#include "residentmemory.h"
#include "streamrecorder.h"
#include "syntheticnames.h"
#include "tlsrecords.h"
#include "transparentproxy.h"
#include "upstreamresolver.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <arpa/inet.h>
#include <atomic>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

using namespace airlock;
using namespace airlock::test;

namespace {

constexpr quint32 kGateway = 0x0A610001; // 10.97.0.1
constexpr quint32 kGuest = 0x0A610002;   // 10.97.0.2
const QString kUpstream = QStringLiteral("203.0.113.30");
const QString kSandbox = QStringLiteral("guest1");
constexpr qint64 kDenyRule = 7;

struct Talk {
    QByteArray got;
    bool connected = false;
    bool reset = false;   // the broker cut the connection (RST)
};

// One TCP conversation from the guest: each part is sent, then whatever comes within
// `pauseMs` is read; at the end, everything until the peer closes (or 1 s).
Talk converse(const QString &ns, quint32 ip, quint16 port, const QList<QByteArray> &parts, int pauseMs = 300)
{
    Talk t;
    inNamespace(ns, [&] {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_port = htons(port);
        sa.sin_addr.s_addr = htonl(ip);
        t.connected = ::connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) == 0;
        auto drain = [&](int ms) {
            QElapsedTimer clock;
            clock.start();
            char buf[4096];
            while (clock.elapsed() < ms) {
                pollfd pfd{fd, POLLIN, 0};
                if (::poll(&pfd, 1, int(ms - clock.elapsed())) != 1)
                    return true;
                const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
                if (n <= 0) {
                    t.reset = t.reset || (n < 0 && errno == ECONNRESET);
                    return false;
                }
                t.got.append(buf, int(n));
            }
            return true;
        };
        bool open = t.connected;
        for (const QByteArray &part : parts) {
            if (!open)
                break;
            if (!part.isEmpty() && ::send(fd, part.constData(), size_t(part.size()), MSG_NOSIGNAL) < 0) {
                t.reset = t.reset || errno == ECONNRESET || errno == EPIPE;
                open = false;
                break;
            }
            open = drain(pauseMs);
        }
        if (open)
            drain(1000);
        ::close(fd);
    });
    return t;
}

// Stands in for the vault's SecretHandoff: one lent secret whose placeholder may not leave by
// plain HTTP; nothing is intercepted.
class PlaceholderHandoff : public FlowHandoff {
public:
    static constexpr QByteArrayView kPlaceholder = "PLACEHOLDERaaaaaaaaaaaaaaaaaaaa";
    bool wants(const QString &, const QString &, bool) override { return false; }
    void endFlowsOf(const QString &) override {}
    void take(int fd, const QString &, const QString &, const QByteArray &, const QHostAddress &, quint16, bool, GuestProcessLookup,
              std::function<void()> done) override
    {
        ::close(fd);
        done();
    }
    std::optional<QString> placeholderIn(const QString &, QByteArrayView bytes) override
    {
        return bytes.indexOf(kPlaceholder) >= 0 ? std::optional<QString>(QStringLiteral("token")) : std::nullopt;
    }
    void exfiltration(const QString &, const QString &, const QString &) override { ++alerts; }
    std::atomic<int> alerts{0};
};

QByteArray get(const QByteArray &host, const QByteArray &path = "/")
{
    return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
}

} // namespace

class TestFlowCheck : public QObject {
    Q_OBJECT

    QString m_brokerNs, m_guestNs;
    QTemporaryDir m_dir;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<NftRuleset> m_nft;
    SyntheticNames m_names;
    EventLog m_events;
    std::unique_ptr<UpstreamResolver> m_resolver;
    std::unique_ptr<TransparentProxy> m_proxy;
    PlaceholderHandoff m_handoff;
    StreamRecorder m_http{StreamRecorder::Mode::Http};
    StreamRecorder m_tls{StreamRecorder::Mode::Tls};
    StreamRecorder m_raw{StreamRecorder::Mode::Raw};
    std::mutex m_mutex;
    std::vector<EgressEvent> m_recorded;

    quint32 address(const QString &name) { return m_names.addressFor(kSandbox, name).value_or(0); }
    Talk talk(const QString &name, quint16 port, const QList<QByteArray> &parts, int pauseMs = 300)
    {
        return converse(m_guestNs, address(name), port, parts, pauseMs);
    }
    // The last event whose reason contains `text`, waiting for it a little.
    EgressEvent eventWith(const QString &text)
    {
        QElapsedTimer t;
        t.start();
        do {
            m_events.flush();
            {
                std::lock_guard lock(m_mutex);
                for (auto it = m_recorded.rbegin(); it != m_recorded.rend(); ++it)
                    if (it->reason.contains(text))
                        return *it;
            }
            QTest::qWait(50);
        } while (t.elapsed() < 5000);
        return {};
    }
    void noUpstreamSawEvil()
    {
        QTest::qWait(100);
        for (StreamRecorder *r : {&m_http, &m_tls, &m_raw})
            QVERIFY2(!r->received().contains("evil.test"), r->received().left(2000).constData());
    }
    FlowVerdict decide(const FlowTarget &t)
    {
        FlowVerdict v;
        if (t.host == QLatin1String("denied.test")) {
            v.decision = Decision::Denied;
            v.rule = kDenyRule;
            v.reason = QStringLiteral("rule %1: deny denied.test (always)").arg(kDenyRule);
            return v;
        }
        v.decision = Decision::Allowed;
        v.rule = 1;
        v.reason = QStringLiteral("rule 1: allow *.test (always)");
        v.rawTcp = t.host == QLatin1String("raw.test"); // the rule option this test stands in for
        return v;
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void aWellBehavedClientIsServed();
    void keepAliveRequestNamingAnotherHostIsCut();
    void pipelinedRequestNamingAnotherHostIsRefused();
    void blankLinesBeforeARequestHideNothing();
    void oddMethodsAreCheckedToo();
    void http10WithoutHostIsRefused();
    void absoluteUrlToAnotherHostIsRefused();
    void smugglingIsRefused();
    void upgradeNeedsRawTcp();
    void echAndEsniAreRefused();
    void secondClientHelloAfterARetryIsChecked();
    void otherProtocolNeedsRawTcp();
    void serverSpeaksFirstNeedsRawTcp();
    void blockedPageNamesTheRuleOnce();
    void aPlaceholderInALaterBodyIsStillFound();
    void anIncompleteHeadCostsNoCpu();
    void othersTablesCostNoMemory();
};

void TestFlowCheck::initTestCase()
{
    if (::geteuid() != 0)
        QFAIL("test_flowcheck needs root: it creates network namespaces and an nftables table (run ctest as root)");
    QVERIFY(m_dir.isValid());
    const QString pid = QString::number(::getpid());
    m_brokerNs = QStringLiteral("alk-fc-b-") + pid;
    m_guestNs = QStringLiteral("alk-fc-g-") + pid;
    const QString ip = QStringLiteral("ip");
    auto L = [](const char *s) { return QString::fromLatin1(s); };
    QVERIFY(run(ip, {L("netns"), L("add"), m_brokerNs}) == 0);
    QVERIFY(run(ip, {L("netns"), L("add"), m_guestNs}) == 0);
    QVERIFY2(enter(m_brokerNs), "cannot enter the broker namespace");
    const QList<QStringList> broker = {
        {L("link"), L("set"), L("lo"), L("up")},
        {L("addr"), L("add"), kUpstream + L("/32"), L("dev"), L("lo")},
        {L("link"), L("add"), L("alkbr0"), L("type"), L("bridge")},
        {L("addr"), L("add"), L("10.97.0.1/24"), L("dev"), L("alkbr0")},
        {L("link"), L("set"), L("alkbr0"), L("up")},
        {L("link"), L("add"), L("alkv0h"), L("type"), L("veth"), L("peer"), L("name"), L("alkv0g")},
        {L("link"), L("set"), L("alkv0h"), L("master"), L("alkbr0"), L("up")},
        {L("link"), L("set"), L("alkv0g"), L("netns"), m_guestNs},
    };
    for (const QStringList &cmd : broker)
        QVERIFY2(run(ip, cmd) == 0, qPrintable(cmd.join(QLatin1Char(' '))));
    const QList<QStringList> guest = {
        {ip, L("link"), L("set"), L("lo"), L("up")},
        {ip, L("link"), L("set"), L("alkv0g"), L("address"), L("52:54:00:12:34:56")},
        {ip, L("addr"), L("add"), L("10.97.0.2/24"), L("dev"), L("alkv0g")},
        {ip, L("link"), L("set"), L("alkv0g"), L("up")},
        {ip, L("route"), L("add"), L("default"), L("via"), L("10.97.0.1")},
    };
    for (const QStringList &cmd : guest)
        QVERIFY2(runIn(m_guestNs, cmd) == 0, qPrintable(cmd.join(QLatin1Char(' '))));
    QVERIFY(m_http.start(kUpstream, 80));
    QVERIFY(m_tls.start(kUpstream, 443));
    QVERIFY(m_raw.start(kUpstream, 7000));

    QFile hosts(m_dir.filePath(QStringLiteral("hosts")));
    QVERIFY(hosts.open(QIODevice::WriteOnly));
    hosts.write("203.0.113.30 allowed.test raw.test denied.test\n");
    hosts.close();
    Result<Store> store = Store::open(m_dir.filePath(QStringLiteral("airlock.db")));
    QVERIFY2(store, qPrintable(store ? QString() : store.error().message()));
    m_store = std::make_unique<Store>(std::move(store.value()));
    QVERIFY(m_events.start(m_dir.filePath(QStringLiteral("airlock.db")), [this](const std::vector<EgressEvent> &batch) {
        std::lock_guard lock(m_mutex);
        m_recorded.insert(m_recorded.end(), batch.begin(), batch.end());
    }));
    m_resolver = std::make_unique<UpstreamResolver>(hosts.fileName());
    TransparentProxy::Limits limits;
    limits.headerTimeoutMs = 1500;
    const BrokerPorts ports{15101, 15153};
    m_proxy = std::make_unique<TransparentProxy>(m_names, m_events, *m_resolver, ports.proxy,
                                                 [this](const FlowTarget &t) { return decide(t); }, limits);
    m_proxy->setHandoff(&m_handoff);
    // The upstreams live on an address of this (the broker's) namespace, which the proxy never
    // dials unless an address rule opens it: this decider is that rule.
    m_proxy->setAddressDecider([](const FlowTarget &t) {
        FlowVerdict v;
        if (t.ip == 0xCB00711E) { // 203.0.113.30
            v.decision = Decision::Allowed;
            v.reason = QStringLiteral("the test's upstreams");
        }
        return v;
    });
    m_proxy->start();
    const SandboxNet net{kSandbox, QStringLiteral("alkbr0"), kGuest, kGateway, QStringLiteral("52:54:00:12:34:56")};
    QVERIFY(m_proxy->attach(net));
    m_nft = std::make_unique<NftRuleset>(ports, NftRuleset::kDefaultLogGroup, QStringLiteral("airlock_flowcheck"));
    const Status applied = m_nft->apply({net});
    QVERIFY2(applied, qPrintable(applied ? QString() : applied.error().message()));
}

void TestFlowCheck::cleanupTestCase()
{
    if (m_proxy)
        m_proxy->stop();
    m_events.stop();
    m_http.stop();
    m_tls.stop();
    m_raw.stop();
    if (m_nft)
        m_nft->remove();
    for (const QString &ns : {m_guestNs, m_brokerNs})
        if (!ns.isEmpty())
            run(QStringLiteral("ip"), {QStringLiteral("netns"), QStringLiteral("del"), ns});
}

void TestFlowCheck::aWellBehavedClientIsServed()
{
    // Keep-alive, a body, blank lines between requests, a port in Host: all on the same connection.
    const QByteArray post = "POST /up HTTP/1.1\r\nHost: allowed.test:80\r\nContent-Length: 5\r\n\r\nhello";
    const Talk t = talk(QStringLiteral("allowed.test"), 80, {get("allowed.test", "/one"), post, "\r\n" + get("ALLOWED.test", "/three")});
    QCOMPARE(t.got.count("HTTP/1.1 200 OK"), 3);
    QVERIFY(m_http.received().contains("/three"));
}

void TestFlowCheck::keepAliveRequestNamingAnotherHostIsCut()
{
    const Talk t = talk(QStringLiteral("allowed.test"), 80, {get("allowed.test", "/first"), get("evil.test", "/second")});
    QCOMPARE(t.got.count("HTTP/1.1 200 OK"), 1); // the first was answered, the second never left
    QVERIFY(m_http.received().contains("/first"));
    noUpstreamSawEvil();
    const EgressEvent e = eventWith(QStringLiteral("request 2 on the connection: HTTP Host evil.test"));
    QCOMPARE(e.decision, Decision::Denied);
    QCOMPARE(e.host, QStringLiteral("allowed.test"));
}

void TestFlowCheck::pipelinedRequestNamingAnotherHostIsRefused()
{
    // Both requests in one segment, and the second in the middle of a later read.
    talk(QStringLiteral("allowed.test"), 80, {get("allowed.test", "/p1") + get("evil.test", "/p2")});
    talk(QStringLiteral("allowed.test"), 80, {get("allowed.test", "/p3") + "GET /p4 HTTP/1.1\r\nHo", "st: evil.test\r\n\r\n"}, 100);
    QVERIFY(!m_http.received().contains("/p2") && !m_http.received().contains("/p4"));
    noUpstreamSawEvil();
    QCOMPARE(eventWith(QStringLiteral("HTTP Host evil.test")).decision, Decision::Denied);
}

void TestFlowCheck::blankLinesBeforeARequestHideNothing()
{
    // Skipped and still checked: the request after them is the one the upstream reads.
    const Talk first = talk(QStringLiteral("allowed.test"), 80, {"\r\n\r\n" + get("evil.test", "/blank")});
    QVERIFY2(first.got.startsWith("HTTP/1.1 403"), first.got.constData());
    const Talk later = talk(QStringLiteral("allowed.test"), 80, {get("allowed.test") + "\r\n\r\n" + get("evil.test", "/blank2")});
    QVERIFY(later.got.count("200 OK") <= 1);
    // More blank lines than are skipped: refused, not a different place to start reading.
    const Talk many = talk(QStringLiteral("allowed.test"), 80, {QByteArray("\r\n").repeated(6) + get("allowed.test", "/many")});
    QVERIFY(!many.got.contains("200 OK"));
    noUpstreamSawEvil();
    QVERIFY(!m_http.received().contains("/blank") && !m_http.received().contains("/many"));
}

void TestFlowCheck::oddMethodsAreCheckedToo()
{
    for (const QByteArray &method : {QByteArray("get"), QByteArray("M-SEARCH"), QByteArray("PROPFIND2")}) {
        const Talk t = talk(QStringLiteral("allowed.test"), 80, {method + " /odd HTTP/1.1\r\nHost: evil.test\r\n\r\n"});
        QVERIFY2(t.got.startsWith("HTTP/1.1 403"), method.constData());
        QVERIFY2(t.got.contains("HTTP Host evil.test"), t.got.constData());
    }
    for (const QByteArray &method : {QByteArray("CONNECT"), QByteArray("TRACE"), QByteArray("trace")}) {
        const Talk t = talk(QStringLiteral("allowed.test"), 80, {method + " / HTTP/1.1\r\nHost: allowed.test\r\n\r\n"});
        QVERIFY2(!t.got.contains("200 OK"), method.constData());
    }
    noUpstreamSawEvil();
    QVERIFY(!m_http.received().contains("/odd"));
}

void TestFlowCheck::http10WithoutHostIsRefused()
{
    const Talk t = talk(QStringLiteral("allowed.test"), 80, {"GET /nohost HTTP/1.0\r\n\r\n"});
    QVERIFY(!t.got.contains("200 OK"));
    QVERIFY(!m_http.received().contains("/nohost"));
    QCOMPARE(eventWith(QStringLiteral("without a Host")).decision, Decision::Denied);
}

void TestFlowCheck::absoluteUrlToAnotherHostIsRefused()
{
    const Talk t = talk(QStringLiteral("allowed.test"), 80, {"GET http://evil.test/abs HTTP/1.1\r\nHost: allowed.test\r\n\r\n"});
    QVERIFY(!t.got.contains("200 OK"));
    const Talk later = talk(QStringLiteral("allowed.test"), 80,
                            {get("allowed.test"), "GET http://evil.test/abs2 HTTP/1.1\r\nHost: allowed.test\r\n\r\n"});
    QCOMPARE(later.got.count("200 OK"), 1);
    noUpstreamSawEvil();
    QVERIFY(!eventWith(QStringLiteral("names evil.test but Host")).reason.isEmpty());
}

void TestFlowCheck::smugglingIsRefused()
{
    // TE and CL together: one upstream reads "0\r\n\r\n" as the end, another reads 4 bytes of body.
    const QByteArray smuggle = "POST /s HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" +
                               get("evil.test", "/smuggled");
    talk(QStringLiteral("allowed.test"), 80, {get("allowed.test"), smuggle});
    // A body framed by chunked, then the next head right where it ends.
    const QByteArray chunked = "POST /c HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nbody\r\n0\r\n\r\n" +
                               get("evil.test", "/after-chunked");
    talk(QStringLiteral("allowed.test"), 80, {chunked});
    QVERIFY(!m_http.received().contains("/smuggled") && !m_http.received().contains("/after-chunked"));
    noUpstreamSawEvil();
    QVERIFY(!eventWith(QStringLiteral("smuggling")).reason.isEmpty());
}

void TestFlowCheck::upgradeNeedsRawTcp()
{
    const QByteArray upgrade = "GET /ws HTTP/1.1\r\nHost: %1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n";
    const Talk refused = talk(QStringLiteral("allowed.test"), 80, {QByteArray(upgrade).replace("%1", "allowed.test")});
    QVERIFY2(refused.got.startsWith("HTTP/1.1 403"), refused.got.constData());
    QVERIFY(!eventWith(QStringLiteral("protocol upgrade (websocket)")).reason.isEmpty());
    const Talk allowed = talk(QStringLiteral("raw.test"), 80, {QByteArray(upgrade).replace("%1", "raw.test")});
    QVERIFY2(allowed.got.contains("200 OK"), allowed.got.constData());
}

void TestFlowCheck::echAndEsniAreRefused()
{
    const int before = m_tls.connections();
    for (const quint16 type : {quint16(0xfe0d), quint16(0xffce)}) {
        const Talk t = talk(QStringLiteral("allowed.test"), 443, {tlstest::clientHello("allowed.test", {{type, QByteArray(64, 'e')}})});
        QVERIFY(t.got.isEmpty());
    }
    QCOMPARE(m_tls.connections(), before); // never even connected upstream
    QVERIFY(!eventWith(QStringLiteral("Encrypted Client Hello (extension 0xfe0d)")).reason.isEmpty());
    QVERIFY(!eventWith(QStringLiteral("ESNI (extension 0xffce)")).reason.isEmpty());
    // No SNI at all: refused on a name, relayed on a raw-TCP rule.
    QVERIFY(talk(QStringLiteral("allowed.test"), 443, {tlstest::clientHello({})}).got.isEmpty());
    QVERIFY(!eventWith(QStringLiteral("without SNI")).reason.isEmpty());
    QCOMPARE(m_tls.connections(), before);
    const Talk raw = talk(QStringLiteral("raw.test"), 443, {tlstest::clientHello({})});
    QVERIFY2(raw.got.startsWith(tlstest::serverHello(true)), raw.got.toHex().constData());
}

void TestFlowCheck::secondClientHelloAfterARetryIsChecked()
{
    const QByteArray first = tlstest::clientHello("allowed.test");
    const QByteArray ccs = tlstest::record(20, "\x01");
    // The upstream asks for a retry; the second hello names another host: cut, never sent.
    const Talk fronted = talk(QStringLiteral("allowed.test"), 443, {first, ccs + tlstest::clientHello("evil.test")});
    QVERIFY2(fronted.got.startsWith(tlstest::serverHello(true)), fronted.got.toHex().constData());
    QVERIFY(!fronted.got.contains(tlstest::serverHello(false)));
    noUpstreamSawEvil();
    QVERIFY(!eventWith(QStringLiteral("the ClientHello sent after a HelloRetryRequest: TLS SNI evil.test")).reason.isEmpty());
    // The same with the right name: the handshake completes, and afterwards the flow is relayed as is.
    const Talk fine = talk(QStringLiteral("allowed.test"), 443, {first, ccs + tlstest::clientHello("allowed.test"),
                                                                 tlstest::record(23, "after the handshake")});
    QVERIFY2(fine.got == tlstest::serverHello(true) + tlstest::serverHello(false), fine.got.toHex().constData());
    QTest::qWait(100);
    QVERIFY(m_tls.received().contains("after the handshake"));
}

void TestFlowCheck::otherProtocolNeedsRawTcp()
{
    const Talk refused = talk(QStringLiteral("allowed.test"), 7000, {"SSH-2.0-OpenSSH_9.2p1 evil.test\r\n"});
    QVERIFY(refused.got.isEmpty());
    QVERIFY(!m_raw.received().contains("SSH-2.0"));
    const EgressEvent e = eventWith(QStringLiteral("neither TLS nor HTTP"));
    QCOMPARE(e.decision, Decision::Denied);
    QVERIFY2(e.reason.contains(QLatin1String("raw TCP to allowed.test:7000")), qPrintable(e.reason));
    const Talk allowed = talk(QStringLiteral("raw.test"), 7000, {"SSH-2.0-OpenSSH_9.2p1\r\n"});
    QCOMPARE(allowed.got, QByteArray("pong\n"));
    QVERIFY(m_raw.received().contains("SSH-2.0-OpenSSH_9.2p1\r\n"));
}

void TestFlowCheck::serverSpeaksFirstNeedsRawTcp()
{
    // Nothing sent for longer than firstBytesMs, then a request: a slow client is still served.
    const Talk slow = talk(QStringLiteral("allowed.test"), 80, {QByteArray(), get("allowed.test", "/slow")}, 600);
    QVERIFY2(slow.got.contains("200 OK"), slow.got.constData());
    // Nothing at all until headerTimeoutMs: refused on a name.
    const Talk silent = talk(QStringLiteral("allowed.test"), 7000, {QByteArray()}, 2500);
    QVERIFY(silent.got.isEmpty());
    QVERIFY(!eventWith(QStringLiteral("sent nothing for 1 s (a protocol where the server speaks first")).reason.isEmpty());
    // On a raw-TCP rule it is relayed as soon as firstBytesMs passed.
    const Talk raw = talk(QStringLiteral("raw.test"), 7000, {QByteArray(), "late bytes\n"}, 600);
    QCOMPARE(raw.got, QByteArray("pong\n"));
}

void TestFlowCheck::blockedPageNamesTheRuleOnce()
{
    const Talk t = talk(QStringLiteral("denied.test"), 80, {get("denied.test")});
    QVERIFY2(t.got.startsWith("HTTP/1.1 403"), t.got.constData());
    QVERIFY2(t.got.contains("(rule 7: deny denied.test (always))"), t.got.constData());
    QVERIFY2(!t.got.contains("rule 7: rule 7"), t.got.constData());
}

void TestFlowCheck::aPlaceholderInALaterBodyIsStillFound()
{
    // The checker and the placeholder scan run together: a later request's body, the
    // placeholder split across two writes.
    const QByteArray placeholder = PlaceholderHandoff::kPlaceholder.toByteArray();
    const QByteArray post = "POST /leak HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: " + QByteArray::number(placeholder.size()) + "\r\n\r\n";
    const Talk t = talk(QStringLiteral("allowed.test"), 80, {get("allowed.test", "/before"), post + placeholder.left(10), placeholder.mid(10)}, 200);
    QCOMPARE(t.got.count("200 OK"), 1);
    QVERIFY(!m_http.received().contains(placeholder.mid(10)));
    QCOMPARE(m_handoff.alerts.load(), 1);
    QVERIFY(!eventWith(QStringLiteral("carry the placeholder of secret token")).reason.isEmpty());
}

void TestFlowCheck::anIncompleteHeadCostsNoCpu()
{
    // A head held for the checker is not "ready to send": the proxy must not spin on a
    // writable upstream meanwhile (a guest could otherwise burn the proxy's thread).
    double cpu = -1;
    QByteArray got;
    inNamespace(m_guestNs, [&] {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_port = htons(80);
        sa.sin_addr.s_addr = htonl(address(QStringLiteral("allowed.test")));
        if (::connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0)
            return;
        const QByteArray bytes = get("allowed.test", "/held") + "GET /never HTTP/1.1\r\nHo";
        ::send(fd, bytes.constData(), size_t(bytes.size()), MSG_NOSIGNAL);
        char buf[512];
        pollfd pfd{fd, POLLIN, 0};
        if (::poll(&pfd, 1, 3000) == 1) {
            const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
            got = QByteArray(buf, int(std::max<ssize_t>(n, 0)));
        }
        auto now = [] {
            timespec ts{};
            ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
            return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
        };
        const double before = now();
        ::usleep(1000 * 1000);
        cpu = now() - before;
        ::close(fd);
    });
    QVERIFY2(got.contains("200 OK"), got.constData());
    QVERIFY2(cpu >= 0 && cpu < 0.3, qPrintable(QStringLiteral("the process used %1 s of CPU in 1 s of a held head").arg(cpu)));
}

void TestFlowCheck::othersTablesCostNoMemory()
{
    // Another program's tables in the same namespace (a firewall, a container runtime, an
    // airlockd of another data dir): replacing our table makes libnftables read them all.
    QString add, del;
    for (int i = 0; i < 200; ++i) {
        add += QStringLiteral("table inet other%1 { chain c { type filter hook input priority 0; policy accept; }; "
                              "set s { type ipv4_addr; elements = { 10.0.0.1, 10.0.0.2 }; }; }\n").arg(i);
        del += QStringLiteral("delete table inet other%1\n").arg(i);
    }
    QFile script(m_dir.filePath(QStringLiteral("others.nft")));
    QVERIFY(script.open(QIODevice::WriteOnly) && script.write(add.toUtf8()) > 0);
    script.close();
    QVERIFY(run(QStringLiteral("nft"), {QStringLiteral("-f"), script.fileName()}) == 0);
    const SandboxNet net{kSandbox, QStringLiteral("alkbr0"), kGuest, kGateway, QStringLiteral("52:54:00:12:34:56")};
    const qint64 before = residentKiB();
    for (int i = 0; i < 3; ++i)
        QVERIFY(m_nft->apply({net}));
    const qint64 grown = residentKiB() - before;
    QVERIFY(script.open(QIODevice::WriteOnly | QIODevice::Truncate) && script.write(del.toUtf8()) > 0);
    script.close();
    QVERIFY(run(QStringLiteral("nft"), {QStringLiteral("-f"), script.fileName()}) == 0);
    qInfo("resident memory grew by %lld KiB over three table replacements beside 200 other tables", grown);
    QVERIFY2(grown < 16 * 1024, qPrintable(QStringLiteral("grew by %1 KiB").arg(grown)));
}

QTEST_GUILESS_MAIN(TestFlowCheck)
#include "test_flowcheck.moc"
