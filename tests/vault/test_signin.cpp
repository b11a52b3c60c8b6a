// A sign-in through the interceptor with real TLS on loopback: curl (trusting only the
// sandbox CA, as the guest does) signs in at a stand-in token endpoint, calls a stand-in API
// with what it was given, refreshes, and calls again. The stand-ins record what reached them:
// the real tokens go upstream, the guest only ever holds placeholders, and the vault lists
// the login's tokens with their expiry.
#include "core/loginspec.h"
#include "guestfront.h"
#include "interceptor.h"
#include "support.h"
#include "tlstestserver.h"
#include "vault.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <mutex>
#include <openssl/x509.h>

using namespace airlock;
using namespace Qt::StringLiterals;

namespace {

const QByteArray kPass = "sign-in passphrase";
const char *kLogin = R"({"token_urls": ["https://token.signin.test/v1/oauth/token"], "expires_in": "expires_in", "tokens": [{"field": "access_token", "name": "access", "hosts": ["api.signin.test"], "header": "Authorization: Bearer {}"},            {"field": "refresh_token", "name": "refresh", "sent_in": ["refresh_token"]}]})";

// The stand-in issuer: every grant answers fresh tokens of one length (a real issuer's are).
struct Issuer {
    std::mutex mutex;
    int round = 0;
    QList<QByteArray> refreshTokensSeen; // what reached the endpoint in refresh_token
    QByteArray access(int n) const { return "sk-ant-oat01-REAL-access-" + QByteArray::number(n).rightJustified(4, '0') + "-abcdefghij"; }
    QByteArray refresh(int n) const { return "sk-ant-ort01-REAL-refresh-" + QByteArray::number(n).rightJustified(4, '0') + "-klmnopqrs"; }

    QByteArray answer(const TlsTestServer::Request &r)
    {
        std::lock_guard lock(mutex);
        const QJsonObject body = QJsonDocument::fromJson(r.body).object();
        QByteArray json;
        if (r.target == "/v1/oauth/token") {
            if (body.value("grant_type"_L1) == "refresh_token"_L1) {
                refreshTokensSeen << body.value("refresh_token"_L1).toString().toLatin1();
                if (refreshTokensSeen.last() != refresh(round))
                    return reply(400, R"({"error":"invalid_grant"})");
            }
            ++round;
            json = R"({"token_type":"Bearer","access_token":")" + access(round) + R"(","refresh_token":")" + refresh(round) +
                   R"(","expires_in":3600,"scope":"user:inference"})";
            // A refresh's answer comes chunked, split inside a token: the broker reads it whole either way.
            return body.value("grant_type"_L1) == "refresh_token"_L1 ? chunked(200, json) : reply(200, json);
        }
        // The API: says whose token it got.
        const bool good = r.header("authorization") == "Bearer " + access(round);
        return reply(good ? 200 : 401, good ? R"({"ok":true})" : R"({"error":"unauthorized"})");
    }
    static QByteArray chunked(int status, const QByteArray &json)
    {
        const qsizetype half = json.size() / 2; // inside the access token
        const auto chunk = [](const QByteArray &part) -> QByteArray { return QByteArray::number(part.size(), 16) + ";ext=1\r\n" + part + "\r\n"; };
        return "HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
               chunk(json.left(half)) + chunk(json.mid(half)) + "0\r\nX-Trailer: t\r\n\r\n";
    }
    static QByteArray reply(int status, const QByteArray &json)
    {
        return "HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: application/json\r\nContent-Length: " +
               QByteArray::number(json.size()) + "\r\n\r\n" + json;
    }
};

struct Curl {
    int code = -1;
    QByteArray out;
    QByteArray err;
};

} // namespace

class TestSignIn : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void aSignInLeavesOnlyPlaceholdersInTheGuest();
    void theAccessTokenReachesItsApiAsTheRealValue();
    void aRefreshSendsTheRealRefreshTokenAndCapturesTheNewOnes();
    void aPlaceholderSentBackAnywhereElseIsRefused_data();
    void aPlaceholderSentBackAnywhereElseIsRefused();
    void theVaultListsTheLoginsTokens();
    void aLaterSandboxStartsSignedInUnderPlaceholdersOfItsOwn();
    void anotherUsersSandboxBorrowsNoneOfIt();
    void aTokenAnswerToAnotherMethodIsCapturedToo();
    void pythonSignsInAndRefreshesOnOneConnection();

