// Interception with real TLS on loopback: curl (trusting only the sandbox CA) -> a front
// socket standing in for the transparent proxy (it peeks the ClientHello for the SNI, as the
// egress broker does) -> the Interceptor -> an HTTPS test server with its own test CA that
// records what it receives.
#include "gitcredentials.h"
#include "guestfront.h"
#include "guesttrust.h"
#include "headertemplate.h"
#include "interceptor.h"
#include "placeholder.h"
#include "policy.h"
#include "support.h"
#include "tlstestserver.h"
#include "vault.h"

#include <csignal>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <openssl/evp.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <system_error>
#include <thread>
#include <unistd.h>

using namespace airlock;

namespace {
const QByteArray kPass = QByteArrayLiteral("interception passphrase");
const QByteArray kAlpha = QByteArrayLiteral("alpha-REAL-secret-value-0123456789");
const QByteArray kBeta = QByteArrayLiteral("beta-REAL-secret-value-9876543210");
const QByteArray kGamma = QByteArrayLiteral("ghp_GAMMArealGitToken0123456789abcdefXY");
const QByteArray kDelta = QByteArrayLiteral("delta/REAL+key=value&0123456789"); // needs percent-encoding

struct CurlResult {
    int code = -1;
    QByteArray out;
    QByteArray err;
};
} // namespace

class TestInterceptor : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void keepAliveRequestsAllGetTheRealValue();
    void bodiesAreRelayedUnchanged();
    void placeholderInUrlIsBlocked();
    void placeholderInBodyIsBlocked();
    void placeholderToAnotherHostIsBlocked();
    void placeholderInAnotherHeaderIsBlocked();
    void websocketUpgradeIsRefused();
    void upstreamWithWrongCertificateGetsNothing();
    void hostOutsideTheNameConstraintsFailsAtTheClient();
    void lockedVaultAnswersReadably();
    void vaultLockedSinceStartRaisesAnAlert();
    void plainFlowGuardFindsPlaceholders();
    void guestTrustBundleWorksForCurl();
    void ambiguousRequestsAreRefusedBeforeUpstream_data();
    void ambiguousRequestsAreRefusedBeforeUpstream();
    void endSandboxClosesItsConnectionsOnly();
    void slowConnectionsDoNotGrowThreadsPastThePool();
    void fullQueueRefusesCleanly();
    void noWorkerThreadIsRefusedCleanly();
    // Basic credentials and base64-encoded placeholders (broker/basicauth.h, base64Forms).
    void basicCredentialsGetTheRealValue();
    void base64PlaceholderElsewhereIsBlocked_data();
    void base64PlaceholderElsewhereIsBlocked();
    void plainFlowGuardFindsBase64Placeholders();
    // Answers of bound hosts (broker/responsemask.h).
    void echoedRealValuesComeBackMasked();
    void encodedAnswersAreRefused();
    void gitCloneAndPushWithALentToken_data();
    void gitCloneAndPushWithALentToken();
    void gitPushesOnlyWhereARuleAllows();
    void queryParameterGetsTheRealValue();
    void queryPlaceholderElsewhereIsBlocked_data();
    void queryPlaceholderElsewhereIsBlocked();

private:
    CurlResult curl(const QString &host, const QStringList &args, quint16 frontPort = 0);
    QList<InterceptEvent> events();
    // An HTTPS upstream for api.bound.test that echoes what reached it (echoResponse).
    // A server on api.bound.test (a leaf of the test CA) answering with `responder`.
    std::unique_ptr<TlsTestServer> boundServer(TlsTestServer::Responder responder);
    std::unique_ptr<TlsTestServer> boundEcho();
    // A git forge on api.bound.test: git http-backend serving the bare repositories under `root`.
    std::unique_ptr<TlsTestServer> gitForge(const QString &root);

    QTemporaryDir m_dir;
    std::unique_ptr<Vault> m_vault;
    std::unique_ptr<TestPki> m_pki;
    std::unique_ptr<TlsTestServer> m_good;
    std::unique_ptr<TlsTestServer> m_wrong;
    std::unique_ptr<Interceptor> m_interceptor;
    std::unique_ptr<Front> m_front;
    QByteArray m_alphaPh;
    QByteArray m_betaPh;
    QByteArray m_gammaPh;
    QByteArray m_deltaPh;
    QString m_caFile;
    std::mutex m_eventsMutex;
    QList<InterceptEvent> m_events;
};

void TestInterceptor::initTestCase()
{
    // As in airlockd (SignalWatcher): OpenSSL writes to a guest that already left raise it.
    ::signal(SIGPIPE, SIG_IGN);
    QVERIFY2(QFile::exists(QStringLiteral("/usr/bin/curl")), "curl is required (installers/packages.txt, run)");
    const QString db = m_dir.filePath(QStringLiteral("airlock.db"));
    m_vault = std::make_unique<Vault>(db);
    QVERIFY(m_vault->open());
    QVERIFY(m_vault->init(kPass));
    QVERIFY(m_vault->setSecret(QStringLiteral("alpha"), {QStringLiteral("api.bound.test")}, QStringLiteral("x-api-key: {}"), kAlpha, 0));
    QVERIFY(m_vault->setSecret(QStringLiteral("beta"), {QStringLiteral("other.bound.test"), QStringLiteral("wrong.bound.test")}, {}, kBeta, 0));
    const qint64 box = testsupport::addSandbox(db, QStringLiteral("box"));
    auto a = m_vault->lendSecret(box, QStringLiteral("alpha"), QStringLiteral("ALPHA_KEY"), 0);
    auto b = m_vault->lendSecret(box, QStringLiteral("beta"), QStringLiteral("BETA_TOKEN"), 0);
    QVERIFY(m_vault->setSecret(QStringLiteral("gamma"), {QStringLiteral("api.bound.test")}, QStringLiteral("Authorization: Basic {}"), kGamma, 0));
    auto g = m_vault->lendSecret(box, QStringLiteral("gamma"), QStringLiteral("GIT_TOKEN"), 0);
    QVERIFY(m_vault->setSecret(QStringLiteral("delta"), {QStringLiteral("api.bound.test")}, QStringLiteral("?key={}"), kDelta, 0));
    auto d = m_vault->lendSecret(box, QStringLiteral("delta"), QStringLiteral("MAPS_KEY"), 0);
    QVERIFY(a && b && g && d);
    m_deltaPh = d.value();
    m_alphaPh = a.value();
    m_betaPh = b.value();
    m_gammaPh = g.value();
    auto pem = m_vault->issueSandboxCa(box);
    QVERIFY2(pem, qPrintable(pem.error().message()));
    m_caFile = m_dir.filePath(QStringLiteral("sandbox-ca.pem"));
    QVERIFY(testsupport::writeFile(m_caFile, pem.value()));

    // The upstream side: a test CA the broker is told to trust, a server with a proper
    // certificate, and one whose certificate names another host.
    m_pki = std::make_unique<TestPki>();
    X509 *cert = nullptr;
    EVP_PKEY *key = nullptr;
    m_pki->issue({"api.bound.test", "other.bound.test", "evil.test"}, &cert, &key);
    m_good = std::make_unique<TlsTestServer>(cert, key);
    X509_free(cert);
    EVP_PKEY_free(key);
    m_pki->issue({"somebody-else.test"}, &cert, &key);
    m_wrong = std::make_unique<TlsTestServer>(cert, key);
    X509_free(cert);
    EVP_PKEY_free(key);
    const QString upstreamCa = m_dir.filePath(QStringLiteral("upstream-ca.pem"));
    QVERIFY(testsupport::writeFile(upstreamCa, m_pki->caPem()));

    Interceptor::Options options;
    options.extraCaFile = upstreamCa;
    m_interceptor = std::make_unique<Interceptor>(*m_vault, options, [this](const InterceptEvent &e) {
        std::lock_guard lock(m_eventsMutex);
        m_events.append(e);
    });
    QVERIFY(m_interceptor->init());
    const quint16 good = m_good->port(), wrong = m_wrong->port();
    m_front = std::make_unique<Front>(*m_interceptor, QStringLiteral("box"), [good, wrong](const QString &sni) {
        return UpstreamAddress{sni, QHostAddress(QHostAddress::LocalHost), sni == QLatin1String("wrong.bound.test") ? wrong : good};
    });
    QVERIFY(m_interceptor->needsInterception(QStringLiteral("box"), QStringLiteral("api.bound.test")));
    QVERIFY(!m_interceptor->needsInterception(QStringLiteral("box"), QStringLiteral("evil.test")));
    QVERIFY(!m_interceptor->needsInterception(QStringLiteral("nobody"), QStringLiteral("api.bound.test")));
}

void TestInterceptor::cleanupTestCase()
{
    m_front.reset();
    m_interceptor.reset(); // waits for every connection thread
    m_good.reset();
    m_wrong.reset();
}

void TestInterceptor::init()
{
    std::lock_guard lock(m_eventsMutex);
    m_events.clear();
}

