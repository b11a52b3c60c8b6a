// Secrets end to end from a real guest. A real airlockd boots a real TCG guest of the
// tiny image that borrows two secrets; from inside it (airlockctl exec) curl talks to an HTTPS
// server with its own test CA (AIRLOCK_UPSTREAM_CA) that records what it receives. The server
// lives in a network namespace this test makes, on 203.0.113.30 (its loopback), joined to the
// tests' namespace by a veth pair; names map to it through AIRLOCK_UPSTREAM_HOSTS. Nothing here
// sends a packet anywhere else.
//
// Policy decides before any secret does: a bound host still needs an allow rule (or an answer),
// so borrowing a secret never opens egress by itself (SecretBridge lends; only Policy allows).
#include "daemonharness.h"
#include "netns.h"
#include "recordinghttpserver.h"
#include "tlstestserver.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <openssl/x509.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace airlock::test;

namespace {

const QString kOutside = u"203.0.113.30"_s;
constexpr quint32 kOutsideIp = 0xCB00711E; // 203.0.113.30
const QByteArray kRealKey = "sk-live-REAL-4f9c1e7a2b8d6053e1c4a9f7b2d80e6c";
const QByteArray kOtherKey = "other-REAL-93b1d7f0c2e4a6b8d0f1e3a5c7b9d2f4";
const QByteArray kPassphrase = "correct horse battery staple secretsvm";
const QByteArray kGitToken = "ghp_REALgitToken5e3a9c1f7b2d4e6a8c0b1d3f5e7a9c";

} // namespace

class TestSecretsVm : public QObject {
    Q_OBJECT

private:
    DaemonHarness m_daemon;
    QTemporaryDir m_dir;
    OutsideNamespace m_outside;
    std::unique_ptr<TestPki> m_pki;
    std::unique_ptr<TlsTestServer> m_https;
    std::unique_ptr<RecordingHttpServer> m_plain; // plain HTTP on 203.0.113.30:80
    QString m_box;
    QByteArray m_placeholder;      // API_KEY in the guest
    QByteArray m_otherPlaceholder; // OTHER_KEY in the guest
    QByteArray m_gitPlaceholder;   // GIT_TOKEN in the guest (Authorization: Basic {})
    QLocalSocket m_events;         // subscribed to "alert"
    QByteArray m_eventBuffer;