private:
    Curl curl(const QStringList &args, const Front *front = nullptr, const QString &caFile = {});
    Result<LoginSpec> spec() const { return LoginSpec::fromJson(u"cli"_s, QJsonDocument::fromJson(kLogin).object(), u"test"_s); }
    QByteArray tokenField(const QByteArray &json, const char *field) const
    {
        return QJsonDocument::fromJson(json).object().value(QLatin1String(field)).toString().toLatin1();
    }

    QTemporaryDir m_dir;
    std::unique_ptr<Vault> m_vault;
    std::unique_ptr<TestPki> m_pki;
    std::unique_ptr<TlsTestServer> m_upstream;
    std::unique_ptr<Interceptor> m_interceptor;
    std::unique_ptr<Front> m_front;
    Issuer m_issuer;
    QString m_caFile;
    QByteArray m_accessPh;
    QByteArray m_refreshPh;
    std::mutex m_eventsMutex;
    QList<InterceptEvent> m_events;
};

void TestSignIn::initTestCase()
{
    ::signal(SIGPIPE, SIG_IGN);
    const QString db = m_dir.filePath(u"airlock.db"_s);
    m_vault = std::make_unique<Vault>(db);
    QVERIFY(m_vault->open());
    QVERIFY(m_vault->init(kPass));
    const qint64 box = testsupport::addSandbox(db, u"signer"_s);
    Result<LoginSpec> spec = LoginSpec::fromJson(u"cli"_s, QJsonDocument::fromJson(kLogin).object(), u"test"_s);
    QVERIFY(spec);
    QVERIFY(m_vault->bindLogin(box, *spec));
    auto pem = m_vault->issueSandboxCa(box); // name-constrained to the login's hosts
    QVERIFY2(pem, qPrintable(pem.error().message()));
    m_caFile = m_dir.filePath(u"sandbox-ca.pem"_s);
    QVERIFY(testsupport::writeFile(m_caFile, pem.value()));

    m_pki = std::make_unique<TestPki>();
    X509 *cert = nullptr;
    EVP_PKEY *key = nullptr;
    m_pki->issue({"token.signin.test", "api.signin.test"}, &cert, &key);
    m_upstream = std::make_unique<TlsTestServer>(cert, key);
    X509_free(cert);
    EVP_PKEY_free(key);
    m_upstream->setResponder([this](const TlsTestServer::Request &r) { return m_issuer.answer(r); });
    const QString upstreamCa = m_dir.filePath(u"upstream-ca.pem"_s);
    QVERIFY(testsupport::writeFile(upstreamCa, m_pki->caPem()));

    Interceptor::Options options;
    options.extraCaFile = upstreamCa;
    m_interceptor = std::make_unique<Interceptor>(*m_vault, options, [this](const InterceptEvent &e) {
        std::lock_guard lock(m_eventsMutex);
        m_events.append(e);
    });
    QVERIFY(m_interceptor->init());
    const quint16 port = m_upstream->port();
    m_front = std::make_unique<Front>(*m_interceptor, u"signer"_s, [port](const QString &sni) {
        return UpstreamAddress{sni, QHostAddress(QHostAddress::LocalHost), port};
    });
    // Before any sign-in, both hosts are intercepted: the CA and the proxy know the login.
    QVERIFY(m_interceptor->needsInterception(u"signer"_s, u"token.signin.test"_s));
    QVERIFY(m_interceptor->needsInterception(u"signer"_s, u"api.signin.test"_s));
}

void TestSignIn::cleanupTestCase()
{
    m_front.reset();
    m_interceptor.reset();
    m_upstream.reset();
}