QList<InterceptEvent> TestInterceptor::events()
{
    // Events of a connection are emitted on its thread; give the last one a moment.
    for (int i = 0; i < 50 && m_interceptor->activeConnections() > 0; ++i)
        QThread::msleep(20);
    std::lock_guard lock(m_eventsMutex);
    return m_events;
}

CurlResult TestInterceptor::curl(const QString &host, const QStringList &args, quint16 frontPort)
{
    QProcess p;
    const QString resolve = QStringLiteral("%1:%2:127.0.0.1").arg(host).arg(frontPort ? frontPort : m_front->port());
    p.start(QStringLiteral("curl"), QStringList{QStringLiteral("-sS"), QStringLiteral("--cacert"), m_caFile,
                                                 QStringLiteral("--resolve"), resolve, QStringLiteral("--max-time"),
                                                 QStringLiteral("20")} + args);
    p.waitForFinished(30000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

void TestInterceptor::keepAliveRequestsAllGetTheRealValue()
{
    const int before = int(m_good->requests().size());
    const QString base = QStringLiteral("https://api.bound.test:%1").arg(m_front->port());
    QStringList args{QStringLiteral("-H"), QStringLiteral("x-api-key: ") + QString::fromLatin1(m_alphaPh)};
    for (int i = 0; i < 5; ++i)
        args << base + QStringLiteral("/v1/item/%1?q=%1").arg(i);
    // The guest's report on the connection comes after its second request, as a 20 ms poll
    // may; from then on every request's record names it, and it is asked for no more.
    const GuestProcess reported{812, 640, QStringLiteral("curl"), QStringLiteral("sh"), QStringLiteral("curl -sS"),
                                {QStringLiteral("claude"), QStringLiteral("sh")}};
    auto asked = std::make_shared<std::atomic<int>>(0);
    m_front->setWhoAsks([asked, reported]() -> std::optional<GuestProcess> {
        return ++*asked > 2 ? std::optional(reported) : std::nullopt;
    });
    const CurlResult r = curl(QStringLiteral("api.bound.test"), args);
    m_front->setWhoAsks({});
    QVERIFY2(r.code == 0, r.err.constData());
    const QList<TlsTestServer::Request> got = m_good->requests().mid(before);
    QCOMPARE(got.size(), 5);
    for (int i = 0; i < 5; ++i) {
        QCOMPARE(got.at(i).header("x-api-key"), kAlpha);          // the real value, every time
        QCOMPARE(got.at(i).target, QByteArray("/v1/item/") + QByteArray::number(i) + "?q=" + QByteArray::number(i));
        QCOMPARE(got.at(i).connection, got.at(0).connection);     // one keep-alive connection
    }
    QVERIFY(!r.out.contains(kAlpha));
    const QList<InterceptEvent> ev = events();
    QCOMPARE(ev.size(), 5);
    for (const InterceptEvent &e : ev) {
        QVERIFY(e.allowed);
        QCOMPARE(e.method, QStringLiteral("GET"));
        QVERIFY(e.path.startsWith(QLatin1String("/v1/item/")));
        QCOMPARE(e.host, QStringLiteral("api.bound.test"));
        QVERIFY(e.alertKind.isEmpty());
    }
    QVERIFY(!ev.at(0).process && !ev.at(1).process);
    for (int i = 2; i < 5; ++i)
        QVERIFY2(ev.at(i).process == reported, qPrintable(QString::number(i)));
    QCOMPARE(asked->load(), 3);
}

void TestInterceptor::bodiesAreRelayedUnchanged()
{
    QByteArray payload;
    for (int i = 0; i < 40000; ++i)
        payload += QByteArray::number(i) + ',';
    const QString file = m_dir.filePath(QStringLiteral("payload.bin"));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(payload);
    f.close();
    const QString base = QStringLiteral("https://api.bound.test:%1").arg(m_front->port());
    const QStringList key{QStringLiteral("-H"), QStringLiteral("x-api-key: ") + QString::fromLatin1(m_alphaPh)};
    const int before = int(m_good->requests().size());
    // Content-Length upload (larger than the buffered limit: streamed), then chunked.
    CurlResult r = curl(QStringLiteral("api.bound.test"), key + QStringList{QStringLiteral("--data-binary"), QLatin1Char('@') + file, base + QStringLiteral("/upload")});
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY2(r.out.endsWith(QByteArray(" " + QByteArray::number(payload.size()) + "\n")), r.out.constData());
    r = curl(QStringLiteral("api.bound.test"), key + QStringList{QStringLiteral("-H"), QStringLiteral("Transfer-Encoding: chunked"),
                                                              QStringLiteral("--data-binary"), QLatin1Char('@') + file, base + QStringLiteral("/chunked-upload")});
    QVERIFY2(r.code == 0, r.err.constData());
    const QList<TlsTestServer::Request> got = m_good->requests().mid(before);
    QCOMPARE(got.size(), 2);
    QCOMPARE(got.at(0).body, payload);
    QCOMPARE(got.at(1).header("Transfer-Encoding"), QByteArray("chunked"));
    QCOMPARE(got.at(1).body, payload);
    QCOMPARE(got.at(1).header("x-api-key"), kAlpha);
    // A chunked response and a large download come back intact.
    r = curl(QStringLiteral("api.bound.test"), key + QStringList{base + QStringLiteral("/chunked"), base + QStringLiteral("/big?n=3000000")});
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY(r.out.startsWith("ok "));
    QVERIFY(r.out.endsWith(QByteArray(100, 'x')));
    QVERIFY(r.out.size() > 3000000);
}

void TestInterceptor::placeholderInUrlIsBlocked()
{
    const int before = int(m_good->requests().size());
    const CurlResult r = curl(QStringLiteral("api.bound.test"),
                              {QStringLiteral("-w"), QStringLiteral("\n%{http_code}"),
                               QStringLiteral("https://api.bound.test:%1/leak?k=%2").arg(m_front->port()).arg(QString::fromLatin1(m_alphaPh))});
    QVERIFY2(r.out.endsWith("\n403"), r.out.constData());
    QVERIFY2(r.out.contains("the placeholder of secret alpha is in the URL"), r.out.constData());
    QCOMPARE(m_good->requests().size(), before); // nothing reached the server
    const QList<InterceptEvent> ev = events();
    QCOMPARE(ev.size(), 1);
    QVERIFY(!ev.at(0).allowed);
    QCOMPARE(ev.at(0).alertKind, QStringLiteral("exfiltration"));
    QVERIFY(ev.at(0).alertMessage.contains(QLatin1String("secret alpha")));
}

void TestInterceptor::placeholderInBodyIsBlocked()
{
    const int before = int(m_good->requests().size());
    const CurlResult r = curl(QStringLiteral("api.bound.test"),
                              {QStringLiteral("-w"), QStringLiteral("\n%{http_code}"), QStringLiteral("-H"),
                               QStringLiteral("x-api-key: ") + QString::fromLatin1(m_alphaPh), QStringLiteral("--data"),
                               QStringLiteral("{\"note\":\"%1\"}").arg(QString::fromLatin1(m_betaPh)),
                               QStringLiteral("https://api.bound.test:%1/post").arg(m_front->port())});
    QVERIFY2(r.out.endsWith("\n403"), r.out.constData());
    QVERIFY2(r.out.contains("request body carries the placeholder of secret beta"), r.out.constData());
    QCOMPARE(m_good->requests().size(), before);
    const QList<InterceptEvent> ev = events();
    QCOMPARE(ev.size(), 1);
    QCOMPARE(ev.at(0).alertKind, QStringLiteral("exfiltration"));
    QCOMPARE(ev.at(0).method, QStringLiteral("POST"));
}

void TestInterceptor::placeholderToAnotherHostIsBlocked()
{
    const int before = int(m_good->requests().size());
    // alpha is bound to api.bound.test only; other.bound.test is intercepted (beta) but alpha must not go there.
    const CurlResult r = curl(QStringLiteral("other.bound.test"),
                              {QStringLiteral("-w"), QStringLiteral("\n%{http_code}"), QStringLiteral("-H"),
                               QStringLiteral("x-api-key: ") + QString::fromLatin1(m_alphaPh),
                               QStringLiteral("https://other.bound.test:%1/collect").arg(m_front->port())});
    QVERIFY2(r.out.endsWith("\n403"), r.out.constData());
    QVERIFY2(r.out.contains("secret alpha is not bound to this host"), r.out.constData());
    QCOMPARE(m_good->requests().size(), before);
    const QList<InterceptEvent> ev = events();
    QCOMPARE(ev.size(), 1);
    QCOMPARE(ev.at(0).alertKind, QStringLiteral("exfiltration"));
    QVERIFY(ev.at(0).alertMessage.contains(QLatin1String("other.bound.test")));
    // beta, bound there, goes through in its own header (the default Authorization: Bearer {}).
    const CurlResult ok = curl(QStringLiteral("other.bound.test"),
                               {QStringLiteral("-H"), QStringLiteral("Authorization: Bearer ") + QString::fromLatin1(m_betaPh),
                                QStringLiteral("https://other.bound.test:%1/ok").arg(m_front->port())});
    QVERIFY2(ok.code == 0, ok.err.constData());
    QCOMPARE(m_good->requests().last().header("Authorization"), QByteArray("Bearer ") + kBeta);
}

void TestInterceptor::placeholderInAnotherHeaderIsBlocked()
{
    const int before = int(m_good->requests().size());
    const CurlResult r = curl(QStringLiteral("api.bound.test"),
                              {QStringLiteral("-w"), QStringLiteral("\n%{http_code}"), QStringLiteral("-H"),
                               QStringLiteral("Referer: https://x/?") + QString::fromLatin1(m_alphaPh),
                               QStringLiteral("https://api.bound.test:%1/").arg(m_front->port())});
    QVERIFY2(r.out.endsWith("\n403"), r.out.constData());
    QVERIFY2(r.out.contains("may only be sent in the x-api-key header"), r.out.constData());
    QCOMPARE(m_good->requests().size(), before);
}

void TestInterceptor::websocketUpgradeIsRefused()
{
    const int before = int(m_good->requests().size());
    const CurlResult r = curl(QStringLiteral("api.bound.test"),
                              {QStringLiteral("-w"), QStringLiteral("\n%{http_code}"), QStringLiteral("-H"),
                               QStringLiteral("Connection: Upgrade"), QStringLiteral("-H"), QStringLiteral("Upgrade: websocket"),
                               QStringLiteral("-H"), QStringLiteral("Sec-WebSocket-Version: 13"), QStringLiteral("-H"),
                               QStringLiteral("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="),
                               QStringLiteral("https://api.bound.test:%1/ws").arg(m_front->port())});
    QVERIFY2(r.out.endsWith("\n403"), r.out.constData());
    QVERIFY2(r.out.contains("websocket"), r.out.constData());
    QCOMPARE(m_good->requests().size(), before);
}

void TestInterceptor::upstreamWithWrongCertificateGetsNothing()
{
    const qint64 bytesBefore = m_wrong->applicationBytes();
    const CurlResult r = curl(QStringLiteral("wrong.bound.test"),
                              {QStringLiteral("-w"), QStringLiteral("\n%{http_code}"), QStringLiteral("-H"),
                               QStringLiteral("Authorization: Bearer ") + QString::fromLatin1(m_betaPh),
                               QStringLiteral("https://wrong.bound.test:%1/").arg(m_front->port())});
    QVERIFY2(r.out.endsWith("\n502"), r.out.constData());
    QVERIFY2(r.out.contains("the certificate of wrong.bound.test failed verification"), r.out.constData());
    QVERIFY2(r.out.contains("nothing was sent"), r.out.constData());
    QCOMPARE(m_wrong->applicationBytes(), bytesBefore); // not one byte of the request
    QVERIFY(m_wrong->requests().isEmpty());
}

void TestInterceptor::hostOutsideTheNameConstraintsFailsAtTheClient()
{
    // Even if a flow to another name were handed over, the sandbox CA may not vouch for it.
    const CurlResult r = curl(QStringLiteral("evil.test"), {QStringLiteral("https://evil.test:%1/").arg(m_front->port())});
    QVERIFY2(r.code != 0, r.out.constData());
    QVERIFY2(r.err.contains("SSL") || r.err.contains("certificate"), r.err.constData());
}

void TestInterceptor::lockedVaultAnswersReadably()
{
    m_vault->lock();
    const int before = int(m_good->requests().size());
    const CurlResult r = curl(QStringLiteral("api.bound.test"),
                              {QStringLiteral("-w"), QStringLiteral("\n%{http_code}"), QStringLiteral("-H"),
                               QStringLiteral("x-api-key: ") + QString::fromLatin1(m_alphaPh),
                               QStringLiteral("https://api.bound.test:%1/").arg(m_front->port())});
    QVERIFY2(r.out.endsWith("\n403"), r.out.constData());
    QVERIFY2(r.out.contains("the Airlock vault is locked"), r.out.constData());
    QCOMPARE(m_good->requests().size(), before);
    const QList<InterceptEvent> seen = events();
    QVERIFY(!seen.isEmpty());
    QCOMPARE(seen.last().alertKind, QStringLiteral("vault_locked"));
    QVERIFY2(seen.last().alertMessage.contains(QStringLiteral("vault unlock")), qPrintable(seen.last().alertMessage));
    QVERIFY(m_vault->unlock(kPass));
}

void TestInterceptor::vaultLockedSinceStartRaisesAnAlert()
{
    // A daemon restarted with the vault locked cannot even decrypt the sandbox CA's key, so
    // nothing readable can reach the guest over TLS: the guest's handshake fails, and the
    // person is told to unlock.
    Vault restarted(m_dir.filePath(QStringLiteral("airlock.db")));
    QVERIFY(restarted.open());
    std::mutex mutex;
    QList<InterceptEvent> seen;
    Interceptor interceptor(restarted, {}, [&](const InterceptEvent &e) {
        std::lock_guard lock(mutex);
        seen.append(e);
    });
    QVERIFY(interceptor.init());
    const quint16 good = m_good->port();
    Front front(interceptor, QStringLiteral("box"), [good](const QString &sni) {
        return UpstreamAddress{sni, QHostAddress(QHostAddress::LocalHost), good};
    });
    const int before = int(m_good->requests().size());
    QProcess p;
    p.start(QStringLiteral("curl"), {QStringLiteral("-sS"), QStringLiteral("--max-time"), QStringLiteral("10"), QStringLiteral("--cacert"),
                                     m_caFile, QStringLiteral("--resolve"),
                                     QStringLiteral("api.bound.test:%1:127.0.0.1").arg(front.port()),
                                     QStringLiteral("https://api.bound.test:%1/").arg(front.port())});
    QVERIFY(p.waitForFinished(20000));
    QVERIFY(p.exitCode() != 0); // no TLS session: the CA key stays encrypted
    QCOMPARE(m_good->requests().size(), before);
    for (int i = 0; i < 50 && interceptor.activeConnections() > 0; ++i)
        QThread::msleep(20);
    std::lock_guard lock(mutex);
    QCOMPARE(seen.size(), 1);
    QCOMPARE(seen.first().alertKind, QStringLiteral("vault_locked"));
    QVERIFY2(seen.first().alertMessage.contains(QStringLiteral("api.bound.test")) &&
                 seen.first().alertMessage.contains(QStringLiteral("vault unlock")),
             qPrintable(seen.first().alertMessage));
}

void TestInterceptor::plainFlowGuardFindsPlaceholders()
{
    m_vault->lock(); // needs no key
    QCOMPARE(m_interceptor->placeholderOwner(QStringLiteral("box"), QByteArray("GET /?k=" + m_betaPh + " HTTP/1.1\r\n")),
             std::optional<QString>(QStringLiteral("beta")));
    QCOMPARE(m_interceptor->placeholderOwner(QStringLiteral("box"), QByteArray("GET / HTTP/1.1\r\n")), std::nullopt);
    QCOMPARE(m_interceptor->placeholderOwner(QStringLiteral("other"), QByteArray(m_betaPh)), std::nullopt);
    QVERIFY(m_vault->unlock(kPass));
}

void TestInterceptor::guestTrustBundleWorksForCurl()
{
    // The bundle a guest gets: sandbox CA + system roots; curl pointed at it by the environment.
    auto bundle = guestTrustBundle(m_vault->sandboxCaPem(QStringLiteral("box")).value());
    QVERIFY2(bundle, qPrintable(bundle.error().message()));
    const QString path = m_dir.filePath(QStringLiteral("bundle.pem"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bundle.value());
    f.close();
    QVERIFY(bundle->count("BEGIN CERTIFICATE") > 10);
    const QMap<QString, QString> env = trustEnvironment(path);
    QCOMPARE(env.value(QStringLiteral("NODE_EXTRA_CA_CERTS")), path);
    QProcess p;
    QProcessEnvironment pe = QProcessEnvironment::systemEnvironment();
    for (auto it = env.begin(); it != env.end(); ++it)
        pe.insert(it.key(), it.value());
    p.setProcessEnvironment(pe);
    p.start(QStringLiteral("curl"), {QStringLiteral("-sS"), QStringLiteral("--resolve"),
                                     QStringLiteral("api.bound.test:%1:127.0.0.1").arg(m_front->port()), QStringLiteral("-H"),
                                     QStringLiteral("x-api-key: ") + QString::fromLatin1(m_alphaPh),
                                     QStringLiteral("https://api.bound.test:%1/env").arg(m_front->port())});
    QVERIFY(p.waitForFinished(30000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QCOMPARE(m_good->requests().last().header("x-api-key"), kAlpha);
}

namespace {

// A guest TLS client with exact control over its bytes: it can stop after its ClientHello,
// after the handshake, or in the middle of a request.
class RawGuest {
public:
    enum class Stop { AfterHello, AfterHandshake };
    RawGuest(quint16 port, const char *sni, Stop stop = Stop::AfterHandshake)
    {
        m_ctx = SSL_CTX_new(TLS_client_method());
        SSL_CTX_set_verify(m_ctx, SSL_VERIFY_NONE, nullptr); // the tests look at what the interceptor does, not at trust
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(m_fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0)
            return;
        const timeval tv{10, 0};
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        m_ssl = SSL_new(m_ctx);
        SSL_set_tlsext_host_name(m_ssl, sni);
        if (stop == Stop::AfterHello) {
            // The ClientHello is made in memory and sent; the answer is never read.
            BIO *out = BIO_new(BIO_s_mem());
            SSL_set_bio(m_ssl, BIO_new(BIO_s_mem()), out);
            SSL_connect(m_ssl);
            char *hello = nullptr;
            const long size = BIO_get_mem_data(out, &hello);
            m_ok = size > 0 && ::send(m_fd, hello, size_t(size), MSG_NOSIGNAL) == size;
            return;
        }
        SSL_set_fd(m_ssl, m_fd);
        m_ok = SSL_connect(m_ssl) == 1;
    }
    ~RawGuest()
    {
        SSL_free(m_ssl);
        SSL_CTX_free(m_ctx);
        if (m_fd >= 0)
            ::close(m_fd);
    }
    bool ok() const { return m_ok; }
    bool send(const QByteArray &bytes) { return SSL_write(m_ssl, bytes.constData(), int(bytes.size())) == int(bytes.size()); }
    // Everything until the interceptor closes (or `ms` pass).
    QByteArray readAll(int ms = 10000)
    {
        const timeval tv{ms / 1000, (ms % 1000) * 1000};
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        QByteArray out;
        char buf[4096];
        int n = 0;
        while ((n = SSL_read(m_ssl, buf, sizeof buf)) > 0)
            out.append(buf, n);
        return out;
    }
    // True once the interceptor closed the socket (EOF or reset) within `ms`; what came before is dropped.
    bool closedWithin(int ms)
    {
        QElapsedTimer t;
        t.start();
        char buf[4096];
        while (t.elapsed() < ms) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, int(ms - t.elapsed())) <= 0)
                return false;
            const ssize_t n = ::recv(m_fd, buf, sizeof buf, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                return true;
        }
        return false;
    }

private:
    SSL_CTX *m_ctx = nullptr;
    SSL *m_ssl = nullptr;
    int m_fd = -1;
    bool m_ok = false;
};

int threadsNamed(const QByteArray &name)
{
    int n = 0;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(tid + QStringLiteral("/comm")));
        if (comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == name)
            ++n;
    }
    return n;
}

// An interceptor with a test's own options, fronted like the fixture's, recording its events.
struct OwnInterceptor {
    OwnInterceptor(Vault &vault, Interceptor::Options options, const QString &upstreamCa, quint16 upstreamPort)
        : interceptor(vault, withCa(std::move(options), upstreamCa),
                      [this](const InterceptEvent &e) {
                          std::lock_guard lock(mutex);
                          seen.append(e);
                      }),
          ready(interceptor.init()),
          front(interceptor, QStringLiteral("box"), [upstreamPort](const QString &sni) {
              return UpstreamAddress{sni, QHostAddress(QHostAddress::LocalHost), upstreamPort};
          })
    {
    }
    static Interceptor::Options withCa(Interceptor::Options options, const QString &ca)
    {
        options.extraCaFile = ca;
        return options;
    }
    QList<InterceptEvent> events()
    {
        std::lock_guard lock(mutex);
        return seen;
    }
    std::mutex mutex;
    QList<InterceptEvent> seen;
    Interceptor interceptor;
    bool ready;
    Front front;
};

} // namespace

void TestInterceptor::ambiguousRequestsAreRefusedBeforeUpstream_data()
{
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<QList<int>>("statuses");
    const QByteArray host = "Host: api.bound.test\r\n";
    const QList<int> bad{400};
    QTest::newRow("bare LF head") << QByteArray("GET / HTTP/1.1\nHost: api.bound.test\n\n") << bad;
    QTest::newRow("one bare LF line") << QByteArray("GET / HTTP/1.1\r\nHost: api.bound.test\nX-A: b\r\n\r\n") << bad;
    QTest::newRow("TRACE") << QByteArray("TRACE / HTTP/1.1\r\n" + host + "\r\n") << QList<int>{405};
    QTest::newRow("trace, lower case") << QByteArray("trace / HTTP/1.1\r\n" + host + "\r\n") << QList<int>{405};
    QTest::newRow("TRACK") << QByteArray("TRACK / HTTP/1.1\r\n" + host + "\r\n") << QList<int>{405};
    QTest::newRow("CONNECT") << QByteArray("CONNECT api.bound.test:443 HTTP/1.1\r\n" + host + "\r\n") << QList<int>{400, 405};
    QTest::newRow("absolute-form") << QByteArray("GET http://other.bound.test/x HTTP/1.1\r\n" + host + "\r\n") << bad;
    QTest::newRow("no Host, HTTP/1.0") << QByteArray("GET / HTTP/1.0\r\n\r\n") << bad;
    QTest::newRow("no Host, HTTP/1.1") << QByteArray("GET / HTTP/1.1\r\n\r\n") << bad;
    QTest::newRow("other Host") << QByteArray("GET / HTTP/1.1\r\nHost: other.bound.test\r\n\r\n") << QList<int>{403};
    QTest::newRow("TE and CL") << QByteArray("POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n") << bad;
    QTest::newRow("TE not exactly chunked") << QByteArray("POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n") << bad;
    QTest::newRow("TE gzip, chunked") << QByteArray("POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n") << bad;
    QTest::newRow("signed CL") << QByteArray("POST / HTTP/1.1\r\n" + host + "Content-Length: +5\r\n\r\nhello") << bad;
    QTest::newRow("chunk size bare LF") << QByteArray("POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n") << bad;
    QTest::newRow("chunk end bare LF") << QByteArray("POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\n0\r\n\r\n") << bad;
    QTest::newRow("last chunk bare LF") << QByteArray("POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\n\n") << bad;
    QTest::newRow("chunk longer than its size") << QByteArray("POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n") << bad;
}

void TestInterceptor::ambiguousRequestsAreRefusedBeforeUpstream()
{
    QFETCH(QByteArray, request);
    QFETCH(QList<int>, statuses);
    const qint64 upstreamBytes = m_good->applicationBytes();
    const int before = int(m_good->requests().size());
    RawGuest guest(m_front->port(), "api.bound.test");
    QVERIFY(guest.ok());
    QVERIFY(guest.send(request));
    const QByteArray answer = guest.readAll();
    const int status = answer.mid(9, 3).toInt();
    QVERIFY2(answer.startsWith("HTTP/1.1 ") && statuses.contains(status), answer.constData());
    QVERIFY2(answer.contains("Airlock blocked this request"), answer.constData());
    QCOMPARE(m_good->requests().size(), before);
    QCOMPARE(m_good->applicationBytes(), upstreamBytes); // not one byte reached the upstream
    const QList<InterceptEvent> ev = events();
    QVERIFY(!ev.isEmpty());
    QVERIFY(!ev.last().allowed);
    QVERIFY(!ev.last().reason.isEmpty());
}

// A sandbox that stops or goes back to a checkpoint: every intercepted connection of it
// ends, wherever it is (waiting in its handshake, idle and parked, inside a head), and no
// other sandbox's connection does.
void TestInterceptor::endSandboxClosesItsConnectionsOnly()
{
    OwnInterceptor own(*m_vault, {}, m_dir.filePath(QStringLiteral("upstream-ca.pem")), m_good->port());
    QVERIFY(own.ready);
    RawGuest stalled(own.front.port(), "api.bound.test", RawGuest::Stop::AfterHello);
    RawGuest idle(own.front.port(), "api.bound.test");
    RawGuest slow(own.front.port(), "api.bound.test");
    QVERIFY(stalled.ok() && idle.ok() && slow.ok());
    QVERIFY(slow.send("GET /half HTTP/1.1\r\nHost: api.bou"));
    QTRY_COMPARE_WITH_TIMEOUT(own.interceptor.activeConnections(), 3, 5000);
    own.interceptor.endSandbox(QStringLiteral("another-box"));
    QVERIFY(!idle.closedWithin(300));
    QCOMPARE(own.interceptor.activeConnections(), 3);
    own.interceptor.endSandbox(QStringLiteral("box"));
    QVERIFY(stalled.closedWithin(3000));
    QVERIFY(idle.closedWithin(3000));
    QVERIFY(slow.closedWithin(3000));
    QTRY_COMPARE_WITH_TIMEOUT(own.front.ended(), 3, 3000);
    QCOMPARE(own.interceptor.activeConnections(), 0);
}

void TestInterceptor::slowConnectionsDoNotGrowThreadsPastThePool()
{
    // Connections stalled in their handshake, idle after it, or sending a head slowly hold no
    // worker: the pool stays at its size, a normal request still goes through at once, and
    // the stalled ones are closed when their time is up.
    Interceptor::Options options;
    options.maxWorkers = 3;
    options.headerTimeoutMs = 2500;
    OwnInterceptor own(*m_vault, options, m_dir.filePath(QStringLiteral("upstream-ca.pem")), m_good->port());
    QVERIFY(own.ready);
    Interceptor &interceptor = own.interceptor;
    Front &front = own.front;
    const int threadsBefore = threadsNamed("alk-intercept");
    constexpr int kEach = 15;
    std::vector<std::unique_ptr<RawGuest>> stalled, idle, slow;
    for (int i = 0; i < kEach; ++i) {
        stalled.push_back(std::make_unique<RawGuest>(front.port(), "api.bound.test", RawGuest::Stop::AfterHello));
        QVERIFY(stalled.back()->ok());
        idle.push_back(std::make_unique<RawGuest>(front.port(), "api.bound.test"));
        slow.push_back(std::make_unique<RawGuest>(front.port(), "api.bound.test"));
        QVERIFY(idle.back()->ok() && slow.back()->ok());
        QVERIFY(slow.back()->send("GET /slow HTTP/1.1\r\nHost: api.bou"));
    }
    QTRY_COMPARE_WITH_TIMEOUT(interceptor.activeConnections(), 3 * kEach, 2000);
    QVERIFY2(interceptor.workerThreads() <= options.maxWorkers, qPrintable(QString::number(interceptor.workerThreads())));
    const int threadsNow = threadsNamed("alk-intercept") - threadsBefore;
    QVERIFY2(threadsNow <= options.maxWorkers, qPrintable(QStringLiteral("%1 intercept threads for %2 connections").arg(threadsNow).arg(3 * kEach)));
    // Another guest connection is served at once.
    QElapsedTimer t;
    t.start();
    RawGuest normal(front.port(), "api.bound.test");
    QVERIFY(normal.ok());
    QVERIFY(normal.send("GET /while-others-stall HTTP/1.1\r\nHost: api.bound.test\r\nConnection: close\r\n\r\n"));
    const QByteArray answer = normal.readAll();
    QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.constData());
    QVERIFY2(t.elapsed() < 1500, qPrintable(QString::number(t.elapsed()))); // not after the stalled ones' 2.5 s
    // Past headerTimeoutMs the stalled handshakes and slow heads are gone; the idle ones stay.
    for (auto &g : stalled)
        QVERIFY(g->closedWithin(5000));
    for (auto &g : slow)
        QVERIFY(g->closedWithin(5000));
    QTRY_COMPARE_WITH_TIMEOUT(front.ended(), 2 * kEach + 1, 5000);
    QCOMPARE(interceptor.activeConnections(), kEach);
    const QList<InterceptEvent> seen = own.events();
    QCOMPARE(int(std::count_if(seen.begin(), seen.end(), [](const InterceptEvent &e) {
                 return e.reason.contains(QLatin1String("did not complete the TLS handshake within 2.5 s"));
             })), kEach);
    QCOMPARE(int(std::count_if(seen.begin(), seen.end(), [](const InterceptEvent &e) {
                 return e.reason.contains(QLatin1String("request head was not complete within 2.5 s"));
             })), kEach);
    idle.clear();
    QTRY_COMPARE_WITH_TIMEOUT(front.ended(), 3 * kEach + 1, 3000);
}

