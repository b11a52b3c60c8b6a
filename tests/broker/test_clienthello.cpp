// The ClientHello peek against real hellos: OpenSSL clients (TLS 1.2 and 1.3, with SNI and
// ALPN) write into a memory BIO, and the parser reads what they wrote; then the same bytes
// split across records and delivered in pieces, and hostile variants.
#include "clienthello.h"

#include <QTest>
#include <memory>
#include <openssl/bio.h>
#include <openssl/ssl.h>

using namespace airlock::tls;
using Status = ClientHello::Status;

namespace {

// The first flight of a real OpenSSL client.
QByteArray opensslHello(const char *sni, const QByteArray &alpnWire = {}, int maxVersion = TLS1_3_VERSION)
{
    std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
    SSL_CTX_set_max_proto_version(ctx.get(), maxVersion);
    SSL *ssl = SSL_new(ctx.get());
    BIO *rbio = BIO_new(BIO_s_mem());
    BIO *wbio = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl, rbio, wbio);
    if (sni)
        SSL_set_tlsext_host_name(ssl, sni);
    if (!alpnWire.isEmpty())
        SSL_set_alpn_protos(ssl, reinterpret_cast<const unsigned char *>(alpnWire.constData()), unsigned(alpnWire.size()));
    SSL_set_connect_state(ssl);
    const int rc = SSL_do_handshake(ssl);
    Q_ASSERT(rc <= 0 && SSL_get_error(ssl, rc) == SSL_ERROR_WANT_READ);
    char *data = nullptr;
    const long n = BIO_get_mem_data(wbio, &data);
    QByteArray out(data, n);
    SSL_free(ssl);
    return out;
}

QByteArray alpn(std::initializer_list<QByteArray> protos)
{
    QByteArray out;
    for (const QByteArray &p : protos)
        out += char(p.size()) + p;
    return out;
}

// Re-frames the handshake bytes of a single-record hello into records of `chunk` bytes.
QByteArray reframe(const QByteArray &hello, int chunk)
{
    const QByteArray hs = hello.mid(5, (quint8(hello[3]) << 8) | quint8(hello[4]));
    QByteArray out;
    for (qsizetype i = 0; i < hs.size(); i += chunk) {
        const QByteArray part = hs.mid(i, chunk);
        out += hello.left(3);
        out += char(part.size() >> 8);
        out += char(part.size() & 0xff);
        out += part;
    }
    return out;
}

QByteArray be16(int v)
{
    QByteArray out;
    out.append(char((v >> 8) & 0xff));
    out.append(char(v & 0xff));
    return out;
}

// A minimal hand-built TLS 1.2 hello (RFC 5246 7.4.1.2) carrying `extensions` verbatim.
QByteArray handBuilt(const QByteArray &extensions)
{
    QByteArray body = be16(0x0303) + QByteArray(32, 'r') + char(0) + be16(2) + be16(0x1301) + char(1) + char(0);
    body += be16(int(extensions.size())) + extensions;
    QByteArray hs = char(1) + QByteArray(1, '\0') + be16(int(body.size())) + body;
    return QByteArray::fromHex("160301") + be16(int(hs.size())) + hs;
}

QByteArray sniExt(const QByteArray &name, int type = 0)
{
    const QByteArray entry = char(type) + be16(int(name.size())) + name;
    const QByteArray list = be16(int(entry.size())) + entry;
    return be16(0) + be16(int(list.size())) + list;
}

ClientHello parseExact(const QByteArray &bytes, qsizetype n)
{
    // An exactly sized heap copy, so a sanitizer sees any read past the end.
    std::unique_ptr<char[]> copy(new char[size_t(std::max<qsizetype>(n, 1))]);
    std::memcpy(copy.get(), bytes.constData(), size_t(n));
    return parseClientHello(std::span<const char>(copy.get(), size_t(n)));
}

} // namespace

class TestClientHello : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsSniAndAlpnFromOpenSsl_data();
    void readsSniAndAlpnFromOpenSsl();
    void helloWithoutSni();
    void neededBytesLeadToCompletion();
    void everyPrefixNeedsMore();
    void helloSplitAcrossRecords();
    void notTls_data();
    void notTls();
    void hostile_data();
    void hostile();
    void everyTruncatedLengthFieldIsSafe();
    void handBuiltHelloIsRead();
    void encryptedNameExtensionsAreReported();
};