Curl TestSignIn::curl(const QStringList &args, const Front *front, const QString &caFile)
{
    QProcess p;
    const QString port = QString::number((front ? front : m_front.get())->port());
    p.start(u"curl"_s, QStringList{u"-sS"_s, u"--cacert"_s, caFile.isEmpty() ? m_caFile : caFile, u"--resolve"_s, u"token.signin.test:"_s + port + u":127.0.0.1"_s,
                                   u"--resolve"_s, u"api.signin.test:"_s + port + u":127.0.0.1"_s, u"--max-time"_s, u"20"_s} + args);
    p.waitForFinished(30000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

void TestSignIn::aSignInLeavesOnlyPlaceholdersInTheGuest()
{
    const Curl r = curl({u"-H"_s, u"Content-Type: application/json"_s, u"--data"_s,
                         uR"({"grant_type":"authorization_code","code":"the-code","code_verifier":"v"})"_s,
                         u"https://token.signin.test:%1/v1/oauth/token"_s.arg(m_front->port())});
    QVERIFY2(r.code == 0, r.err.constData());
    m_accessPh = tokenField(r.out, "access_token");
    QVERIFY2(!m_accessPh.isEmpty(), r.out.constData()); // an error answer says why
    m_refreshPh = tokenField(r.out, "refresh_token");
    QCOMPARE(m_accessPh.size(), m_issuer.access(1).size());
    QCOMPARE(m_refreshPh.size(), m_issuer.refresh(1).size());
    QVERIFY(!r.out.contains("REAL"));
    QCOMPARE(QJsonDocument::fromJson(r.out).object().value("scope"_L1).toString(), u"user:inference"_s);
    // The record the person at the desktop sees says what happened.
    QTRY_VERIFY([this] {
        std::lock_guard lock(m_eventsMutex);
        return !m_events.isEmpty() && m_events.last().allowed &&
               m_events.last().reason.contains("the tokens cli.access, cli.refresh are kept in the vault"_L1);
    }());
}

void TestSignIn::theAccessTokenReachesItsApiAsTheRealValue()
{
    QVERIFY(!m_accessPh.isEmpty());
    const Curl r = curl({u"-H"_s, u"Authorization: Bearer "_s + QString::fromLatin1(m_accessPh),
                         u"https://api.signin.test:%1/v1/me"_s.arg(m_front->port())});
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(r.out, QByteArray(R"({"ok":true})"));
    QCOMPARE(m_upstream->requests().last().header("authorization"), "Bearer " + m_issuer.access(1));
}

void TestSignIn::aRefreshSendsTheRealRefreshTokenAndCapturesTheNewOnes()
{
    QVERIFY(!m_refreshPh.isEmpty());
    const QString token = u"https://token.signin.test:%1/v1/oauth/token"_s.arg(m_front->port());
    const QString api = u"https://api.signin.test:%1/v1/me"_s.arg(m_front->port());
    // One keep-alive connection: the refresh, then a call with the new access token.
    const Curl r = curl({u"-H"_s, u"Content-Type: application/json"_s, u"--data"_s,
                         uR"({"grant_type":"refresh_token","refresh_token":"%1","client_id":"c"})"_s.arg(QString::fromLatin1(m_refreshPh)), token});
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY2(!r.out.contains("REAL") && !r.out.contains("invalid_grant"), r.out.constData());
    QCOMPARE(m_issuer.refreshTokensSeen.last(), m_issuer.refresh(1)); // the real one, not the placeholder
    // The guest's placeholders stay what it has (same lengths), and now stand for round 2.
    QCOMPARE(tokenField(r.out, "access_token"), m_accessPh);
    QCOMPARE(tokenField(r.out, "refresh_token"), m_refreshPh);
    const Curl again = curl({u"-H"_s, u"Authorization: Bearer "_s + QString::fromLatin1(m_accessPh), api});
    QCOMPARE(again.out, QByteArray(R"({"ok":true})"));
    QCOMPARE(m_upstream->requests().last().header("authorization"), "Bearer " + m_issuer.access(2));
}

void TestSignIn::aPlaceholderSentBackAnywhereElseIsRefused_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("body"); // REFRESH, ACCESS: where the tokens' placeholders go
    QTest::newRow("refresh to the API") << u"api.signin.test"_s << uR"({"refresh_token":"REFRESH"})"_s;
    QTest::newRow("in another field") << u"token.signin.test"_s << uR"({"grant_type":"refresh_token","state":"REFRESH"})"_s;
    QTest::newRow("nested") << u"token.signin.test"_s << uR"({"grant_type":"refresh_token","x":{"refresh_token":"REFRESH"}})"_s;
    QTest::newRow("access as refresh") << u"token.signin.test"_s << uR"({"grant_type":"refresh_token","refresh_token":"ACCESS"})"_s;
}

void TestSignIn::aPlaceholderSentBackAnywhereElseIsRefused()
{
    QFETCH(QString, host);
    QFETCH(QString, body);
    const qsizetype before = m_upstream->requests().size();
    const QString path = host.startsWith("token"_L1) ? u"/v1/oauth/token"_s : u"/v1/me"_s;
    const Curl r = curl({u"-H"_s, u"Content-Type: application/json"_s, u"--data"_s,
                         body.replace("REFRESH"_L1, QString::fromLatin1(m_refreshPh)).replace("ACCESS"_L1, QString::fromLatin1(m_accessPh)),
                         u"-w"_s, u"%{http_code}"_s, u"https://%1:%2%3"_s.arg(host).arg(m_front->port()).arg(path)});
    QVERIFY(r.out.endsWith("403"));
    QCOMPARE(m_upstream->requests().size(), before); // nothing reached upstream
}

void TestSignIn::theVaultListsTheLoginsTokens()
{
    Result<QList<SecretInfo>> all = m_vault->secrets(0);
    QVERIFY(all);
    QCOMPARE(all->size(), 2);
    const SecretInfo &access = all->at(0), &refresh = all->at(1);
    QCOMPARE(access.name, u"cli.access"_s);
    QCOMPARE(access.login, u"cli"_s);
    QCOMPARE(access.hosts, QStringList{u"api.signin.test"_s});
    QCOMPARE(access.usedBy, QStringList{u"signer"_s});
    const QDateTime expires = QDateTime::fromString(access.expires, Qt::ISODate);
    QVERIFY(qAbs(QDateTime::currentDateTimeUtc().secsTo(expires) - 3600) < 120);
    QCOMPARE(refresh.name, u"cli.refresh"_s);
    QCOMPARE(refresh.hosts, QStringList{u"token.signin.test"_s}); // sent back only to the token URL
    QVERIFY(refresh.expires.isEmpty());
    // The database (and its write-ahead log) holds the real tokens sealed only.
    for (const QString &name : {u"airlock.db"_s, u"airlock.db-wal"_s}) {
        QFile file(m_dir.filePath(name));
        if (file.open(QIODevice::ReadOnly))
            QVERIFY2(!file.readAll().contains("REAL"), qPrintable(name));
    }
}

// A sandbox made after the sign-in borrows its tokens under placeholders of its own, and its
// CLI's credentials file is written with those: the API gets the real (latest) token.
void TestSignIn::aLaterSandboxStartsSignedInUnderPlaceholdersOfItsOwn()
{
    Result<LoginSpec> login = spec();
    QVERIFY(login);
    login->credentialsFile = LoginFile::fromJson(QJsonDocument::fromJson(R"({"path": "/root/.cli/auth.json", "json": {"auth": {
        "access": {"$token": "access"}, "refresh": {"$token": "refresh"}, "expires_ms": {"$expires_ms": "access"}}}})").object(),
                                                 login->tokens, u"test"_s).value();
    const qint64 later = testsupport::addSandbox(m_dir.filePath(u"airlock.db"_s), u"later"_s);
    QVERIFY(m_vault->bindLogin(later, *login));
    const Result<int> lent = m_vault->lendLoginTokens(later, *login, 0);
    QVERIFY2(lent, qPrintable(lent.error().message()));
    QCOMPARE(lent.value(), 2);
    const auto held = m_vault->heldLoginTokens(u"later"_s, *login);
    QVERIFY(held);
    const QByteArray access = held->value(u"access"_s).placeholder, refresh = held->value(u"refresh"_s).placeholder;
    QCOMPARE(access.size(), m_accessPh.size());
    QVERIFY(access != m_accessPh && refresh != m_refreshPh); // the signer's placeholders mean nothing here
    QVERIFY(held->value(u"access"_s).expires.isValid());

    const std::optional<QByteArray> file = login->credentialsFile->render(*held, QDateTime::currentDateTimeUtc());
    QVERIFY(file);
    const QJsonObject auth = QJsonDocument::fromJson(*file).object().value("auth"_L1).toObject();
    QCOMPARE(auth.value("access"_L1).toString().toLatin1(), access);
    QCOMPARE(auth.value("refresh"_L1).toString().toLatin1(), refresh);
    QCOMPARE(qint64(auth.value("expires_ms"_L1).toDouble()), held->value(u"access"_s).expires.toMSecsSinceEpoch());
    QVERIFY(!file->contains("REAL"));

    auto pem = m_vault->issueSandboxCa(later);
    QVERIFY(pem);
    const QString caFile = m_dir.filePath(u"later-ca.pem"_s);
    QVERIFY(testsupport::writeFile(caFile, pem.value()));
    const quint16 port = m_upstream->port();
    Front front(*m_interceptor, u"later"_s, [port](const QString &sni) { return UpstreamAddress{sni, QHostAddress(QHostAddress::LocalHost), port}; });
    const Curl r = curl({u"-H"_s, u"Authorization: Bearer "_s + QString::fromLatin1(access), u"https://api.signin.test:%1/v1/me"_s.arg(front.port())},
                        &front, caFile);
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(r.out, QByteArray(R"({"ok":true})"));
    QCOMPARE(m_upstream->requests().last().header("authorization"), "Bearer " + m_issuer.access(m_issuer.round));
    // Its refresh sends the real refresh token too, and the new tokens serve both sandboxes.
    const Curl refreshed = curl({u"-H"_s, u"Content-Type: application/json"_s, u"--data"_s,
                                 uR"({"grant_type":"refresh_token","refresh_token":"%1"})"_s.arg(QString::fromLatin1(refresh)),
                                 u"https://token.signin.test:%1/v1/oauth/token"_s.arg(front.port())},
                                &front, caFile);
    QVERIFY2(refreshed.code == 0 && !refreshed.out.contains("REAL"), refreshed.out.constData());
    QCOMPARE(m_issuer.refreshTokensSeen.last(), m_issuer.refresh(m_issuer.round - 1));
    const Curl signer = curl({u"-H"_s, u"Authorization: Bearer "_s + QString::fromLatin1(m_accessPh), u"https://api.signin.test:%1/v1/me"_s.arg(m_front->port())});
    QCOMPARE(signer.out, QByteArray(R"({"ok":true})"));
    QCOMPARE(m_upstream->requests().last().header("authorization"), "Bearer " + m_issuer.access(m_issuer.round));
}

