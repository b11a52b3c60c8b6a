// The checkers a flow decided on a name is relayed through: the plain-HTTP one (every request
// head on the connection, bodies framed so the next head is found where the upstream finds
// it) and the TLS one (every ClientHello until a ServerHello that is not a HelloRetryRequest).
// Each stream is also fed one byte at a time: the answer must not depend on how it was split.
#include "httpstreamcheck.h"
#include "tlshandshakewatch.h"
#include "tlsrecords.h"

#include <QTest>

using namespace airlock;

namespace {

const QByteArray kGet = "GET / HTTP/1.1\r\nHost: a.example\r\n\r\n";

struct Outcome {
    bool ok = false;
    qint64 cleared = 0;
    QString error;
    QString unverified;
};

Outcome feedHttp(const QByteArray &stream, int piece)
{
    HttpStreamCheck check(QStringLiteral("a.example"), 80);
    bool ok = true;
    for (qsizetype i = 0; i < stream.size() && ok; i += piece)
        ok = check.client(QByteArrayView(stream).sliced(i, std::min<qsizetype>(piece, stream.size() - i)));
    return {ok, check.cleared(), check.error(), check.unverified()};
}

} // namespace

class TestStreamCheck : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void http_data();
    void http();
    void httpHoldsAnIncompleteHead();
    void httpAsksAboutEveryLaterHead();
    void tlsRetryRequestMeansASecondHelloIsChecked();
    void tlsRefusesAnotherSniAfterARetry();
    void tlsRefusesEncryptedNames_data();
    void tlsRefusesEncryptedNames();
    void tlsWithoutSniIsUnverified();
    void tlsUpstreamThatIsNotTlsIsRefused();
};

void TestStreamCheck::http_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<QString>("refusal");    // "" when the whole stream is cleared
    QTest::addColumn<QString>("unverified"); // part of the reason when something is opaque
    const QByteArray evil = "GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n";
    QTest::newRow("keep-alive") << kGet + kGet << QString() << QString();
    QTest::newRow("pipelined other host") << kGet + evil << QStringLiteral("request 2 on the connection: HTTP Host evil.example")
                                          << QString();
    QTest::newRow("port dialled and default") << QByteArray("GET / HTTP/1.1\r\nHost: a.example:80\r\n\r\n") << QString() << QString();
    QTest::newRow("other port") << QByteArray("GET / HTTP/1.1\r\nHost: a.example:8080\r\n\r\n") << QStringLiteral("port 8080")
                                << QString();
    QTest::newRow("blank lines then other host") << kGet + "\r\n\r\n" + evil << QStringLiteral("HTTP Host evil.example") << QString();
    QTest::newRow("lower-case method") << QByteArray("get / HTTP/1.1\r\nHost: evil.example\r\n\r\n")
                                       << QStringLiteral("HTTP Host evil.example") << QString();
    QTest::newRow("odd token method") << QByteArray("M-SEARCH * HTTP/1.1\r\nHost: evil.example\r\n\r\n")
                                      << QStringLiteral("* is only for OPTIONS") << QString();
    QTest::newRow("HTTP/1.0 without Host") << QByteArray("GET / HTTP/1.0\r\n\r\n") << QStringLiteral("without a Host") << QString();
    QTest::newRow("absolute-form elsewhere") << QByteArray("GET http://evil.example/ HTTP/1.1\r\nHost: a.example\r\n\r\n")
                                             << QStringLiteral("names evil.example") << QString();
    QTest::newRow("CONNECT") << QByteArray("CONNECT a.example:443 HTTP/1.1\r\nHost: a.example\r\n\r\n")
                             << QStringLiteral("neither a path") << QString(); // authority-form: not a target the parser takes
    QTest::newRow("TRACE") << QByteArray("TRACE / HTTP/1.1\r\nHost: a.example\r\n\r\n") << QStringLiteral("TRACE is refused") << QString();
    QTest::newRow("connect") << QByteArray("connect / HTTP/1.1\r\nHost: a.example\r\n\r\n") << QStringLiteral("connect is refused")
                             << QString();
    QTest::newRow("TRACK") << QByteArray("TRACK / HTTP/1.1\r\nHost: a.example\r\n\r\n") << QStringLiteral("TRACK is refused") << QString();
    QTest::newRow("body holds a request") << "POST / HTTP/1.1\r\nHost: a.example\r\nContent-Length: " +
                                                 QByteArray::number(evil.size()) + "\r\n\r\n" + evil + kGet
                                          << QString() << QString();
    QTest::newRow("chunked body then other host")
        << "POST / HTTP/1.1\r\nHost: a.example\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + evil
        << QStringLiteral("request 2 on the connection: HTTP Host evil.example") << QString();
    QTest::newRow("TE and CL") << "POST / HTTP/1.1\r\nHost: a.example\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + evil
                               << QStringLiteral("smuggling") << QString();
    QTest::newRow("xchunked") << "POST / HTTP/1.1\r\nHost: a.example\r\nTransfer-Encoding: xchunked\r\n\r\n" + evil
                              << QStringLiteral("exactly \"chunked\"") << QString();
    QTest::newRow("bad chunk") << "POST / HTTP/1.1\r\nHost: a.example\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" + evil
                               << QStringLiteral("malformed chunked") << QString();
    QTest::newRow("upgrade") << "GET /ws HTTP/1.1\r\nHost: a.example\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n" + evil
                             << QString() << QStringLiteral("protocol upgrade (websocket)");
    QTest::newRow("not http") << QByteArray("SSH-2.0-OpenSSH_9.2\r\n") << QString() << QStringLiteral("neither TLS nor HTTP");
    QTest::newRow("garbage after a request") << kGet + "\x16\x03\x01garbage\r\n\r\n" << QStringLiteral("malformed HTTP request")
                                             << QString();
}