void TestClientHello::handBuiltHelloIsRead()
{
    const ClientHello h = parseClientHello(handBuilt(sniExt("x.example.org.", 0)));
    QCOMPARE(h.status, Status::Complete);
    QCOMPARE(h.sni, QStringLiteral("x.example.org"));
    // An unknown name type is skipped, not taken for a host name.
    const ClientHello other = parseClientHello(handBuilt(sniExt("x.example.org", 7)));
    QCOMPARE(other.status, Status::Complete);
    QVERIFY(!other.hasSni);
}

void TestClientHello::encryptedNameExtensionsAreReported()
{
    // ECH (and its drafts) and ESNI: the SNI beside them need not be where the hello goes.
    for (const int type : {0xfe0d, 0xfe08, 0xffce}) {
        const ClientHello h = parseClientHello(handBuilt(sniExt("a.example") + be16(type) + be16(3) + QByteArray("ech")));
        QCOMPARE(h.status, Status::Complete);
        QCOMPARE(h.sni, QStringLiteral("a.example"));
        QCOMPARE(int(h.encryptedName), type);
    }
    QCOMPARE(int(parseClientHello(handBuilt(sniExt("a.example") + be16(0xfe07) + be16(0))).encryptedName), 0);
    QCOMPARE(int(parseClientHello(opensslHello("a.example")).encryptedName), 0);
}

void TestClientHello::readsSniAndAlpnFromOpenSsl_data()
{
    QTest::addColumn<int>("version");
    QTest::newRow("TLS 1.3") << int(TLS1_3_VERSION);
    QTest::newRow("TLS 1.2") << int(TLS1_2_VERSION);
}

void TestClientHello::readsSniAndAlpnFromOpenSsl()
{
    QFETCH(int, version);
    const QByteArray hello = opensslHello("Api.Anthropic.COM", alpn({"h2", "http/1.1"}), version);
    const ClientHello h = parseClientHello(hello);
    QCOMPARE(h.status, Status::Complete);
    QVERIFY(h.hasSni);
    QCOMPARE(h.sni, QStringLiteral("api.anthropic.com"));
    QCOMPARE(h.alpn, (QStringList{QStringLiteral("h2"), QStringLiteral("http/1.1")}));
    QCOMPARE(h.consumed, hello.size());
    QCOMPARE(h.legacyVersion, quint16(0x0303));
}

void TestClientHello::helloWithoutSni()
{
    const ClientHello h = parseClientHello(opensslHello(nullptr));
    QCOMPARE(h.status, Status::Complete);
    QVERIFY(!h.hasSni);
    QVERIFY(h.sni.isEmpty());
    QVERIFY(h.alpn.isEmpty());
}

void TestClientHello::neededBytesLeadToCompletion()
{
    // Reading exactly `needed` more bytes each time must reach the complete hello without
    // ever overshooting what the client sent.
    for (const QByteArray &stream : {opensslHello("registry.npmjs.org"), reframe(opensslHello("registry.npmjs.org"), 57)}) {
        qsizetype have = 0;
        int rounds = 0;
        for (;;) {
            const ClientHello h = parseExact(stream, have);
            if (h.status == Status::Complete) {
                QCOMPARE(h.sni, QStringLiteral("registry.npmjs.org"));
                break;
            }
            QCOMPARE(h.status, Status::NeedMore);
            QVERIFY(h.needed > 0);
            QVERIFY2(have + h.needed <= stream.size(), "asked for more bytes than the hello holds");
            have += h.needed;
            QVERIFY(++rounds < 100);
        }
        QCOMPARE(have, stream.size());
    }
}

void TestClientHello::everyPrefixNeedsMore()
{
    const QByteArray hello = opensslHello("github.com", alpn({"http/1.1"}));
    for (qsizetype n = 0; n < hello.size(); ++n) {
        const ClientHello h = parseExact(hello, n);
        QVERIFY2(h.status == Status::NeedMore, qPrintable(QStringLiteral("prefix %1: %2").arg(n).arg(h.error)));
        QVERIFY(h.needed > 0);
    }
}

void TestClientHello::helloSplitAcrossRecords()
{
    const QByteArray hello = opensslHello("pypi.org", alpn({"h2"}));
    for (int chunk : {1, 2, 3, 16, 100, 255}) {
        const QByteArray split = reframe(hello, chunk);
        const ClientHello h = parseClientHello(split);
        QCOMPARE(h.status, Status::Complete);
        QCOMPARE(h.sni, QStringLiteral("pypi.org"));
        QCOMPARE(h.alpn, QStringList{QStringLiteral("h2")});
        QCOMPARE(h.consumed, split.size());
    }
}