// Tokens are their owner's: a sandbox of another user starts signed out.
void TestSignIn::anotherUsersSandboxBorrowsNoneOfIt()
{
    Result<LoginSpec> login = spec();
    QVERIFY(login);
    auto store = Store::open(m_dir.filePath(u"airlock.db"_s));
    QVERIFY(store);
    const qint64 stranger = testsupport::insertSandbox(*store, u"stranger"_s, 1000);
    QVERIFY(stranger > 0);
    const Result<int> lent = m_vault->lendLoginTokens(stranger, *login, 1000);
    QVERIFY(lent);
    QCOMPARE(lent.value(), 0);
    QVERIFY(m_vault->heldLoginTokens(u"stranger"_s, *login)->isEmpty());
}

// The stand-in issues tokens to any method, as a lax issuer might: the guest still gets placeholders.
void TestSignIn::aTokenAnswerToAnotherMethodIsCapturedToo()
{
    const Curl r = curl({u"-X"_s, u"PUT"_s, u"-H"_s, u"Content-Type: application/json"_s, u"--data"_s,
                         uR"({"grant_type":"authorization_code","code":"again"})"_s,
                         u"https://token.signin.test:%1/v1/oauth/token"_s.arg(m_front->port())});
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY2(!r.out.contains("REAL") && !tokenField(r.out, "access_token").isEmpty(), r.out.constData());
}

