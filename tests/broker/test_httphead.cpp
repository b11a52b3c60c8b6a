// The HTTP/1.x request head parser: heads as curl, npm and pip send them, fed whole and byte by
// byte; the limits; smuggling shapes; and the serializer used to rewrite headers.
#include "httphead.h"

#include <QTest>

using namespace airlock::http;
using Status = HeadResult::Status;

namespace {

const QByteArray kCurl = "GET /simple/requests/ HTTP/1.1\r\n"
                         "Host: pypi.org\r\n"
                         "User-Agent: curl/7.88.1\r\n"
                         "Accept: */*\r\n"
                         "\r\n";

const QByteArray kNpm = "POST /-/npm/v1/security/advisories/bulk HTTP/1.1\r\n"
                        "user-agent: npm/9.2.0 node/v18.19.0 linux x64 workspaces/false\r\n"
                        "npm-command: install\r\n"
                        "content-type: application/json\r\n"
                        "content-length: 2\r\n"
                        "Accept-Encoding: gzip,deflate\r\n"
                        "Host: registry.npmjs.org:443\r\n"
                        "Connection: keep-alive\r\n"
                        "\r\n"
                        "{}";

HeadResult parseExact(const QByteArray &bytes, qsizetype n)
{
    std::unique_ptr<char[]> copy(new char[size_t(std::max<qsizetype>(n, 1))]);
    std::memcpy(copy.get(), bytes.constData(), size_t(n));
    return parseRequestHead(std::span<const char>(copy.get(), size_t(n)));
}

} // namespace

class TestHttpHead : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesCurl();
    void parsesNpmWithBodyAfterTheHead();
    void everyPrefixNeedsMore();
    void refusesBareLfSkipsLeadingCrlfs();
    void http10WithoutHostIsRefused();
    void methodsAndTargets_data();
    void methodsAndTargets();
    void looksLikeRequest_data();
    void looksLikeRequest();
    void hostForms_data();
    void hostForms();
    void invalid_data();
    void invalid();
    void limits();
    void serializeRoundTrip();
    void rewriteHeader();
};

void TestHttpHead::parsesCurl()
{
    const HeadResult r = parseRequestHead(kCurl);
    QCOMPARE(r.status, Status::Complete);
    QCOMPARE(r.head.method, QByteArray("GET"));
    QCOMPARE(r.head.target, QByteArray("/simple/requests/"));
    QCOMPARE(r.head.version, QByteArray("HTTP/1.1"));
    QCOMPARE(r.head.host, QStringLiteral("pypi.org"));
    QCOMPARE(r.head.hostPort, 0);
    QCOMPARE(r.head.headers.size(), 3);
    QCOMPARE(r.head.headers.at(1), (Header{"User-Agent", "curl/7.88.1"}));
    QCOMPARE(r.head.header("user-agent"), QByteArray("curl/7.88.1"));
    QCOMPARE(r.head.headEnd, kCurl.size());
}

void TestHttpHead::parsesNpmWithBodyAfterTheHead()
{
    const HeadResult r = parseRequestHead(kNpm);
    QCOMPARE(r.status, Status::Complete);
    QCOMPARE(r.head.host, QStringLiteral("registry.npmjs.org"));
    QCOMPARE(r.head.hostPort, 443);
    QCOMPARE(kNpm.mid(r.head.headEnd), QByteArray("{}"));
    QCOMPARE(r.head.headers.first().name, QByteArray("user-agent")); // order and case kept
}

void TestHttpHead::everyPrefixNeedsMore()
{
    const qsizetype headLen = kNpm.size() - 2;
    for (qsizetype n = 0; n < headLen; ++n) {
        const HeadResult r = parseExact(kNpm, n);
        QVERIFY2(r.status == Status::NeedMore, qPrintable(QStringLiteral("prefix %1: %2").arg(n).arg(r.error)));
    }
    QCOMPARE(parseExact(kNpm, headLen).status, Status::Complete);
}