void TestClientHello::notTls_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("http") << QByteArray("GET / HTTP/1.1\r\n");
    QTest::newRow("ssh") << QByteArray("SSH-2.0-OpenSSH_9.2\r\n");
    QTest::newRow("sslv2") << QByteArray::fromHex("8046010301");
    QTest::newRow("0x16 then not 3") << QByteArray::fromHex("1604");
}

void TestClientHello::notTls()
{
    QFETCH(QByteArray, bytes);
    QCOMPARE(parseClientHello(bytes).status, Status::NotTls);
}

void TestClientHello::hostile_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("reason");
    const QByteArray hello = opensslHello("example.com");
    QTest::newRow("empty record") << QByteArray::fromHex("1603010000") << QStringLiteral("empty handshake record");
    QTest::newRow("oversize record") << QByteArray::fromHex("1603014001") << QStringLiteral("exceeds");
    QTest::newRow("not a client hello") << QByteArray::fromHex("16030100040200000000") << QStringLiteral("not a ClientHello");
    QTest::newRow("declares 16 MiB") << QByteArray::fromHex("160301000401ffffff") << QStringLiteral("limit");
    QByteArray alert = reframe(hello, 40);
    alert.insert(45, QByteArray::fromHex("15030100020228"));
    QTest::newRow("alert between records") << alert << QStringLiteral("interrupted");
    // A handshake claiming only 40 bytes: the body is cut inside the cipher suites.
    QByteArray shortBody = QByteArray::fromHex("16030100") + char(4 + 40) + QByteArray::fromHex("01000028") + hello.mid(9, 40);
    QTest::newRow("body cut") << shortBody << QStringLiteral("");
    QTest::newRow("duplicate SNI extension") << handBuilt(sniExt("a.com") + sniExt("b.com")) << QStringLiteral("twice");
    QTest::newRow("empty host_name") << handBuilt(sniExt("")) << QStringLiteral("length 0");
    QTest::newRow("NUL in host_name") << handBuilt(sniExt(QByteArray("a\0b.com", 7))) << QStringLiteral("byte 0x00");
    QTest::newRow("SNI list length lies") << handBuilt(be16(0) + be16(5) + be16(9) + char(0) + be16(1) + "a")
                                          << QStringLiteral("malformed server_name");
    QTest::newRow("extension past end") << handBuilt(be16(0) + be16(50) + "abc") << QStringLiteral("runs past");
    QTest::newRow("ALPN zero-length name") << handBuilt(be16(16) + be16(3) + be16(1) + char(0)) << QStringLiteral("ALPN");
    // Found by fuzz_clienthello: a record longer than the hello it carries, still arriving.
    QByteArray longRecord = hello;
    longRecord[3] = char(0x32); // record claims 0x32xx bytes; the hello inside ends much earlier
    QTest::newRow("record longer than hello") << longRecord << QStringLiteral("extra handshake data");
    // Found by fuzz_clienthello: a hello that declares 16 KiB - 4 bytes cannot fit once record
    // headers are added: refuse instead of asking for more than the peek limit.
    QByteArray huge = QByteArray::fromHex("1603010200") + QByteArray::fromHex("01003ffc") + QByteArray(508, 'x');
    QTest::newRow("hello cannot fit the peek") << huge << QStringLiteral("does not fit");
    QTest::newRow("bad version") << (QByteArray::fromHex("160301002a0100002602") + QByteArray(38, '\0'))
                                 << QStringLiteral("not SSL 3");
}

void TestClientHello::hostile()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, reason);
    const ClientHello h = parseClientHello(bytes);
    QCOMPARE(h.status, Status::Invalid);
    QVERIFY2(h.error.contains(reason), qPrintable(h.error));
}

void TestClientHello::everyTruncatedLengthFieldIsSafe()
{
    // Corrupt every byte of a real hello in turn (x ^ 0xff): the parser must answer something
    // without reading outside the buffer (run under ASan in the fuzz build), and a corrupted
    // SNI byte must never produce a *different* valid-looking name silently.
    const QByteArray hello = opensslHello("example.com", alpn({"h2"}));
    for (qsizetype i = 0; i < hello.size(); ++i) {
        QByteArray bad = hello;
        bad[i] = char(bad[i] ^ 0xff);
        const ClientHello h = parseExact(bad, bad.size());
        if (h.status == Status::Complete && h.hasSni && h.sni != QStringLiteral("example.com")) {
            // Only the SNI's own characters may change the name.
            const qsizetype at = hello.indexOf("example.com");
            QVERIFY2(i >= at && i < at + 11, qPrintable(QStringLiteral("byte %1 changed the SNI to %2").arg(i).arg(h.sni)));
        }
    }
}

QTEST_GUILESS_MAIN(TestClientHello)
#include "test_clienthello.moc"