    CtlResult ctl(const QStringList &args, const QByteArray &input = {}, int timeoutMs = 300000)
    {
        return m_daemon.ctlText(args, timeoutMs, input);
    }
    CtlResult guestSh(const QString &script, int timeoutMs = 120000, const QByteArray &input = {})
    {
        return m_daemon.guestSh(m_box, script, timeoutMs, input);
    }
    // curl from the guest with the placeholder of API_KEY in x-api-key; prints the status code
    // on the last line.
    CtlResult curlWithKey(const QString &url, const QString &var = u"API_KEY"_s)
    {
        return guestSh(u"curl -sS --max-time 60 -H \"x-api-key: $%1\" -w '\\n%{http_code}' '%2'"_s.arg(var, url));
    }
    static QByteArray statusOf(const CtlResult &r) { return r.out.trimmed().split('\n').last(); }
    QList<TlsTestServer::Request> requestsTo(const QByteArray &path)
    {
        QList<TlsTestServer::Request> out;
        for (const auto &r : m_https->requests())
            if (r.target == path)
                out << r;
        return out;
    }
    // The alert events received so far (topic "alert").
    QList<QJsonObject> alerts(int waitMs)
    {
        QList<QJsonObject> out;
        QElapsedTimer t;
        t.start();
        do {
            m_events.waitForReadyRead(200);
            m_eventBuffer += m_events.readAll();
        } while (t.elapsed() < waitMs);
        for (const QByteArray &line : m_eventBuffer.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            const QJsonObject params = o.value("params"_L1).toObject();
            if (params.value("topic"_L1).toString() == "alert"_L1)
                out << params.value("data"_L1).toObject();
        }
        return out;
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void createWithAMissingSecretOrALockedVaultMakesNothing();
    void theGuestEnvironmentHoldsPlaceholdersAndTrustVariables();
    void theSandboxCaJoinsTheGuestsSystemRoots();
    void borrowingASecretDoesNotOpenEgress();
    void theBoundHostReceivesTheRealValue();
    void everyRequestOfAKeepAliveConnectionIsSubstituted();
    void thePlaceholderToAnotherHostIsBlockedAndAlerted();
    void theRealValueIsNeverInTheGuest();
    void aForkBorrowsWhatItsOriginBorrows();
    void aStartNobodyWaitsForStillInstallsTheCa();
    void aLockedVaultGetsAReadable403();
    // Basic credentials, base64 placeholders, masked answers (broker/basicauth.h, responsemask.h).
    void basicCredentialsFromCurlGetTheRealValue();
    void theGuestsGitOffersThePlaceholderToTheBoundHostOnly();
    void aBase64PlaceholderElsewhereIsBlockedAndAlerted();
    void anEchoedRealValueComesBackMasked();
    // Rules of single requests (broker/requestpattern.h) on the bound host, and the asking of
    // a request no rule answers.
    void aRequestNoRuleAnswersIsAskedWithItsMethodAndPath();
    // Request rules on a host no secret is bound to: the sandbox's CA covers the names of the
    // request rules it starts with (Policy::requestRuleNames), so their requests are read too.
    void requestRulesAreReadOnAHostNoSecretIsBoundTo();
    void withoutAnUnlockedVaultTheRequestsAreNotReadAndItIsSaid();
};

void TestSecretsVm::initTestCase()
{
    const QString missing = missingVmTestPrerequisite(u"test_secretsvm"_s, u"libvirt's system connection, nftables, network namespaces"_s,
                                                      u"-L secretsvm"_s);
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    QVERIFY(m_dir.isValid());

    // The outside: a namespace of its own with 203.0.113.30 on its loopback, over a veth pair.
    QString error;
    QVERIFY2(m_outside.create(u"sec"_s, kOutside, u"192.0.2.0"_s, &error), qPrintable(error));

    // The HTTPS server (its own test CA) and the plain one, inside that namespace.
    m_pki = std::make_unique<TestPki>();
    X509 *cert = nullptr;
    EVP_PKEY *key = nullptr;
    m_pki->issue({"api.test.example", "other.test.example", "rules.test.example"}, &cert, &key);
    bool plainUp = false;
    inNamespace(m_outside.name(), [&] {
        m_https = std::make_unique<TlsTestServer>(cert, key, kOutsideIp, 443);
        m_plain = std::make_unique<RecordingHttpServer>();
        plainUp = m_plain->start(u"203.0.113.30"_s, 80);
    });
    X509_free(cert);
    EVP_PKEY_free(key);
    QCOMPARE(m_https->port(), quint16(443));
    m_https->setResponder([](const TlsTestServer::Request &r) { // /echo: an upstream that echoes credentials
        if (!r.target.startsWith("/echo"))
            return QByteArray();
        const QByteArray body = "x-api-key=" + r.header("x-api-key") + "\nauthorization=" + r.header("Authorization") + "\n";
        return QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    });
    QVERIFY2(plainUp, "cannot listen on 203.0.113.30:80 in the test namespace");
    QVERIFY2(DaemonHarness::setUpstream(m_dir.path(), "203.0.113.30 api.test.example other.test.example plain.test.example rules.test.example\n",
                                        m_pki->caPem(), &error),
             qPrintable(error));

    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
    // The shared data dir may hold a vault of an earlier run: a fresh one per run is not possible there.
    CtlResult v = m_daemon.initOrUnlockVault(kPassphrase, 300000);
    QVERIFY2(v.exitCode == 0, v.err.constData());
    v = ctl({u"secret"_s, u"set"_s, u"SVM_API"_s, u"--host"_s, u"api.test.example"_s, u"--header"_s, u"x-api-key: {}"_s},
            kRealKey + '\n');
    QVERIFY2(v.exitCode == 0, v.err.constData());
    v = ctl({u"secret"_s, u"set"_s, u"SVM_OTHER"_s, u"--host"_s, u"other.test.example"_s, u"--header"_s, u"x-api-key: {}"_s},
            kOtherKey + '\n');
    QVERIFY2(v.exitCode == 0, v.err.constData());
    v = ctl({u"secret"_s, u"set"_s, u"SVM_GIT"_s, u"--host"_s, u"api.test.example"_s, u"--header"_s, u"Authorization: Basic {}"_s},
            kGitToken + '\n');
    QVERIFY2(v.exitCode == 0, v.err.constData());

    m_events.connectToServer(m_daemon.socketPath());
    QVERIFY(m_events.waitForConnected(5000));
    m_events.write(R"({"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"topics":["alert"]}})" "\n");
    QVERIFY(m_events.waitForBytesWritten(5000));
}

void TestSecretsVm::cleanupTestCase()
{
    // Fail if anything is left behind.
    const bool removed = m_box.isEmpty() || m_daemon.killAndRemove(m_box);
    m_daemon.stop();
    m_https.reset();
    m_plain.reset();
    m_outside.remove();
    QVERIFY2(removed, "the test's sandbox could not be removed: it would be left running");
}

void TestSecretsVm::createWithAMissingSecretOrALockedVaultMakesNothing()
{
    const QString name = uniqueName(u"svm-bad"_s);
    CtlResult r = ctl({u"create"_s, name, u"--secret"_s, u"SVM_NO_SUCH=X"_s});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("no secret named SVM_NO_SUCH"), r.err.constData());

    QCOMPARE(ctl({u"vault"_s, u"lock"_s}).exitCode, 0);
    r = ctl({u"create"_s, name, u"--secret"_s, u"SVM_API=API_KEY"_s});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("locked") && r.err.contains("vault unlock"), r.err.constData());
    QCOMPARE(ctl({u"vault"_s, u"unlock"_s}, kPassphrase + '\n').exitCode, 0);

    const CtlResult ls = ctl({u"--json"_s, u"ls"_s});
    QVERIFY2(!ls.out.contains(name.toUtf8()), ls.out.constData());
    const CtlResult secrets = ctl({u"--json"_s, u"secret"_s, u"ls"_s});
    QVERIFY2(!secrets.out.contains(name.toUtf8()), "a failed create left a loan behind");
}