void TestHttpHead::refusesBareLfSkipsLeadingCrlfs()
{
    // A few CRLFs before the request line are skipped, and the request after them is the one parsed.
    HeadResult r = parseRequestHead(QByteArray("\r\n\r\nGET / HTTP/1.1\r\nHost: a.example\r\n\r\n"));
    QCOMPARE(r.status, Status::Complete);
    QCOMPARE(r.head.host, QStringLiteral("a.example"));
    QCOMPARE(r.head.headEnd, 4 + 35);
    // More than kMaxBlankLines are refused, not skipped: no upstream may start reading elsewhere.
    r = parseRequestHead(QByteArray("\r\n").repeated(kMaxBlankLines + 1) + "GET / HTTP/1.1\r\nHost: a.example\r\n\r\n");
    QCOMPARE(r.status, Status::Invalid);
    // A bare LF anywhere: before the request, ending the request line, a header or the head.
    for (const QByteArray &head : {QByteArray("\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"), QByteArray("GET / HTTP/1.1\nHost: a\r\n\r\n"),
                                   QByteArray("GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n"), QByteArray("GET / HTTP/1.1\r\nHost: a\r\n\n")}) {
        r = parseRequestHead(head);
        QCOMPARE(r.status, Status::Invalid);
        QVERIFY2(r.error.contains(QLatin1String("bare LF")), qPrintable(r.error));
    }
}

void TestHttpHead::http10WithoutHostIsRefused()
{
    // Without Host nothing says where the request goes: the broker could not check it.
    const HeadResult r = parseRequestHead(QByteArray("GET / HTTP/1.0\r\n\r\n"));
    QCOMPARE(r.status, Status::Invalid);
    QVERIFY2(r.error.contains(QLatin1String("without a Host")), qPrintable(r.error));
    QCOMPARE(parseRequestHead(QByteArray("GET / HTTP/1.0\r\nHost: a.example\r\n\r\n")).status, Status::Complete);
}

void TestHttpHead::methodsAndTargets_data()
{
    QTest::addColumn<QByteArray>("line");  // the request line; Host is a.example
    QTest::addColumn<QString>("refusal");  // "" when it parses
    QTest::newRow("lower-case method") << QByteArray("get / HTTP/1.1") << QString();
    QTest::newRow("odd token method") << QByteArray("M-SEARCH9 / HTTP/1.1") << QString();
    QTest::newRow("absolute same host") << QByteArray("GET http://a.example/x HTTP/1.1") << QString();
    QTest::newRow("absolute default port") << QByteArray("GET HTTP://A.example:80/ HTTP/1.1") << QString();
    QTest::newRow("options star") << QByteArray("OPTIONS * HTTP/1.1") << QString();
    QTest::newRow("absolute other host") << QByteArray("GET http://other.example/ HTTP/1.1") << QStringLiteral("names other.example but Host");
    QTest::newRow("absolute other port") << QByteArray("GET http://a.example:8080/ HTTP/1.1") << QStringLiteral("but Host");
    QTest::newRow("absolute userinfo") << QByteArray("GET http://a.example@other.example/ HTTP/1.1") << QStringLiteral("user information");
    QTest::newRow("absolute no host") << QByteArray("GET http:///x HTTP/1.1") << QStringLiteral("empty");
    QTest::newRow("other scheme") << QByteArray("GET ftp://a.example/ HTTP/1.1") << QStringLiteral("neither a path");
    QTest::newRow("bare authority") << QByteArray("GET other.example/x HTTP/1.1") << QStringLiteral("neither a path");
    QTest::newRow("star with GET") << QByteArray("GET * HTTP/1.1") << QStringLiteral("only for OPTIONS");
    QTest::newRow("non-ASCII target") << QByteArray("GET /\xc3\xa9 HTTP/1.1") << QStringLiteral("non-ASCII");
}

void TestHttpHead::methodsAndTargets()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, refusal);
    const HeadResult r = parseRequestHead(line + "\r\nHost: a.example\r\n\r\n");
    if (refusal.isEmpty()) {
        QVERIFY2(r.status == Status::Complete, qPrintable(r.error));
        QCOMPARE(r.head.host, QStringLiteral("a.example"));
    } else {
        QCOMPARE(r.status, Status::Invalid);
        QVERIFY2(r.error.contains(refusal), qPrintable(r.error));
    }
}