// The same flow from Python's http.client (one keep-alive connection per host) and urllib.
void TestSignIn::pythonSignsInAndRefreshesOnOneConnection()
{
    const qsizetype before = m_upstream->requests().size();
    QProcess p;
    p.start(u"python3"_s, {QStringLiteral(AIRLOCK_SOURCE_DIR "/tests/vault/python_client.py"), u"--front"_s,
                           QString::number(m_front->port()), u"--cafile"_s, m_caFile, u"signin"_s,
                           u"https://token.signin.test/v1/oauth/token"_s, u"https://api.signin.test/v1/me"_s});
    QVERIFY2(p.waitForFinished(60000) && p.exitCode() == 0, p.readAllStandardError().constData());
    const QByteArray out = p.readAllStandardOutput();
    QVERIFY2(!out.contains("REAL"), out.constData()); // placeholders only, in every answer
    const QByteArray ok = "200, \"{\\\"ok\\\":true}\""; // json.dumps of [200, '{"ok":true}']
    QCOMPARE(out.count(ok), 3); // two http.client calls and urllib's
    const QList<TlsTestServer::Request> got = m_upstream->requests().mid(before);
    QCOMPARE(got.size(), 5);
    QCOMPARE(got[0].connection, got[2].connection);              // the sign-in and the refresh: one connection
    QCOMPARE(m_issuer.refreshTokensSeen.last(), m_issuer.refresh(m_issuer.round - 1)); // the real one
    QCOMPARE(got[4].header("authorization"), "Bearer " + m_issuer.access(m_issuer.round));
}

QTEST_GUILESS_MAIN(TestSignIn)
#include "test_signin.moc"