void TestSecretsVm::theGuestEnvironmentHoldsPlaceholdersAndTrustVariables()
{
    m_box = uniqueName(u"svm"_s);
    const CtlResult created = ctl({u"create"_s, m_box, u"--memory"_s, u"256"_s, u"--secret"_s, u"SVM_API=API_KEY"_s,
                             u"--secret"_s, u"SVM_OTHER=OTHER_KEY"_s, u"--secret"_s, u"SVM_GIT=GIT_TOKEN"_s, u"--start"_s,
                                   // the person's own git setting, kept beside the credential helper's
                                   u"--env"_s, u"GIT_CONFIG_COUNT=1"_s, u"--env"_s, u"GIT_CONFIG_KEY_0=user.name"_s,
                                   u"--env"_s, u"GIT_CONFIG_VALUE_0=Ada"_s});
    QVERIFY2(created.exitCode == 0, QByteArray(created.err + m_daemon.log().right(3000)).constData());
    const CtlResult env = ctl({u"exec"_s, m_box, u"--"_s, u"env"_s});
    QCOMPARE(env.exitCode, 0);
    QMap<QByteArray, QByteArray> vars;
    for (const QByteArray &line : env.out.split('\n')) {
        const qsizetype eq = line.indexOf('=');
        if (eq > 0)
            vars.insert(line.left(eq), line.mid(eq + 1));
    }
    m_placeholder = vars.value("API_KEY");
    m_otherPlaceholder = vars.value("OTHER_KEY");
    m_gitPlaceholder = vars.value("GIT_TOKEN");
    QCOMPARE(m_gitPlaceholder.size(), kGitToken.size());
    QCOMPARE(m_placeholder.size(), kRealKey.size());
    QCOMPARE(m_otherPlaceholder.size(), kOtherKey.size());
    QVERIFY(m_placeholder != kRealKey);
    for (const char *name : {"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO", "CURL_CA_BUNDLE"})
        QCOMPARE(vars.value(name), QByteArray("/etc/ssl/certs/ca-certificates.crt"));
    // The console's shell is started by the same init that exports these (guest-init): same
    // environment as qemu-ga's children.
    const CtlResult secrets = ctl({u"--json"_s, u"secret"_s, u"ls"_s});
    QVERIFY2(secrets.out.contains(m_box.toUtf8()), "secret ls does not show the sandbox as a borrower");
}

void TestSecretsVm::theSandboxCaJoinsTheGuestsSystemRoots()
{
    const CtlResult bundle = guestSh(u"cat /etc/ssl/certs/ca-certificates.crt"_s);
    QCOMPARE(bundle.exitCode, 0);
    QVERIFY(bundle.out.startsWith("# Airlock sandbox CA"));
    QVERIFY2(bundle.out.count("-----BEGIN CERTIFICATE-----") > 50, "the system roots are gone from the guest's bundle");
    // The system roots still verify: the host's bundle is a subset of the guest's.
    QFile hostRoots(u"/etc/ssl/certs/ca-certificates.crt"_s);
    QVERIFY(hostRoots.open(QIODevice::ReadOnly));
    QVERIFY(bundle.out.contains(hostRoots.readAll().trimmed()));
}

void TestSecretsVm::borrowingASecretDoesNotOpenEgress()
{
    // No rule yet: the flow is held for a decision, never relayed (curl gives up first).
    const CtlResult r = guestSh(u"curl -sS --max-time 5 -H \"x-api-key: $API_KEY\" https://api.test.example/no-rule-yet"_s);
    QVERIFY(r.exitCode != 0);
    QVERIFY(requestsTo("/no-rule-yet").isEmpty());
    for (const char *host : {"api.test.example", "other.test.example", "plain.test.example"})
        QCOMPARE(ctl({u"rule"_s, u"add"_s, u"--sandbox"_s, m_box, u"--action"_s, u"allow"_s, u"--host"_s,
                      QString::fromLatin1(host)}).exitCode, 0);
}

void TestSecretsVm::theBoundHostReceivesTheRealValue()
{
    const CtlResult r = curlWithKey(u"https://api.test.example/v1/models"_s);
    QVERIFY2(statusOf(r) == "200", QByteArray(r.out + r.err + m_daemon.log().right(3000)).constData());
    const auto got = requestsTo("/v1/models");
    QCOMPARE(got.size(), 1);
    QCOMPARE(got.first().header("x-api-key"), kRealKey);
    // The intercepted request is an egress event with its method and path.
    const CtlResult events = ctl({u"--json"_s, u"egress"_s, u"ls"_s, m_box});
    QVERIFY2(events.out.contains("/v1/models"), events.out.right(2000).constData());
}

void TestSecretsVm::everyRequestOfAKeepAliveConnectionIsSubstituted()
{
    const CtlResult r = guestSh(u"curl -sS --max-time 60 -H \"x-api-key: $API_KEY\" https://api.test.example/ka/1 "
                          "https://api.test.example/ka/2 https://api.test.example/ka/3 -w '%{num_connects} '"_s);
    QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
    QList<TlsTestServer::Request> got;
    for (const auto &req : m_https->requests())
        if (req.target.startsWith("/ka/"))
            got << req;
    QVERIFY2(got.size() == 3, QByteArray(r.out + r.err + m_daemon.log().right(4000)).constData());
    for (const auto &req : got) {
        QCOMPARE(req.header("x-api-key"), kRealKey);
        QCOMPARE(req.connection, got.first().connection); // one connection, three requests
    }
}