void TestStreamCheck::http()
{
    QFETCH(QByteArray, stream);
    QFETCH(QString, refusal);
    QFETCH(QString, unverified);
    for (int piece : {int(stream.size()), 1, 7}) {
        const Outcome o = feedHttp(stream, piece);
        if (refusal.isEmpty()) {
            QVERIFY2(o.ok, qPrintable(o.error));
            QCOMPARE(o.cleared, stream.size());
        } else {
            QVERIFY(!o.ok);
            QVERIFY2(o.error.contains(refusal), qPrintable(o.error));
            QVERIFY2(o.cleared < stream.size() && !stream.mid(o.cleared).isEmpty(), "refused bytes were cleared");
        }
        QVERIFY2(unverified.isEmpty() ? o.unverified.isEmpty() : o.unverified.contains(unverified), qPrintable(o.unverified));
    }
}

void TestStreamCheck::httpHoldsAnIncompleteHead()
{
    // Nothing of a head is cleared before the head is complete and checked.
    HttpStreamCheck check(QStringLiteral("a.example"), 80);
    QVERIFY(check.client(kGet));
    QVERIFY(check.client("GET / HTTP/1.1\r\nHost: a.exam"));
    QCOMPARE(check.cleared(), kGet.size());
    QVERIFY(check.client("ple\r\n\r\n"));
    QCOMPARE(check.cleared(), 2 * kGet.size());
    QCOMPARE(check.requests(), 2);
    // A head that never ends is refused at the limit, not held for ever.
    HttpStreamCheck endless(QStringLiteral("a.example"), 80);
    QVERIFY(endless.client("GET / HTTP/1.1\r\n"));
    bool ok = true;
    for (int i = 0; i < 200 && ok; ++i)
        ok = endless.client(QByteArray("X-Filler: " + QByteArray(1000, 'x') + "\r\n"));
    QVERIFY(!ok);
    QVERIFY2(endless.error().contains(QLatin1String("larger than")), qPrintable(endless.error()));
    QCOMPARE(endless.cleared(), 0);
}

// A flow decided request by request: every head after the check is set is asked about, a
// body in between is not taken for a head, and a refused one clears nothing of itself.
void TestStreamCheck::httpAsksAboutEveryLaterHead()
{
    HttpStreamCheck check(QStringLiteral("a.example"), 80);
    QVERIFY(check.client(kGet));
    QStringList asked;
    check.setRequestCheck([&asked](const http::RequestHead &head) {
        asked << QString::fromLatin1(head.method + ' ' + head.target);
        return head.target.startsWith("/ok") ? QString() : QStringLiteral("no rule matches %1").arg(QString::fromLatin1(head.target));
    });
    const QByteArray post = "POST /ok/1 HTTP/1.1\r\nHost: a.example\r\nContent-Length: 30\r\n\r\nGET /admin HTTP/1.1 in a body\n";
    const QByteArray admin = "GET /admin HTTP/1.1\r\nHost: a.example\r\n\r\n";
    QVERIFY(check.client(post));
    QCOMPARE(check.cleared(), kGet.size() + post.size());
    QVERIFY(!check.client(admin));
    QCOMPARE(asked, QStringList({QStringLiteral("POST /ok/1"), QStringLiteral("GET /admin")}));
    QVERIFY2(check.error().contains(QLatin1String("no rule matches /admin")), qPrintable(check.error()));
    QCOMPARE(check.cleared(), kGet.size() + post.size());
}