void TestInterceptor::fullQueueRefusesCleanly()
{
    // One worker, held by a request whose body comes slowly; one new flow may wait for it;
    // the next is refused with a reset and a reason, and its slot is given back.
    Interceptor::Options options;
    options.maxWorkers = 1;
    options.maxQueued = 1;
    OwnInterceptor own(*m_vault, options, m_dir.filePath(QStringLiteral("upstream-ca.pem")), m_good->port());
    QVERIFY(own.ready);
    Interceptor &interceptor = own.interceptor;
    Front &front = own.front;
    const qint64 upstreamBefore = m_good->applicationBytes();
    RawGuest busy(front.port(), "api.bound.test");
    QVERIFY(busy.ok());
    QVERIFY(busy.send("POST /slow-body HTTP/1.1\r\nHost: api.bound.test\r\nContent-Length: 1000000\r\n\r\n" + QByteArray(300 * 1024, 'x')));
    // Part of the body reached the upstream: the worker relays it and waits for the rest.
    QTRY_VERIFY_WITH_TIMEOUT(m_good->applicationBytes() > upstreamBefore + 100 * 1024, 10000);
    QCOMPARE(interceptor.workerThreads(), 1);
    RawGuest waiting(front.port(), "api.bound.test", RawGuest::Stop::AfterHello);
    QTRY_COMPARE_WITH_TIMEOUT(interceptor.activeConnections(), 2, 3000);
    RawGuest refused(front.port(), "api.bound.test");
    QVERIFY(!refused.ok()); // reset instead of a handshake
    QTRY_COMPARE_WITH_TIMEOUT(front.ended(), 1, 3000);
    const QList<InterceptEvent> seen = own.events();
    QVERIFY(!seen.isEmpty());
    QVERIFY2(seen.last().reason.contains(QLatin1String("every intercept worker is busy")), qPrintable(seen.last().reason));
    QVERIFY(!seen.last().allowed);
    QCOMPARE(interceptor.activeConnections(), 2);
    QCOMPARE(interceptor.workerThreads(), 1);
}