void TestSecretsVm::thePlaceholderToAnotherHostIsBlockedAndAlerted()
{
    alerts(0); // drain
    m_eventBuffer.clear();
    // Over HTTPS to a host bound to ANOTHER secret (intercepted): refused, nothing sent on.
    CtlResult r = curlWithKey(u"https://other.test.example/steal"_s);
    QCOMPARE(statusOf(r), QByteArray("403"));
    QVERIFY(requestsTo("/steal").isEmpty());
    // The other secret's own placeholder still works there.
    r = curlWithKey(u"https://other.test.example/own"_s, u"OTHER_KEY"_s);
    QCOMPARE(statusOf(r), QByteArray("200"));
    QCOMPARE(requestsTo("/own").value(0).header("x-api-key"), kOtherKey);
    // Over plain HTTP to an allowed host: refused by the proxy, never relayed.
    r = curlWithKey(u"http://plain.test.example/steal-plain"_s);
    QCOMPARE(statusOf(r), QByteArray("403"));
    for (const QByteArray &req : m_plain->requests())
        QVERIFY(!req.contains("steal-plain"));
    // Plain HTTP without a placeholder passes.
    r = guestSh(u"curl -sS --max-time 30 -w '\\n%{http_code}' http://plain.test.example/fine"_s);
    QCOMPARE(statusOf(r), QByteArray("200"));
    // A clean first request, then the placeholder in the second request of the same keep-alive
    // connection, and far into a large body: both are caught after the first head.
    r = guestSh(u"curl -sS --max-time 30 http://plain.test.example/first-clean --next -H \"x-api-key: $API_KEY\" "
                "http://plain.test.example/second-leaks; echo; head -c 300000 /dev/zero | tr '\\0' a > /tmp/body; "
                "printf '%s' \"$API_KEY\" >> /tmp/body; curl -sS --max-time 30 -H 'Expect:' --data-binary @/tmp/body "
                "http://plain.test.example/body-leaks; echo"_s);
    bool firstSeen = false;
    for (const QByteArray &req : m_plain->requests()) {
        firstSeen = firstSeen || req.contains("first-clean");
        QVERIFY2(!req.contains("second-leaks") && !req.contains(m_placeholder), req.left(300).constData());
    }
    QVERIFY2(firstSeen, r.out.constData());

    const QList<QJsonObject> got = alerts(3000);
    int exfiltration = 0;
    for (const QJsonObject &a : got)
        exfiltration += a.value("kind"_L1).toString() == "exfiltration"_L1 && a.value("sandbox"_L1).toString() == m_box;
    QVERIFY2(exfiltration >= 4, qPrintable(u"%1 exfiltration alerts of %2 events"_s.arg(exfiltration).arg(got.size())));
}

void TestSecretsVm::theRealValueIsNeverInTheGuest()
{
    // The patterns come in on stdin so they never appear on a command line or in a file.
    const QByteArray patterns = kRealKey + '\n' + kOtherKey + '\n';
    const CtlResult env = guestSh(u"env; cat /proc/cmdline"_s);
    QCOMPARE(env.exitCode, 0);
    QVERIFY(!env.out.contains(kRealKey) && !env.out.contains(kOtherKey));
    QVERIFY(env.out.contains(m_placeholder));
    const CtlResult files = guestSh(u"set --; for d in /*; do case $d in /proc|/sys|/dev) ;; *) set -- \"$@\" \"$d\";; esac; done; "
                              "grep -rlF -f /proc/self/fd/0 \"$@\"; sync; echo searched"_s,
                              300000, patterns);
    QVERIFY2(files.out.trimmed() == "searched", QByteArray(files.out + files.err).constData());
    // Positive control: the same search finds the placeholder where it is (the environment
    // file init wrote to /run).
    const CtlResult control = guestSh(u"grep -rlF \"$API_KEY\" /run"_s);
    QVERIFY2(control.out.contains("/run/airlock.env"), control.out.constData());

    // The overlay disk on the host, raw bytes, after the guest synced.
    const QDir pool(u"/var/lib/libvirt/images/airlock"_s);
    const QStringList disks = pool.entryList({u"*-sbx-%1-*.qcow2"_s.arg(m_box)}, QDir::Files);
    QCOMPARE(disks.size(), 1);
    const QString disk = pool.filePath(disks.first());
    for (const QByteArray &secret : {kRealKey, kOtherKey}) {
        QByteArray count;
        run(u"grep"_s, {u"-c"_s, u"-a"_s, u"-F"_s, QString::fromLatin1(secret), disk}, &count, 120000);
        QCOMPARE(count.trimmed(), QByteArray("0"));
    }
    // Positive control: what the guest wrote (the CA block of its bundle) is found there.
    QByteArray written;
    run(u"grep"_s, {u"-c"_s, u"-a"_s, u"-F"_s, u"# Airlock sandbox CA"_s, disk}, &written, 120000);
    QVERIFY2(written.trimmed().toInt() >= 1, "the disk search cannot see what the guest wrote");
}