void TestStreamCheck::tlsRetryRequestMeansASecondHelloIsChecked()
{
    TlsHandshakeWatch watch(QStringLiteral("a.example"));
    const QByteArray hello = tlstest::clientHello("a.example");
    QVERIFY(watch.client(hello));
    QCOMPARE(watch.cleared(), hello.size());
    QVERIFY(watch.wantsServer());
    // The HelloRetryRequest arrives in two pieces; then the client's CCS and second hello.
    const QByteArray retry = tlstest::serverHello(true);
    QVERIFY(watch.server(retry.left(9)));
    QVERIFY(watch.server(retry.mid(9)));
    QCOMPARE(watch.retries(), 1);
    QVERIFY(watch.wantsServer() && !watch.settled());
    const QByteArray again = tlstest::record(20, "\x01") + tlstest::clientHello("a.example");
    for (char c : again)
        QVERIFY(watch.client(QByteArrayView(&c, 1)));
    QCOMPARE(watch.hellos(), 2);
    QCOMPARE(watch.cleared(), hello.size() + again.size());
    QVERIFY(watch.server(QByteArray(tlstest::serverHello(false) + tlstest::record(23, "encrypted"))));
    QVERIFY(!watch.wantsServer());
    QVERIFY(watch.settled());
    // Settled: from here on nothing is looked at.
    QVERIFY(watch.client("anything at all"));
    QCOMPARE(watch.cleared(), hello.size() + again.size() + 15);
}

void TestStreamCheck::tlsRefusesAnotherSniAfterARetry()
{
    TlsHandshakeWatch watch(QStringLiteral("a.example"));
    QVERIFY(watch.client(tlstest::clientHello("a.example")));
    const qint64 cleared = watch.cleared();
    QVERIFY(watch.server(tlstest::serverHello(true)));
    QVERIFY(!watch.client(tlstest::clientHello("evil.example")));
    QVERIFY2(watch.error().contains(QLatin1String("after a HelloRetryRequest")) && watch.error().contains(QLatin1String("evil.example")),
             qPrintable(watch.error()));
    QCOMPARE(watch.cleared(), cleared);
    // A second hello sent without waiting for the answer is checked just the same.
    TlsHandshakeWatch eager(QStringLiteral("a.example"));
    QVERIFY(!eager.client(QByteArray(tlstest::clientHello("a.example") + tlstest::clientHello("evil.example"))));
    // And a handshake record that is not a ClientHello before the handshake settled.
    TlsHandshakeWatch odd(QStringLiteral("a.example"));
    QVERIFY(!odd.client(QByteArray(tlstest::clientHello("a.example") + tlstest::record(22, QByteArray("\x10\x00\x00\x01x", 5)))));
}

void TestStreamCheck::tlsRefusesEncryptedNames_data()
{
    QTest::addColumn<int>("extension");
    QTest::addColumn<QString>("name");
    QTest::newRow("ECH") << 0xfe0d << QStringLiteral("Encrypted Client Hello");
    QTest::newRow("ECH draft") << 0xfe0a << QStringLiteral("Encrypted Client Hello");
    QTest::newRow("ESNI") << 0xffce << QStringLiteral("ESNI");
}

void TestStreamCheck::tlsRefusesEncryptedNames()
{
    QFETCH(int, extension);
    QFETCH(QString, name);
    TlsHandshakeWatch watch(QStringLiteral("a.example"));
    QVERIFY(!watch.client(tlstest::clientHello("a.example", {{quint16(extension), QByteArray(40, 'e')}})));
    QVERIFY2(watch.error().contains(name) && watch.error().contains(QLatin1String("cannot check")), qPrintable(watch.error()));
    QCOMPARE(watch.cleared(), 0);
}

void TestStreamCheck::tlsWithoutSniIsUnverified()
{
    TlsHandshakeWatch watch(QStringLiteral("a.example"));
    QVERIFY(watch.client(tlstest::clientHello({})));
    QVERIFY2(watch.unverified().contains(QLatin1String("without SNI")), qPrintable(watch.unverified()));
}

void TestStreamCheck::tlsUpstreamThatIsNotTlsIsRefused()
{
    TlsHandshakeWatch watch(QStringLiteral("a.example"));
    QVERIFY(watch.client(tlstest::clientHello("a.example")));
    QVERIFY(!watch.server("HTTP/1.1 400 Bad Request\r\n\r\n"));
    TlsHandshakeWatch data(QStringLiteral("a.example"));
    QVERIFY(data.client(tlstest::clientHello("a.example")));
    QVERIFY(!data.server(tlstest::record(23, "early")));
}

QTEST_GUILESS_MAIN(TestStreamCheck)
#include "test_streamcheck.moc"