void TestInterceptor::noWorkerThreadIsRefusedCleanly()
{
    // The thread cannot be started (as when the process is out of threads): the flow is
    // refused with a reason, its slot is given back, and nothing else happens.
    Interceptor::Options options;
    options.startThread = [](std::function<void()>) -> std::thread {
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again), "cannot create a thread");
    };
    OwnInterceptor own(*m_vault, options, m_dir.filePath(QStringLiteral("upstream-ca.pem")), m_good->port());
    QVERIFY(own.ready);
    Interceptor &interceptor = own.interceptor;
    Front &front = own.front;
    const int before = int(m_good->requests().size());
    for (int i = 0; i < 3; ++i) {
        RawGuest guest(front.port(), "api.bound.test");
        QVERIFY(!guest.ok());
    }
    QTRY_COMPARE_WITH_TIMEOUT(front.ended(), 3, 3000);
    QCOMPARE(interceptor.activeConnections(), 0);
    QCOMPARE(interceptor.workerThreads(), 0);
    QCOMPARE(m_good->requests().size(), before);
    const QList<InterceptEvent> seen = own.events();
    QCOMPARE(seen.size(), 3);
    for (const InterceptEvent &e : seen)
        QVERIFY2(e.reason.contains(QLatin1String("no intercept worker could be started")), qPrintable(e.reason));
}