void TestSecretsVm::aForkBorrowsWhatItsOriginBorrows()
{
    const CtlResult snap = ctl({u"--json"_s, u"snapshot"_s, u"create"_s, m_box});
    QVERIFY2(snap.exitCode == 0, snap.err.constData());
    const QString id = QString::number(QJsonDocument::fromJson(snap.out).object().value("id"_L1).toInteger());
    const QString fork = uniqueName(u"svmf"_s);
    const CtlResult forked = ctl({u"fork"_s, m_box, id, fork, u"--start"_s});
    QVERIFY2(forked.exitCode == 0, QByteArray(forked.err + m_daemon.log().right(3000)).constData());
    const QString origin = m_box;
    m_box = fork; // the helpers below talk to the fork
    const CtlResult env = guestSh(u"echo $API_KEY"_s);
    const CtlResult r = curlWithKey(u"https://api.test.example/from-fork"_s);
    const auto got = requestsTo("/from-fork");
    const CtlResult secrets = ctl({u"--json"_s, u"secret"_s, u"ls"_s});
    ctl({u"kill"_s, fork}, {}, 120000);
    const CtlResult removed = ctl({u"rm"_s, fork}, {}, 120000);
    m_box = origin;
    QCOMPARE(env.out.trimmed(), m_placeholder); // same placeholder: files on the forked disk keep working
    QVERIFY2(statusOf(r) == "200", QByteArray(r.out + r.err + m_daemon.log().right(3000)).constData());
    QCOMPARE(got.size(), 1);
    QCOMPARE(got.first().header("x-api-key"), kRealKey);
    QVERIFY2(secrets.out.contains(fork.toUtf8()), "secret ls does not show the fork as a borrower");
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
}

void TestSecretsVm::aStartNobodyWaitsForStillInstallsTheCa()
{
    // Take the CA out of the guest's trust store, power off, and start without waiting.
    const CtlResult emptied = guestSh(u": > /etc/ssl/certs/ca-certificates.crt; sync"_s);
    QCOMPARE(emptied.exitCode, 0);
    QCOMPARE(ctl({u"kill"_s, m_box}, {}, 120000).exitCode, 0);
    QLocalSocket api;
    api.connectToServer(m_daemon.socketPath());
    QVERIFY(api.waitForConnected(5000));
    api.write(u"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"sandbox.start\",\"params\":{\"name\":\"%1\",\"wait\":false}}\n"_s
                  .arg(m_box).toUtf8());
    QByteArray reply;
    QElapsedTimer t;
    t.start();
    while (!reply.contains('\n') && t.elapsed() < 30000) {
        api.waitForReadyRead(500);
        reply += api.readAll();
    }
    QVERIFY2(reply.contains("\"result\""), reply.constData());
    // The daemon puts the CA back once the agent answers: curl through the interception works.
    QByteArray status;
    CtlResult r;
    t.restart();
    while (t.elapsed() < 120000) {
        r = curlWithKey(u"https://api.test.example/after-nowait"_s);
        status = statusOf(r);
        if (status == "200")
            break;
        QTest::qWait(1000);
    }
    QVERIFY2(status == "200", QByteArray(r.out + r.err + m_daemon.log().right(3000)).constData());
    QCOMPARE(requestsTo("/after-nowait").first().header("x-api-key"), kRealKey);
}

void TestSecretsVm::aLockedVaultGetsAReadable403()
{
    QCOMPARE(ctl({u"vault"_s, u"lock"_s}).exitCode, 0);
    alerts(0); // drain
    m_eventBuffer.clear();
    const CtlResult r = curlWithKey(u"https://api.test.example/while-locked"_s);
    QVERIFY2(statusOf(r) == "403", QByteArray(r.out + r.err + m_daemon.log().right(4000)).constData());
    QVERIFY2(r.out.contains("vault is locked"), r.out.constData());
    QVERIFY(requestsTo("/while-locked").isEmpty());
    // The person at the desktop is told how to fix it, once, however often the agent retries.
    QCOMPARE(statusOf(curlWithKey(u"https://api.test.example/while-locked-again"_s)), QByteArray("403"));
    QList<QJsonObject> locked;
    for (const QJsonObject &a : alerts(2000))
        if (a.value("kind"_L1).toString() == "vault_locked"_L1)
            locked << a;
    QCOMPARE(locked.size(), 1);
    QCOMPARE(locked.first().value("sandbox"_L1).toString(), m_box);
    const QString message = locked.first().value("message"_L1).toString();
    QVERIFY2(message.contains("api.test.example"_L1) && message.contains("vault unlock"_L1), qPrintable(message));
    QCOMPARE(ctl({u"vault"_s, u"unlock"_s}, kPassphrase + '\n').exitCode, 0);
}