void TestHttpHead::looksLikeRequest_data()
{
    QTest::addColumn<QByteArray>("start");
    QTest::addColumn<int>("looks");
    const int no = int(Looks::No), maybe = int(Looks::Maybe), yes = int(Looks::Yes);
    QTest::newRow("empty") << QByteArray() << maybe;
    QTest::newRow("method prefix") << QByteArray("GE") << maybe;
    QTest::newRow("version prefix") << QByteArray("GET / HTTP/1") << maybe;
    QTest::newRow("request line") << QByteArray("GET / HTTP/1.1\r") << yes;
    QTest::newRow("bare LF line") << QByteArray("get /x HTTP/1.0\n") << yes;
    QTest::newRow("after CRLFs") << QByteArray("\r\n\r\nM-SEARCH * HTTP/1.1\r\n") << yes;
    QTest::newRow("lone CR") << QByteArray("\r") << maybe;
    QTest::newRow("CR then junk") << QByteArray("\rX") << no;
    QTest::newRow("ssh banner") << QByteArray("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n") << no;
    QTest::newRow("redis") << QByteArray("PING\r\n") << no;
    QTest::newRow("binary") << QByteArray("\x00\x00\x00\x08\x04\xd2\x16\x2f", 8) << no;
    QTest::newRow("http2 preface") << QByteArray("PRI * HTTP/2.0\r\n") << no;
    QTest::newRow("huge method") << QByteArray(100, 'A') << yes;
}

void TestHttpHead::looksLikeRequest()
{
    QFETCH(QByteArray, start);
    QFETCH(int, looks);
    QCOMPARE(int(airlock::http::looksLikeRequest(start)), looks);
}

void TestHttpHead::hostForms_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::newRow("plain") << QByteArray("Example.COM") << QStringLiteral("example.com") << 0;
    QTest::newRow("port") << QByteArray("example.com:8080") << QStringLiteral("example.com") << 8080;
    QTest::newRow("trailing dot") << QByteArray("example.com.") << QStringLiteral("example.com") << 0;
    QTest::newRow("ipv4") << QByteArray("192.0.2.1:80") << QStringLiteral("192.0.2.1") << 80;
    QTest::newRow("ipv6") << QByteArray("[2001:db8::1]:443") << QStringLiteral("2001:db8::1") << 443;
}

void TestHttpHead::hostForms()
{
    QFETCH(QByteArray, value);
    QFETCH(QString, host);
    QFETCH(int, port);
    const HeadResult r = parseRequestHead("GET / HTTP/1.1\r\nHost: " + value + "\r\n\r\n");
    QCOMPARE(r.status, Status::Complete);
    QCOMPARE(r.head.host, host);
    QCOMPARE(r.head.hostPort, port);
}