void TestInterceptor::basicCredentialsGetTheRealValue()
{
    // As git sends a token from https://user:TOKEN@host/: curl -u makes the same Basic header.
    const QString base = QStringLiteral("https://api.bound.test:%1").arg(m_front->port());
    const int before = int(m_good->requests().size());
    CurlResult r = curl(QStringLiteral("api.bound.test"),
                        {QStringLiteral("-u"), QStringLiteral("x-access-token:") + QString::fromLatin1(m_gammaPh), base + QStringLiteral("/repo.git/info/refs")});
    QVERIFY2(r.code == 0, r.err.constData());
    // The token as the user name works too (GitHub accepts either), and the plain form still does.
    r = curl(QStringLiteral("api.bound.test"), {QStringLiteral("-u"), QString::fromLatin1(m_gammaPh) + QStringLiteral(":x-oauth-basic"), base + QStringLiteral("/user")});
    QVERIFY2(r.code == 0, r.err.constData());
    r = curl(QStringLiteral("api.bound.test"), {QStringLiteral("-H"), QStringLiteral("Authorization: Bearer ") + QString::fromLatin1(m_gammaPh), base + QStringLiteral("/api")});
    QVERIFY2(r.code == 0, r.err.constData());
    const QList<TlsTestServer::Request> got = m_good->requests().mid(before);
    QCOMPARE(got.size(), 3);
    QCOMPARE(got.at(0).header("Authorization"), QByteArray("Basic ") + QByteArray("x-access-token:" + kGamma).toBase64());
    QCOMPARE(got.at(1).header("Authorization"), QByteArray("Basic ") + QByteArray(kGamma + ":x-oauth-basic").toBase64());
    QCOMPARE(got.at(2).header("Authorization"), QByteArray("Bearer ") + kGamma);
    for (const InterceptEvent &e : events())
        QVERIFY2(e.allowed && e.alertKind.isEmpty(), qPrintable(e.reason));
}