void TestSecretsVm::basicCredentialsFromCurlGetTheRealValue()
{
    // curl -u, and a token in the URL (as git and package managers take it): both become Basic.
    const CtlResult r = guestSh(u"curl -sS --max-time 60 -u \"x-access-token:$GIT_TOKEN\" -w '\\n%{http_code}\\n' "
                                "https://api.test.example/basic-u; curl -sS --max-time 60 -w '\\n%{http_code}' "
                                "\"https://x-access-token:$GIT_TOKEN@api.test.example/basic-url\""_s);
    QVERIFY2(r.out.count("200") >= 2, QByteArray(r.out + r.err + m_daemon.log().right(3000)).constData());
    const QByteArray expected = "Basic " + QByteArray("x-access-token:" + kGitToken).toBase64();
    for (const QByteArray &path : {QByteArray("/basic-u"), QByteArray("/basic-url")}) {
        const auto got = requestsTo(path);
        QCOMPARE(got.size(), 1);
        QCOMPARE(got.first().header("Authorization"), expected);
    }
}

void TestSecretsVm::theGuestsGitOffersThePlaceholderToTheBoundHostOnly()
{
    // The guest's own git (its environment: GIT_CONFIG_COUNT and a credential helper), asked
    // as git asks before it pushes: the placeholder for the secret's host, nothing for another.
    const CtlResult bound = guestSh(u"printf 'protocol=https\\nhost=api.test.example\\n\\n' | GIT_TERMINAL_PROMPT=0 git credential fill"_s);
    QVERIFY2(bound.exitCode == 0, QByteArray(bound.out + bound.err).constData());
    QVERIFY2(bound.out.contains(QByteArray("username=x-access-token\npassword=" + m_gitPlaceholder + "\n")), bound.out.constData());
    QVERIFY(!bound.out.contains(kGitToken));
    const CtlResult other = guestSh(u"printf 'protocol=https\\nhost=other.test.example\\n\\n' | GIT_TERMINAL_PROMPT=0 git credential fill"_s);
    QVERIFY(other.exitCode != 0);
    QVERIFY2(!other.out.contains(m_gitPlaceholder), other.out.constData());
    // The person's --env git setting came through beside the helper.
    const CtlResult name = guestSh(u"git config --get user.name"_s);
    QCOMPARE(name.out, QByteArray("Ada\n"));
}

void TestSecretsVm::aBase64PlaceholderElsewhereIsBlockedAndAlerted()
{
    alerts(0); // drain
    m_eventBuffer.clear();
    // The placeholder base64-encoded in another header, and Basic credentials to a host the
    // secret is not bound to: both refused with an alert, nothing sent on.
    const CtlResult r = guestSh(u"enc=$(printf 'x:%s' \"$GIT_TOKEN\" | base64 | tr -d '\\n'); "
                                "curl -sS --max-time 60 -H \"X-Note: $enc\" -w '\\n%{http_code}\\n' https://api.test.example/b64-note; "
                                "curl -sS --max-time 60 -u \"git:$GIT_TOKEN\" -w '\\n%{http_code}' https://other.test.example/b64-other"_s);
    QVERIFY2(r.out.count("\n403") == 2, QByteArray(r.out + r.err).constData());
    QVERIFY(requestsTo("/b64-note").isEmpty() && requestsTo("/b64-other").isEmpty());
    int exfiltration = 0;
    for (const QJsonObject &a : alerts(3000))
        exfiltration += a.value("kind"_L1).toString() == "exfiltration"_L1 && a.value("sandbox"_L1).toString() == m_box;
    QVERIFY2(exfiltration >= 2, qPrintable(u"%1 exfiltration alerts"_s.arg(exfiltration)));
}

void TestSecretsVm::anEchoedRealValueComesBackMasked()
{
    alerts(0); // drain
    m_eventBuffer.clear();
    const CtlResult r = guestSh(u"curl -sS --max-time 60 -H \"x-api-key: $API_KEY\" -u \"x:$GIT_TOKEN\" https://api.test.example/echo-headers"_s);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(requestsTo("/echo-headers").value(0).header("x-api-key"), kRealKey); // the upstream had it
    QVERIFY2(r.out.contains(QByteArray("x-api-key=" + m_placeholder + "\n")), r.out.constData());  // the guest got the placeholder
    QVERIFY(!r.out.contains(kRealKey) && !r.out.contains(QByteArray("x:" + kGitToken).toBase64()));
    QString message;
    for (const QJsonObject &a : alerts(3000))
        if (a.value("kind"_L1).toString() == "exfiltration"_L1 && a.value("sandbox"_L1).toString() == m_box)
            message = a.value("message"_L1).toString();
    QVERIFY2(message.contains("api.test.example"_L1) && message.contains("/echo-headers"_L1) && message.contains("SVM_API"_L1),
             qPrintable(message));
}