void TestHttpHead::invalid_data()
{
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<QString>("reason");
    QTest::newRow("no host 1.1") << QByteArray("GET / HTTP/1.1\r\n\r\n") << QStringLiteral("without a Host");
    QTest::newRow("two hosts") << QByteArray("GET / HTTP/1.1\r\nHost: a.com\r\nHost: b.com\r\n\r\n")
                               << QStringLiteral("more than one Host");
    QTest::newRow("http2 preface") << QByteArray("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") << QStringLiteral("HTTP/2.0");
    QTest::newRow("request line 2 parts") << QByteArray("GET /\r\n\r\n") << QStringLiteral("METHOD TARGET VERSION");
    QTest::newRow("double space") << QByteArray("GET  / HTTP/1.1\r\nHost: a\r\n\r\n") << QStringLiteral("METHOD TARGET VERSION");
    QTest::newRow("method not token") << QByteArray("G(T / HTTP/1.1\r\nHost: a\r\n\r\n") << QStringLiteral("not a token");
    QTest::newRow("obs fold") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n 2\r\n\r\n") << QStringLiteral("folding");
    QTest::newRow("space before colon") << QByteArray("GET / HTTP/1.1\r\nHost : a\r\n\r\n") << QStringLiteral("not a token");
    QTest::newRow("no colon") << QByteArray("GET / HTTP/1.1\r\nHost a\r\n\r\n") << QStringLiteral("without a name");
    QTest::newRow("bare CR") << QByteArray("GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n") << QStringLiteral("bare CR");
    QTest::newRow("NUL") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\nX: \0\r\n\r\n", 34) << QStringLiteral("NUL");
    QTest::newRow("ctl in value") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\nX: \x01\r\n\r\n") << QStringLiteral("control");
    QTest::newRow("TE and CL") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")
                               << QStringLiteral("smuggling");
    QTest::newRow("two CL") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n")
                            << QStringLiteral("differing");
    QTest::newRow("two TE") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n")
                            << QStringLiteral("more than one Transfer-Encoding");
    QTest::newRow("TE on 1.0") << QByteArray("POST / HTTP/1.0\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
                               << QStringLiteral("HTTP/1.0");
    QTest::newRow("CL not number") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n")
                                   << QStringLiteral("decimal");
    QTest::newRow("host with userinfo") << QByteArray("GET / HTTP/1.1\r\nHost: u@a.com\r\n\r\n") << QStringLiteral("Host");
    QTest::newRow("host bad port") << QByteArray("GET / HTTP/1.1\r\nHost: a.com:99999\r\n\r\n") << QStringLiteral("port");
    QTest::newRow("host bare ipv6") << QByteArray("GET / HTTP/1.1\r\nHost: ::1\r\n\r\n") << QStringLiteral("Host");
    QTest::newRow("host bad char") << QByteArray("GET / HTTP/1.1\r\nHost: a*b.com\r\n\r\n") << QStringLiteral("Host");
    QTest::newRow("host empty") << QByteArray("GET / HTTP/1.1\r\nHost: \r\n\r\n") << QStringLiteral("empty");
}

void TestHttpHead::invalid()
{
    QFETCH(QByteArray, head);
    QFETCH(QString, reason);
    const HeadResult r = parseRequestHead(head);
    QCOMPARE(r.status, Status::Invalid);
    QVERIFY2(r.error.contains(reason), qPrintable(r.error));
}

void TestHttpHead::limits()
{
    // A request line over 8 KiB is refused as soon as it is seen, without waiting for its end.
    const QByteArray longLine = "GET /" + QByteArray(kMaxLine + 10, 'a');
    HeadResult r = parseRequestHead(longLine);
    QCOMPARE(r.status, Status::Invalid);
    QVERIFY(r.error.contains(QStringLiteral("longer than 8192")));
    // Exactly at the limit is fine.
    const QByteArray target = "/" + QByteArray(kMaxLine - 4 - 9 - 1, 'a');
    r = parseRequestHead("GET " + target + " HTTP/1.1\r\nHost: a\r\n\r\n");
    QVERIFY2(r.status == Status::Complete, qPrintable(r.error));
    // 101 headers.
    QByteArray many = "GET / HTTP/1.1\r\nHost: a\r\n";
    for (int i = 0; i < kMaxHeaders; ++i)
        many += "X-" + QByteArray::number(i) + ": v\r\n";
    r = parseRequestHead(many + "\r\n");
    QCOMPARE(r.status, Status::Invalid);
    QVERIFY(r.error.contains(QStringLiteral("more than 100")));
    // A head over 64 KiB of valid-size lines, never ended.
    QByteArray big = "GET / HTTP/1.1\r\nHost: a\r\n";
    for (int i = 0; i < 20; ++i)
        big += "X-Big: " + QByteArray(4000, 'b') + "\r\n";
    r = parseRequestHead(big);
    QCOMPARE(r.status, Status::Invalid);
    QVERIFY2(r.error.contains(QStringLiteral("larger than 65536")), qPrintable(r.error));
    // A slowloris that sends an endless header line but stays under the limits: NeedMore.
    QCOMPARE(parseRequestHead(QByteArray("GET / HTTP/1.1\r\nX: ") + QByteArray(4000, 'x')).status, Status::NeedMore);
}

void TestHttpHead::serializeRoundTrip()
{
    const HeadResult r = parseRequestHead(kNpm);
    QCOMPARE(r.status, Status::Complete);
    const QByteArray again = serializeRequestHead(r.head);
    QCOMPARE(again, kNpm.left(r.head.headEnd));
    const HeadResult r2 = parseRequestHead(again);
    QCOMPARE(r2.head.headers, r.head.headers);
}

void TestHttpHead::rewriteHeader()
{
    HeadResult r = parseRequestHead(QByteArray("GET /v1/models HTTP/1.1\r\nHost: api.openai.com\r\n"
                                               "Authorization: Bearer PLACEHOLDER\r\n\r\n"));
    QCOMPARE(r.status, Status::Complete);
    for (Header &h : r.head.headers)
        if (h.name.compare("authorization", Qt::CaseInsensitive) == 0)
            h.value = "Bearer real";
    QCOMPARE(serializeRequestHead(r.head),
             QByteArray("GET /v1/models HTTP/1.1\r\nHost: api.openai.com\r\nAuthorization: Bearer real\r\n\r\n"));
}

QTEST_GUILESS_MAIN(TestHttpHead)
#include "test_httphead.moc"