void TestInterceptor::base64PlaceholderElsewhereIsBlocked_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QStringList>("args"); // %PH% the placeholder of gamma, %B64% "git:" + it in base64, %ALPHA64% the same of alpha
    QTest::addColumn<QString>("reason");
    QTest::newRow("another header") << "api.bound.test" << QStringList{QStringLiteral("-H"), QStringLiteral("X-Note: %B64%"), QStringLiteral("/")}
                                    << "may only be sent in the Authorization header";
    QTest::newRow("url") << "api.bound.test" << QStringList{QStringLiteral("/x?c=%B64%")} << "is in the URL";
    QTest::newRow("url, base64url") << "api.bound.test" << QStringList{QStringLiteral("/x?c=%B64URL%")} << "is in the URL";
    QTest::newRow("body") << "api.bound.test" << QStringList{QStringLiteral("--data"), QStringLiteral("blob=%B64%"), QStringLiteral("/post")}
                          << "request body carries the placeholder of secret gamma";
    QTest::newRow("basic to an unbound host") << "other.bound.test" << QStringList{QStringLiteral("-u"), QStringLiteral("git:%PH%"), QStringLiteral("/")}
                                              << "secret gamma is not bound to this host";
    QTest::newRow("basic for a secret not declared basic") << "api.bound.test"
                                                           << QStringList{QStringLiteral("-H"), QStringLiteral("Authorization: Basic %ALPHA64%"), QStringLiteral("/")}
                                                           << "may only be sent in the x-api-key header";
    QTest::newRow("bearer of base64") << "api.bound.test" << QStringList{QStringLiteral("-H"), QStringLiteral("Authorization: Bearer %B64%"), QStringLiteral("/")}
                                      << "is base64-encoded in the Authorization header";
    QTest::newRow("basic without padding") << "api.bound.test" << QStringList{QStringLiteral("-H"), QStringLiteral("Authorization: Basic %B64NOPAD%"), QStringLiteral("/")}
                                           << "is base64-encoded in the Authorization header";
}

void TestInterceptor::base64PlaceholderElsewhereIsBlocked()
{
    QFETCH(QString, host);
    QFETCH(QStringList, args);
    QFETCH(QString, reason);
    // "git:" (4 bytes) and "gi:" (3 bytes) shift the placeholder to other base64 alignments.
    const QByteArray b64 = QByteArray("git:" + m_gammaPh).toBase64();
    const QByteArray b64url = QByteArray("gi:" + m_gammaPh + "?").toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    const QByteArray nopad = QByteArray("g:" + m_gammaPh).toBase64(QByteArray::OmitTrailingEquals);
    QVERIFY(!nopad.endsWith('=') && nopad.size() % 4 != 0);
    for (QString &a : args) {
        a.replace(QLatin1String("%PH%"), QString::fromLatin1(m_gammaPh)).replace(QLatin1String("%B64URL%"), QString::fromLatin1(b64url));
        a.replace(QLatin1String("%B64NOPAD%"), QString::fromLatin1(nopad)).replace(QLatin1String("%B64%"), QString::fromLatin1(b64));
        a.replace(QLatin1String("%ALPHA64%"), QString::fromLatin1(QByteArray("u:" + m_alphaPh).toBase64()));
        if (a.startsWith(QLatin1Char('/')))
            a = QStringLiteral("https://%1:%2%3").arg(host).arg(m_front->port()).arg(a);
    }
    const int before = int(m_good->requests().size());
    const CurlResult r = curl(host, QStringList{QStringLiteral("-w"), QStringLiteral("\n%{http_code}")} + args);
    QVERIFY2(r.out.endsWith("\n403"), r.out.constData());
    QVERIFY2(r.out.contains(reason.toUtf8()), r.out.constData());
    QCOMPARE(m_good->requests().size(), before); // nothing reached the server
    const QList<InterceptEvent> ev = events();
    QCOMPARE(ev.size(), 1);
    QCOMPARE(ev.at(0).alertKind, QStringLiteral("exfiltration"));
}

void TestInterceptor::plainFlowGuardFindsBase64Placeholders()
{
    m_vault->lock(); // needs no key
    for (const QByteArray &lead : {QByteArray(), QByteArray("a"), QByteArray("ab")}) {
        const QByteArray encoded = QByteArray(lead + m_betaPh + "tail").toBase64();
        QCOMPARE(m_interceptor->placeholderOwner(QStringLiteral("box"), QByteArray("GET /?d=" + encoded + " HTTP/1.1\r\n")),
                 std::optional<QString>(QStringLiteral("beta")));
    }
    QCOMPARE(m_interceptor->placeholderOwner(QStringLiteral("box"), QByteArray("GET /?d=" + QByteArray("unrelated data").toBase64())), std::nullopt);
    QVERIFY(m_vault->unlock(kPass));
}

namespace {
// An upstream that echoes what it was sent: in a response header, in the body (the second copy
// straddles the first TLS record boundary, so the broker reads it in two pieces), chunked or not.
QByteArray echoResponse(const TlsTestServer::Request &r)
{
    if (r.target.startsWith("/gzip"))
        return "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nabcd";
    const QByteArray key = r.header("x-api-key"), auth = r.header("Authorization");
    const QByteArray seen = "accept-encoding=" + r.header("Accept-Encoding") + "\n";
    QByteArray head = "HTTP/1.1 200 OK\r\nX-Echo: " + key + "\r\n";
    if (r.target.startsWith("/chunked")) {
        const QByteArray body = seen + "key=" + key + "\nauth=" + auth + "\n";
        return head + "Transfer-Encoding: chunked\r\n\r\n" + QByteArray::number(body.size(), 16) + "\r\n" + body + "\r\n0\r\n\r\n";
    }
    QByteArray body = seen + "auth=" + auth + "\n";
    const qsizetype headSize = head.size() + 30; // "Content-Length: NNNNN\r\n\r\n" and some
    body += QByteArray(std::max<qsizetype>(0, 16384 - 7 - headSize - body.size()), '.') + key + "\n" + QByteArray(40000, '-') + "end\n";
    return head + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}
} // namespace

std::unique_ptr<TlsTestServer> TestInterceptor::boundServer(TlsTestServer::Responder responder)
{
    X509 *cert = nullptr;
    EVP_PKEY *key = nullptr;
    m_pki->issue({"api.bound.test"}, &cert, &key);
    auto server = std::make_unique<TlsTestServer>(cert, key);
    X509_free(cert);
    EVP_PKEY_free(key);
    server->setResponder(std::move(responder));
    return server;
}

std::unique_ptr<TlsTestServer> TestInterceptor::boundEcho() { return boundServer(echoResponse); }

void TestInterceptor::echoedRealValuesComeBackMasked()
{
    const std::unique_ptr<TlsTestServer> server = boundEcho();
    TlsTestServer &echo = *server;
    OwnInterceptor own(*m_vault, {}, m_dir.filePath(QStringLiteral("upstream-ca.pem")), echo.port());
    QVERIFY(own.ready);
    const QString base = QStringLiteral("https://api.bound.test:%1").arg(own.front.port());
    const QStringList creds{QStringLiteral("--compressed"), QStringLiteral("-D"), QStringLiteral("-"), QStringLiteral("-H"),
                            QStringLiteral("x-api-key: ") + QString::fromLatin1(m_alphaPh), QStringLiteral("-u"),
                            QStringLiteral("x-access-token:") + QString::fromLatin1(m_gammaPh)};
    const QByteArray realAuth = QByteArray("x-access-token:" + kGamma).toBase64();
    for (const QString &path : {QStringLiteral("/echo"), QStringLiteral("/chunked-echo")}) {
        const CurlResult r = curl(QStringLiteral("api.bound.test"), creds + QStringList{base + path}, own.front.port());
        QVERIFY2(r.code == 0, r.err.constData());
        // The upstream did get the real values, and was not asked for a compressed answer.
        QCOMPARE(echo.requests().last().header("x-api-key"), kAlpha);
        QCOMPARE(echo.requests().last().header("Authorization"), QByteArray("Basic " + realAuth));
        QVERIFY2(r.out.contains("accept-encoding=\n"), r.out.left(300).constData());
        // The guest sees none of them: the placeholder stands where each value was.
        QVERIFY2(!r.out.contains(kAlpha) && !r.out.contains(realAuth), r.out.left(300).constData());
        QVERIFY(r.out.contains(QByteArray("X-Echo: " + m_alphaPh)));
        QVERIFY(r.out.contains(QByteArray("key=" + m_alphaPh)) || r.out.contains(QByteArray("." + m_alphaPh + "\n-")));
        // Within base64 the digits that depend on the value alone are swapped (the one or two at
        // its edges also hold bits of its neighbours, so they stay).
        const QList<QByteArray> forms = base64Forms(m_gammaPh);
        QVERIFY(std::any_of(forms.begin(), forms.end(), [&](const QByteArray &f) { return r.out.contains(QByteArray("auth=Basic " + realAuth.left(20) + f)); }));
    }
    QTRY_COMPARE_WITH_TIMEOUT(own.events().size(), 2, 3000);
    for (const InterceptEvent &e : own.events()) {
        QVERIFY(e.allowed);
        QCOMPARE(e.alertKind, QStringLiteral("exfiltration"));
        QVERIFY2(e.alertMessage.contains(QLatin1String("api.bound.test")) && e.alertMessage.contains(QLatin1String("echo")) &&
                     e.alertMessage.contains(QLatin1String("secret alpha, gamma")),
                 qPrintable(e.alertMessage));
    }
}