void TestSecretsVm::aRequestNoRuleAnswersIsAskedWithItsMethodAndPath()
{
    // The bound host's lasting allow goes; a rule allows GET below /allowed/ only.
    const CtlResult rules = ctl({u"--json"_s, u"rule"_s, u"ls"_s, m_box});
    for (const QJsonValue &v : QJsonDocument::fromJson(rules.out).array()) {
        const QJsonObject o = v.toObject();
        if (o.value("pattern"_L1).toString() == "api.test.example"_L1 && o.value("sandbox"_L1).toString() == m_box)
            QCOMPARE(ctl({u"rule"_s, u"rm"_s, QString::number(o.value("id"_L1).toInteger())}).exitCode, 0);
    }
    QCOMPARE(ctl({u"rule"_s, u"add"_s, u"--sandbox"_s, m_box, u"--action"_s, u"allow"_s, u"--host"_s, u"api.test.example"_s,
                  u"--method"_s, u"GET"_s, u"--path"_s, u"/allowed/*"_s}).exitCode, 0);
    QCOMPARE(statusOf(curlWithKey(u"https://api.test.example/allowed/1"_s)), QByteArray("200"));
    QCOMPARE(requestsTo("/allowed/1").value(0).header("x-api-key"), kRealKey);

    // A POST no rule answers waits in the guest while the person sees it with its method and path.
    const auto postInBackground = [this](const QString &path) {
        const CtlResult started = guestSh(u"sh -c 'curl -sS --max-time 60 -X POST -H \"x-api-key: $API_KEY\" -w \"\\n%{http_code}\" "
                                          "https://api.test.example%1 > /tmp/asked.out 2>&1' </dev/null >/dev/null 2>&1 &"_s.arg(path));
        QVERIFY2(started.exitCode == 0, started.err.constData());
    };
    const auto pendingFor = [this](const QString &path) -> qint64 {
        QElapsedTimer t;
        t.start();
        do {
            const CtlResult p = ctl({u"--json"_s, u"egress"_s, u"ls"_s, m_box, u"--pending"_s});
            for (const QJsonValue &v : QJsonDocument::fromJson(p.out).array()) {
                const QJsonObject o = v.toObject();
                if (o.value("path"_L1).toString() == path && o.value("method"_L1).toString() == "POST"_L1 && o.value("request"_L1).toBool())
                    return o.value("id"_L1).toInteger();
            }
            QTest::qWait(200);
        } while (t.elapsed() < 30000);
        return 0;
    };
    const auto guestAnswer = [this] {
        QElapsedTimer t;
        t.start();
        CtlResult out;
        do {
            out = guestSh(u"cat /tmp/asked.out"_s);
            if (out.out.trimmed().endsWith("200") || out.out.trimmed().endsWith("403"))
                break;
            QTest::qWait(300);
        } while (t.elapsed() < 30000);
        return out.out.trimmed();
    };
    postInBackground(u"/asked/1"_s);
    const qint64 first = pendingFor(u"/asked/1"_s);
    QVERIFY2(first > 0, m_daemon.log().right(3000).constData());
    QVERIFY(requestsTo("/asked/1").isEmpty()); // held: nothing of it upstream yet
    const CtlResult allowed = ctl({u"--json"_s, u"egress"_s, u"allow"_s, QString::number(first), u"--scope"_s, u"sandbox"_s});
    QVERIFY2(allowed.exitCode == 0, allowed.err.constData());
    QVERIFY2(guestAnswer().endsWith("200"), m_daemon.log().right(3000).constData());
    QCOMPARE(requestsTo("/asked/1").value(0).header("x-api-key"), kRealKey);
    // The decision made a rule of that request: the same POST passes now without asking.
    const CtlResult after = ctl({u"--json"_s, u"rule"_s, u"ls"_s, m_box});
    bool made = false;
    for (const QJsonValue &v : QJsonDocument::fromJson(after.out).array())
        made = made || (v.toObject().value("method"_L1).toString() == "POST"_L1 && v.toObject().value("path"_L1).toString() == "/asked/1"_L1);
    QVERIFY2(made, after.out.constData());
    QCOMPARE(statusOf(guestSh(u"curl -sS --max-time 20 -X POST -H \"x-api-key: $API_KEY\" -w '\\n%{http_code}' https://api.test.example/asked/1"_s)),
             QByteArray("200"));
    // Another path is asked again; denied, the guest gets a 403 and the upstream nothing.
    postInBackground(u"/asked/2"_s);
    const qint64 second = pendingFor(u"/asked/2"_s);
    QVERIFY(second > 0);
    QCOMPARE(ctl({u"egress"_s, u"deny"_s, QString::number(second)}).exitCode, 0);
    const QByteArray denied = guestAnswer();
    QVERIFY2(denied.endsWith("403") && denied.contains("Airlock blocked"), denied.constData());
    QVERIFY(requestsTo("/asked/2").isEmpty());
}

void TestSecretsVm::requestRulesAreReadOnAHostNoSecretIsBoundTo()
{
    // A sandbox that borrows nothing, started from a policy file: GET below /open/ allowed,
    // every POST denied on rules.test.example; other.test.example allowed as a whole host.
    const QString policy = m_dir.filePath(u"rules.yaml"_s);
    QFile file(policy);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("airlock_policy: 1\n"
               "rules:\n"
               "  - {action: allow, host: rules.test.example, method: GET, path: \"/open/*\"}\n"
               "  - {action: deny, host: rules.test.example, method: POST, path: \"/*\"}\n"
               "  - {action: allow, host: other.test.example}\n");
    file.close();
    const QString box = uniqueName(u"svmr"_s);
    const CtlResult created = ctl({u"create"_s, box, u"--memory"_s, u"256"_s, u"--policy"_s, policy, u"--start"_s});
    QVERIFY2(created.exitCode == 0, QByteArray(created.err + m_daemon.log().right(3000)).constData());
    const auto sh = [&](const QString &script) { return m_daemon.guestSh(box, script, 120000); };
    const CtlResult get = sh(u"curl -sS --max-time 60 -w '\\n%{http_code}' https://rules.test.example/open/1"_s);
    const CtlResult post = sh(u"curl -sS --max-time 60 -X POST -d x=1 -w '\\n%{http_code}' https://rules.test.example/open/2"_s);
    // A host with no request rule is relayed, not intercepted: the guest sees the real server's
    // certificate (from a CA it does not trust, hence -k), never one of its sandbox CA.
    const CtlResult other = sh(u"curl -sSk -v --max-time 60 -o /dev/null https://other.test.example/whole 2>&1"_s);
    const CtlResult events = ctl({u"--json"_s, u"egress"_s, u"ls"_s, box});
    // A fork gets a CA of its own for the same names (its origin's rules are its rules).
    const CtlResult snap = ctl({u"--json"_s, u"snapshot"_s, u"create"_s, box});
    const QString fork = uniqueName(u"svmrf"_s);
    const CtlResult forked = ctl({u"fork"_s, box, QString::number(QJsonDocument::fromJson(snap.out).object().value("id"_L1).toInteger()),
                                  fork, u"--start"_s});
    const CtlResult forkGet = m_daemon.guestSh(fork, u"curl -sS --max-time 60 -w '\\n%{http_code}' https://rules.test.example/open/fork"_s, 120000);
    const CtlResult forkCa = m_daemon.guestSh(fork, u"head -c 3000 /etc/ssl/certs/ca-certificates.crt"_s, 120000);
    const CtlResult originCa = sh(u"head -c 3000 /etc/ssl/certs/ca-certificates.crt"_s);
    ctl({u"kill"_s, fork}, {}, 120000);
    const CtlResult forkRemoved = ctl({u"rm"_s, fork}, {}, 120000);
    ctl({u"kill"_s, box}, {}, 120000);
    const CtlResult removed = ctl({u"rm"_s, box}, {}, 120000);

    QVERIFY2(statusOf(get) == "200", QByteArray(get.out + get.err + m_daemon.log().right(3000)).constData());
    QCOMPARE(requestsTo("/open/1").size(), 1);
    QVERIFY2(statusOf(post) == "403" && post.out.contains("Airlock blocked"), post.out.constData());
    QVERIFY(requestsTo("/open/2").isEmpty());
    QVERIFY2(other.exitCode == 0 && requestsTo("/whole").size() == 1, other.out.constData());
    QVERIFY2(!other.out.contains("Airlock sandbox"), other.out.constData());
    bool sawPost = false;
    for (const QJsonValue &v : QJsonDocument::fromJson(events.out).array()) {
        const QJsonObject o = v.toObject();
        sawPost = sawPost || (o.value("method"_L1).toString() == "POST"_L1 && o.value("path"_L1).toString() == "/open/2"_L1 &&
                              o.value("decision"_L1).toString() == "denied"_L1);
    }
    QVERIFY2(sawPost, events.out.constData());
    QVERIFY2(forked.exitCode == 0, QByteArray(snap.err + forked.err + m_daemon.log().right(3000)).constData());
    QVERIFY2(statusOf(forkGet) == "200", QByteArray(forkGet.out + forkGet.err).constData());
    QCOMPARE(requestsTo("/open/fork").size(), 1);
    QVERIFY(forkCa.out.startsWith("# Airlock sandbox CA") && originCa.out.startsWith("# Airlock sandbox CA"));
    QVERIFY2(forkCa.out != originCa.out, "the fork uses its origin's CA");
    QVERIFY2(forkRemoved.exitCode == 0, forkRemoved.err.constData());
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
}

void TestSecretsVm::withoutAnUnlockedVaultTheRequestsAreNotReadAndItIsSaid()
{
    // The CA's key is sealed by the vault: a sandbox made while it is locked gets none, is still
    // made, and the person is told which requests cannot be read.
    const QString policy = m_dir.filePath(u"rules.yaml"_s);
    const QString box = uniqueName(u"svml"_s);
    QCOMPARE(ctl({u"vault"_s, u"lock"_s}).exitCode, 0);
    const CtlResult created = ctl({u"create"_s, box, u"--policy"_s, policy});
    QCOMPARE(ctl({u"vault"_s, u"unlock"_s}, kPassphrase + '\n').exitCode, 0);
    QString message;
    for (const QJsonObject &a : alerts(3000))
        if (a.value("kind"_L1).toString() == "requests_unread"_L1 && a.value("sandbox"_L1).toString() == box)
            message = a.value("message"_L1).toString();
    const CtlResult removed = ctl({u"rm"_s, box}, {}, 120000);
    QVERIFY2(created.exitCode == 0, created.err.constData());
    QVERIFY2(message.contains("rules.test.example"_L1) && message.contains("vault"_L1), qPrintable(message));
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
}

QTEST_GUILESS_MAIN(TestSecretsVm)
#include "test_secretsvm.moc"