void TestInterceptor::encodedAnswersAreRefused()
{
    const std::unique_ptr<TlsTestServer> server = boundEcho();
    TlsTestServer &echo = *server;
    OwnInterceptor own(*m_vault, {}, m_dir.filePath(QStringLiteral("upstream-ca.pem")), echo.port());
    QVERIFY(own.ready);
    const CurlResult r = curl(QStringLiteral("api.bound.test"),
                              {QStringLiteral("-w"), QStringLiteral("\n%{http_code}"),
                               QStringLiteral("https://api.bound.test:%1/gzip").arg(own.front.port())}, own.front.port());
    QVERIFY2(r.out.endsWith("\n502"), r.out.constData());
    QVERIFY2(r.out.contains("cannot be searched for secrets"), r.out.constData());
}

namespace {
// `git http-backend` as a CGI behind Basic auth: only the real token gets in.
QByteArray gitBackend(const TlsTestServer::Request &r, const QString &root)
{
    if (r.header("Authorization") != QByteArray("Basic " + QByteArray("x-access-token:" + kGamma).toBase64()))
        return "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"git\"\r\nContent-Length: 0\r\n\r\n";
    const qsizetype q = r.target.indexOf('?');
    QProcessEnvironment env;
    env.insert(QStringLiteral("GIT_PROJECT_ROOT"), root);
    env.insert(QStringLiteral("GIT_HTTP_EXPORT_ALL"), QStringLiteral("1"));
    env.insert(QStringLiteral("REMOTE_USER"), QStringLiteral("x-access-token")); // receive-pack needs an authenticated user
    env.insert(QStringLiteral("REQUEST_METHOD"), QString::fromLatin1(r.method));
    env.insert(QStringLiteral("PATH_INFO"), QString::fromLatin1(q < 0 ? r.target : r.target.left(q)));
    env.insert(QStringLiteral("QUERY_STRING"), q < 0 ? QString() : QString::fromLatin1(r.target.mid(q + 1)));
    env.insert(QStringLiteral("CONTENT_TYPE"), QString::fromLatin1(r.header("Content-Type")));
    env.insert(QStringLiteral("CONTENT_LENGTH"), QString::number(r.body.size()));
    env.insert(QStringLiteral("HTTP_CONTENT_ENCODING"), QString::fromLatin1(r.header("Content-Encoding")));
    env.insert(QStringLiteral("GIT_PROTOCOL"), QString::fromLatin1(r.header("Git-Protocol")));
    QProcess cgi;
    cgi.setProcessEnvironment(env);
    cgi.start(QStringLiteral("git"), {QStringLiteral("http-backend")});
    cgi.write(r.body);
    cgi.closeWriteChannel();
    cgi.waitForFinished(30000);
    const QByteArray out = cgi.readAllStandardOutput();
    const qsizetype end = out.indexOf("\r\n\r\n");
    if (end < 0)
        return "HTTP/1.1 500 CGI\r\nContent-Length: 0\r\n\r\n";
    QByteArray status = "200 OK", headers;
    for (const QByteArray &line : out.left(end).split('\n')) {
        if (line.startsWith("Status: "))
            status = line.mid(8).trimmed();
        else
            headers += line.trimmed() + "\r\n";
    }
    const QByteArray body = out.mid(end + 4);
    return "HTTP/1.1 " + status + "\r\n" + headers + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

int git(const QStringList &args, const QString &dir, QByteArray *output = nullptr, const QString &caFile = {},
        const QMap<QString, QString> &guestEnv = {}, const QByteArray &input = {})
{
    QProcess p;
    p.setWorkingDirectory(dir);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (auto it = guestEnv.cbegin(); it != guestEnv.cend(); ++it)
        env.insert(it.key(), it.value());
    env.insert(QStringLiteral("GIT_TERMINAL_PROMPT"), QStringLiteral("0"));
    env.insert(QStringLiteral("GIT_CONFIG_NOSYSTEM"), QStringLiteral("1"));
    env.insert(QStringLiteral("HOME"), dir);
    if (!caFile.isEmpty())
        env.insert(QStringLiteral("GIT_SSL_CAINFO"), caFile); // as the guest's environment names its bundle
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral("git"), QStringList{QStringLiteral("-c"), QStringLiteral("user.name=t"), QStringLiteral("-c"),
                                                QStringLiteral("user.email=t@example.invalid")} + args);
    p.write(input);
    p.closeWriteChannel();
    p.waitForFinished(60000);
    if (output)
        *output = p.readAll();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}
} // namespace

std::unique_ptr<TlsTestServer> TestInterceptor::gitForge(const QString &root)
{
    return boundServer([root](const TlsTestServer::Request &r) { return gitBackend(r, root); });
}

void TestInterceptor::gitCloneAndPushWithALentToken_data()
{
    QTest::addColumn<bool>("helper"); // the token from the credential helper the guest gets, or in the URL
    QTest::newRow("token in the URL") << false;
    QTest::newRow("credential helper of the guest's environment") << true;
}

void TestInterceptor::gitCloneAndPushWithALentToken()
{
    QFETCH(bool, helper);
    QVERIFY2(QFile::exists(QStringLiteral("/usr/lib/git-core/git-http-backend")), "git is required (installers/packages.txt)");
    const QString tag = helper ? QStringLiteral("helper") : QStringLiteral("url");
    const QString root = m_dir.filePath(QStringLiteral("git-root-") + tag), work = m_dir.filePath(QStringLiteral("git-work-") + tag);
    QVERIFY(QDir().mkpath(root) && QDir().mkpath(work));
    QCOMPARE(git({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("--bare"), QStringLiteral("-b"), QStringLiteral("main"),
                  root + QStringLiteral("/repo.git")}, root), 0);
    const std::unique_ptr<TlsTestServer> forgeServer = gitForge(root);
    TlsTestServer &forge = *forgeServer;
    OwnInterceptor own(*m_vault, {}, m_dir.filePath(QStringLiteral("upstream-ca.pem")), forge.port());
    QVERIFY(own.ready);
    // The guest's view: the placeholder in the URL (git turns it into Basic), or the
    // environment a sandbox borrowing the token gets (GIT_TOKEN and git's credential helper);
    // the sandbox CA either way.
    QMap<QString, QString> guestEnv;
    QString url = QStringLiteral("https://api.bound.test:%1/repo.git").arg(own.front.port());
    if (helper) {
        guestEnv = gitCredentialEnvironment({{QStringLiteral("GIT_TOKEN"), {QStringLiteral("*.bound.test")}}});
        guestEnv.insert(QStringLiteral("GIT_TOKEN"), QString::fromLatin1(m_gammaPh));
    } else {
        url.replace(QStringLiteral("https://"), QStringLiteral("https://x-access-token:%1@").arg(QString::fromLatin1(m_gammaPh)));
    }
    const QStringList tls{QStringLiteral("-c"), QStringLiteral("http.curloptResolve=api.bound.test:%1:127.0.0.1").arg(own.front.port())};
    QByteArray out;
    QVERIFY2(git(tls + QStringList{QStringLiteral("clone"), QStringLiteral("-q"), url, QStringLiteral("clone")}, work, &out, m_caFile, guestEnv) == 0,
             out.constData());
    const QString clone = work + QStringLiteral("/clone");
    QFile file(clone + QStringLiteral("/README"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("pushed through the interceptor\n");
    file.close();
    QCOMPARE(git({QStringLiteral("add"), QStringLiteral("README")}, clone), 0);
    QCOMPARE(git({QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"), QStringLiteral("first")}, clone), 0);
    QVERIFY2(git(tls + QStringList{QStringLiteral("push"), QStringLiteral("-q"), QStringLiteral("origin"), QStringLiteral("HEAD:main")}, clone, &out,
                 m_caFile, guestEnv) == 0,
             out.constData());
    QVERIFY2(git(tls + QStringList{QStringLiteral("fetch"), QStringLiteral("-q"), QStringLiteral("origin")}, clone, &out, m_caFile, guestEnv) == 0,
             out.constData());
    // The commit is in the forge's repository; the token reached it only through the broker.
    QVERIFY(git({QStringLiteral("--git-dir"), root + QStringLiteral("/repo.git"), QStringLiteral("log"), QStringLiteral("--format=%s"), QStringLiteral("main")},
                root, &out) == 0);
    QCOMPARE(out.trimmed(), QByteArray("first"));
    int authorised = 0;
    for (const TlsTestServer::Request &r : forge.requests())
        authorised += r.header("Authorization") == QByteArray("Basic " + QByteArray("x-access-token:" + kGamma).toBase64());
    QVERIFY2(authorised >= 3, qPrintable(QString::number(authorised))); // clone, push, fetch
    QFile config(clone + QStringLiteral("/.git/config"));
    QVERIFY(config.open(QIODevice::ReadOnly));
    const QByteArray stored = config.readAll();
    QVERIFY(!stored.contains(kGamma));
    QCOMPARE(stored.contains(m_gammaPh), !helper); // with the helper nothing of the token is written down
    if (helper) {
        // The helper answers only for the loan's hosts: git asks, and gets nothing, for another.
        QVERIFY(git({QStringLiteral("credential"), QStringLiteral("fill")}, work, &out, {}, guestEnv,
                    "protocol=https\nhost=elsewhere.test\n\n") != 0);
        QVERIFY2(!out.contains(m_gammaPh), out.constData());
    }
}

// Rules of single requests on an intercepted forge: the real git client clones anything and
// pushes to myorg/* only; a push elsewhere is refused before a byte of it reaches the forge.
void TestInterceptor::gitPushesOnlyWhereARuleAllows()
{
    const QString root = m_dir.filePath(QStringLiteral("git-rules-root")), work = m_dir.filePath(QStringLiteral("git-rules-work"));
    for (const QString &repo : {QStringLiteral("myorg/tool.git"), QStringLiteral("other/tool.git")}) {
        QVERIFY(QDir().mkpath(root + QLatin1Char('/') + repo));
        QCOMPARE(git({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("--bare"), QStringLiteral("-b"), QStringLiteral("main"),
                      root + QLatin1Char('/') + repo}, root), 0);
    }
    QVERIFY(QDir().mkpath(work));
    const std::unique_ptr<TlsTestServer> forgeServer = gitForge(root);
    TlsTestServer &forge = *forgeServer;
    Policy policy;
    Rule fetch, push;
    fetch.id = 1;
    fetch.sandbox = push.sandbox = QStringLiteral("box");
    fetch.pattern = push.pattern = QStringLiteral("api.bound.test");
    fetch.allow = push.allow = true;
    fetch.request.git = QStringLiteral("fetch");
    push.id = 2;
    push.request = {{}, {}, QStringLiteral("push"), QStringLiteral("myorg/*")};
    QVERIFY(policy.setRules({fetch, push}));
    OwnInterceptor own(*m_vault, {}, m_dir.filePath(QStringLiteral("upstream-ca.pem")), forge.port());
    QVERIFY(own.ready);
    own.interceptor.setRequestDecider([&policy](const QString &sandbox, const QString &host, quint16 port, const RequestFacts &request) {
        const Ruling r = policy.decideRequest(Target{sandbox, host, QHostAddress(), port}, request, QDateTime::currentDateTimeUtc());
        return RequestVerdict{r.decision, r.ruleId, r.reason};
    });
    own.front.setPerRequest(true);
    QMap<QString, QString> guestEnv = gitCredentialEnvironment({{QStringLiteral("GIT_TOKEN"), {QStringLiteral("*.bound.test")}}});
    guestEnv.insert(QStringLiteral("GIT_TOKEN"), QString::fromLatin1(m_gammaPh));
    const QStringList tls{QStringLiteral("-c"), QStringLiteral("http.curloptResolve=api.bound.test:%1:127.0.0.1").arg(own.front.port())};
    const auto url = [&](const char *repo) { return QStringLiteral("https://api.bound.test:%1/%2").arg(own.front.port()).arg(QLatin1String(repo)); };
    const auto commitIn = [&](const QString &clone) {
        QFile file(clone + QStringLiteral("/README"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("pushed\n");
        file.close();
        QCOMPARE(git({QStringLiteral("add"), QStringLiteral("README")}, clone), 0);
        QCOMPARE(git({QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"), QStringLiteral("first")}, clone), 0);
    };
    QByteArray out;
    for (const char *repo : {"myorg/tool.git", "other/tool.git"}) {
        const QString clone = work + QLatin1Char('/') + QString::fromLatin1(repo).section(QLatin1Char('/'), 0, 0);
        QVERIFY2(git(tls + QStringList{QStringLiteral("clone"), QStringLiteral("-q"), url(repo), clone}, work, &out, m_caFile, guestEnv) == 0,
                 out.constData());
        commitIn(clone);
        const int pushed = git(tls + QStringList{QStringLiteral("push"), QStringLiteral("-q"), QStringLiteral("origin"), QStringLiteral("HEAD:main")},
                               clone, &out, m_caFile, guestEnv);
        if (QByteArrayView(repo).startsWith("myorg")) {
            QVERIFY2(pushed == 0, out.constData());
        } else {
            QVERIFY2(pushed != 0, out.constData());
            QVERIFY2(out.contains("403"), out.constData());
        }
    }
    // The forge has the allowed push, and never saw a request of the refused one.
    QVERIFY(git({QStringLiteral("--git-dir"), root + QStringLiteral("/myorg/tool.git"), QStringLiteral("log"), QStringLiteral("--format=%s"),
                 QStringLiteral("main")}, root, &out) == 0);
    QCOMPARE(out.trimmed(), QByteArray("first"));
    QVERIFY(git({QStringLiteral("--git-dir"), root + QStringLiteral("/other/tool.git"), QStringLiteral("rev-parse"), QStringLiteral("--verify"),
                 QStringLiteral("-q"), QStringLiteral("main")}, root, &out) != 0);
    for (const TlsTestServer::Request &r : forge.requests())
        QVERIFY2(!(r.target.startsWith("/other/") && r.target.contains("receive-pack")), r.target.constData());
    // The record names the rule of each request (fetch: 1, push to myorg: 2), and why the
    // refused push was refused.
    bool refusedSeen = false;
    for (const InterceptEvent &e : own.events()) {
        const bool isPush = e.path.contains(QLatin1String("receive-pack"));
        if (e.allowed) {
            QVERIFY2(e.rule == (isPush ? 2 : 1), qPrintable(e.path + QLatin1Char(' ') + QString::number(e.rule)));
            QVERIFY(!isPush || e.path.startsWith(QLatin1String("/myorg/")));
        } else {
            refusedSeen = true;
            QVERIFY2(isPush && e.path.startsWith(QLatin1String("/other/")) && e.rule == 0, qPrintable(e.path));
            QVERIFY2(e.reason.contains(QLatin1String("no rule matches")), qPrintable(e.reason));
        }
    }
    QVERIFY(refusedSeen);
}

void TestInterceptor::queryParameterGetsTheRealValue()
{
    for (const char *bad : {"?key", "?={}", "?k y={}", "?key={}x", "?a&b={}"})
        QVERIFY2(!HeaderTemplate::parse(QString::fromLatin1(bad)), bad);
    QCOMPARE(HeaderTemplate::parse(QStringLiteral("?api_key={}"))->text(), QStringLiteral("?api_key={}"));
    const int before = int(m_good->requests().size());
    const CurlResult r = curl(QStringLiteral("api.bound.test"),
                              {QStringLiteral("https://api.bound.test:%1/maps?q=x&key=%2&n=1").arg(m_front->port()).arg(QString::fromLatin1(m_deltaPh))});
    QVERIFY2(r.code == 0, r.err.constData());
    const QList<TlsTestServer::Request> got = m_good->requests().mid(before);
    QCOMPARE(got.size(), 1);
    QCOMPARE(got.first().target, QByteArray("/maps?q=x&key=" + kDelta.toPercentEncoding() + "&n=1"));
    const QList<InterceptEvent> ev = events();
    QCOMPARE(ev.size(), 1);
    QVERIFY(ev.first().allowed);
    QCOMPARE(ev.first().path, QStringLiteral("/maps?q=x&key=[delta]&n=1")); // the parameter's name, never a value
}

void TestInterceptor::queryPlaceholderElsewhereIsBlocked_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("query"); // %PH% the placeholder of delta
    QTest::addColumn<QString>("reason");
    QTest::newRow("another parameter") << "api.bound.test" << "?token=%PH%" << "is in the URL";
    QTest::newRow("inside the value") << "api.bound.test" << "?key=x%PH%" << "is in the URL";
    QTest::newRow("in the path") << "api.bound.test" << "/%PH%?key=1" << "is in the URL";
    QTest::newRow("encoded") << "api.bound.test" << "?key=%ENC%" << "is in the URL";
    QTest::newRow("unbound host") << "other.bound.test" << "?key=%PH%" << "is in the URL";
}

void TestInterceptor::queryPlaceholderElsewhereIsBlocked()
{
    QFETCH(QString, host);
    QFETCH(QString, query);
    QFETCH(QString, reason);
    query.replace(QLatin1String("%PH%"), QString::fromLatin1(m_deltaPh));
    query.replace(QLatin1String("%ENC%"), QString::fromLatin1(QByteArray("k:" + m_deltaPh).toBase64(QByteArray::Base64UrlEncoding)));
    const int before = int(m_good->requests().size());
    const CurlResult r = curl(host, {QStringLiteral("-w"), QStringLiteral("\n%{http_code}"),
                                     QStringLiteral("https://%1:%2/q%3").arg(host).arg(m_front->port()).arg(query)});
    QVERIFY2(r.out.endsWith("\n403"), r.out.constData());
    QVERIFY2(r.out.contains(reason.toUtf8()), r.out.constData());
    QCOMPARE(m_good->requests().size(), before);
    const QList<InterceptEvent> ev = events();
    QCOMPARE(ev.size(), 1);
    QCOMPARE(ev.at(0).alertKind, QStringLiteral("exfiltration"));
}

QTEST_GUILESS_MAIN(TestInterceptor)
#include "test_interceptor.moc"
