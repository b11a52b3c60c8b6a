// The broker's DNS parser and answers: real query layouts (RFC 1035, as dig sends them with
// EDNS), answers cross-checked with glibc's independent libresolv parser, and hostile packets.
#include "dnsmessage.h"

#include <QTest>
#include <arpa/nameser.h>
#include <netinet/in.h>

using namespace airlock;
using namespace airlock::dns;

namespace {

QByteArray u16(quint16 v)
{
    QByteArray out;
    out.append(char(v >> 8));
    out.append(char(v & 0xff));
    return out;
}

// A query as `dig example.com A` sends it: id, RD|AD, one question, one EDNS OPT record with a
// client cookie option (code 10, 8 bytes).
QByteArray digStyleQuery(const QByteArray &wireName, quint16 type, quint16 id = 0x1f2e)
{
    QByteArray m = u16(id) + u16(0x0120) + u16(1) + u16(0) + u16(0) + u16(1);
    m += wireName + u16(type) + u16(IN);
    m += QByteArray(1, '\0') + u16(41) + u16(1232) + QByteArray(4, '\0') + u16(12);
    m += u16(10) + u16(8) + QByteArray::fromHex("0123456789abcdef");
    return m;
}

QByteArray plainQuery(const QByteArray &wireName, quint16 type = A)
{
    return u16(0x4242) + u16(0x0100) + u16(1) + u16(0) + u16(0) + u16(0) + wireName + u16(type) + u16(IN);
}

QByteArray wire(std::initializer_list<QByteArray> labels)
{
    QByteArray out;
    for (const QByteArray &l : labels)
        out += char(l.size()) + l;
    return out + '\0';
}

} // namespace

class TestDnsMessage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesDigQueryWithEdns();
    void keepsCaseOfTheQuestionForTheAnswer();
    void answerAIsReadableByLibresolv();
    void emptyAndRcodeAnswers();
    void formErrForUnreadableQuestion();
    void encodesNames();
    void refusesHostile_data();
    void refusesHostile();
    void every_prefix_of_a_query_is_refused_without_crash();
    void maximumLengthNameIsAccepted();
};

void TestDnsMessage::parsesDigQueryWithEdns()
{
    const QByteArray m = digStyleQuery(wire({"registry", "npmjs", "org"}), A);
    const ParseResult r = parseQuery(m);
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(r.query.id, quint16(0x1f2e));
    QCOMPARE(r.query.name, QStringLiteral("registry.npmjs.org"));
    QCOMPARE(r.query.qtype, quint16(A));
    QCOMPARE(r.query.qclass, quint16(IN));
    QCOMPARE(r.query.questionEnd, 12 + 20 + 4);
}

void TestDnsMessage::keepsCaseOfTheQuestionForTheAnswer()
{
    // Resolvers randomise case (DNS 0x20); the answer must echo the question byte for byte.
    const ParseResult r = parseQuery(plainQuery(wire({"ApI", "AnThRoPiC", "cOm"})));
    QVERIFY(r.ok);
    QCOMPARE(r.query.name, QStringLiteral("api.anthropic.com"));
    const QByteArray answer = answerA(r.query, 0xc6120005, 30);
    QVERIFY(answer.contains(wire({"ApI", "AnThRoPiC", "cOm"})));
}

void TestDnsMessage::answerAIsReadableByLibresolv()
{
    const ParseResult r = parseQuery(digStyleQuery(wire({"example", "com"}), A, 0xbeef));
    QVERIFY(r.ok);
    const QByteArray answer = answerA(r.query, 0xc6120007 /* 198.18.0.7 */, 60);
    ns_msg msg;
    QCOMPARE(ns_initparse(reinterpret_cast<const u_char *>(answer.constData()), int(answer.size()), &msg), 0);
    QCOMPARE(ns_msg_id(msg), quint16(0xbeef));
    QCOMPARE(ns_msg_getflag(msg, ns_f_qr), 1);
    QCOMPARE(ns_msg_getflag(msg, ns_f_rd), 1);
    QCOMPARE(ns_msg_getflag(msg, ns_f_rcode), int(ns_r_noerror));
    QCOMPARE(ns_msg_count(msg, ns_s_qd), quint16(1));
    QCOMPARE(ns_msg_count(msg, ns_s_an), quint16(1));
    ns_rr rr;
    QCOMPARE(ns_parserr(&msg, ns_s_an, 0, &rr), 0);
    QCOMPARE(QByteArray(ns_rr_name(rr)), QByteArray("example.com"));
    QCOMPARE(ns_rr_type(rr), ns_t_a);
    QCOMPARE(ns_rr_ttl(rr), 60u);
    QCOMPARE(ns_rr_rdlen(rr), quint16(4));
    QCOMPARE(QByteArray(reinterpret_cast<const char *>(ns_rr_rdata(rr)), 4), QByteArray::fromHex("c6120007"));
}

void TestDnsMessage::emptyAndRcodeAnswers()
{
    const ParseResult r = parseQuery(plainQuery(wire({"example", "com"}), AAAA));
    QVERIFY(r.ok);
    for (auto [bytes, rcode] : {std::pair{answerEmpty(r.query), ns_r_noerror}, std::pair{answerRcode(r.query, Refused), ns_r_refused},
                                std::pair{answerRcode(r.query, NxDomain), ns_r_nxdomain}}) {
        ns_msg msg;
        QCOMPARE(ns_initparse(reinterpret_cast<const u_char *>(bytes.constData()), int(bytes.size()), &msg), 0);
        QCOMPARE(ns_msg_getflag(msg, ns_f_rcode), int(rcode));
        QCOMPARE(ns_msg_count(msg, ns_s_qd), quint16(1));
        QCOMPARE(ns_msg_count(msg, ns_s_an), quint16(0));
        ns_rr q;
        QCOMPARE(ns_parserr(&msg, ns_s_qd, 0, &q), 0);
        QCOMPARE(ns_rr_type(q), ns_t_aaaa);
    }
}

void TestDnsMessage::formErrForUnreadableQuestion()
{
    QByteArray m = plainQuery(wire({"example", "com"}));
    m.chop(3); // question cut off
    const ParseResult r = parseQuery(m);
    QVERIFY(!r.ok);
    QVERIFY(r.idValid);
    const QByteArray e = formErr(r.id, r.flags);
    ns_msg msg;
    QCOMPARE(ns_initparse(reinterpret_cast<const u_char *>(e.constData()), int(e.size()), &msg), 0);
    QCOMPARE(ns_msg_id(msg), quint16(0x4242));
    QCOMPARE(ns_msg_getflag(msg, ns_f_rcode), int(ns_r_formerr));
}

void TestDnsMessage::encodesNames()
{
    QCOMPARE(encodeName(QStringLiteral("a.example.com.")), wire({"a", "example", "com"}));
    QCOMPARE(encodeName(QString()), QByteArray(1, '\0'));
    QVERIFY(encodeName(QStringLiteral("a..b")).isEmpty());
    QVERIFY(encodeName(QString(64, u'x') + QStringLiteral(".com")).isEmpty());
    QVERIFY(encodeName(QStringLiteral("bücher.de")).isEmpty());
}

void TestDnsMessage::refusesHostile_data()
{
    QTest::addColumn<QByteArray>("message");
    QTest::addColumn<QString>("reason");
    const QByteArray hdr = u16(7) + u16(0x0100) + u16(1) + u16(0) + u16(0) + u16(0);
    const QByteArray tail = u16(A) + u16(IN);
    QTest::newRow("empty") << QByteArray() << QStringLiteral("shorter than a DNS header");
    QTest::newRow("short header") << QByteArray(11, '\0') << QStringLiteral("shorter than a DNS header");
    QTest::newRow("response") << (u16(7) + u16(0x8100) + u16(1) + QByteArray(6, '\0') + wire({"a", "b"}) + tail)
                              << QStringLiteral("response");
    QTest::newRow("opcode status") << (u16(7) + u16(0x1000) + u16(1) + QByteArray(6, '\0') + wire({"a", "b"}) + tail)
                                   << QStringLiteral("opcode 2");
    QTest::newRow("two questions") << (u16(7) + u16(0x0100) + u16(2) + QByteArray(6, '\0') + wire({"a", "b"}) + tail
                                       + wire({"c", "d"}) + tail) << QStringLiteral("2 questions");
    QTest::newRow("zero questions") << (u16(7) + u16(0x0100) + QByteArray(8, '\0')) << QStringLiteral("0 questions");
    QTest::newRow("answer records") << (u16(7) + u16(0x0100) + u16(1) + u16(1) + QByteArray(4, '\0') + wire({"a", "b"}) + tail)
                                    << QStringLiteral("answer or authority");
    QTest::newRow("label 64") << (hdr + char(64) + QByteArray(64, 'a') + '\0' + tail) << QStringLiteral("longer than 63");
    QTest::newRow("label type 0x80") << (hdr + char(0x81) + 'a' + '\0' + tail) << QStringLiteral("reserved label type");
    QByteArray longName;
    for (int i = 0; i < 5; ++i)
        longName += char(63) + QByteArray(63, 'a');
    QTest::newRow("name 321 octets") << (hdr + longName + '\0' + tail) << QStringLiteral("longer than 255");
    QTest::newRow("label past end") << (hdr + char(20) + "abc") << QStringLiteral("past the end");
    QTest::newRow("no terminator") << (hdr + char(3) + "abc") << QStringLiteral("past the end");
    QTest::newRow("pointer to itself") << (hdr + QByteArray::fromHex("c00c") + tail) << QStringLiteral("backwards");
    QTest::newRow("pointer forward") << (hdr + QByteArray::fromHex("c010") + tail + wire({"a", "b"}))
                                     << QStringLiteral("backwards");
    QTest::newRow("pointer into header") << (hdr + QByteArray::fromHex("c002") + tail) << QStringLiteral("header");
    QTest::newRow("pointer cut off") << (hdr + QByteArray::fromHex("c0")) << QStringLiteral("cut off");
    QTest::newRow("label then loop") << (hdr + char(1) + 'a' + QByteArray::fromHex("c00c") + tail)
                                     << QStringLiteral("backwards");
    QTest::newRow("nul in label") << (hdr + char(3) + QByteArray("a\0b", 3) + '\0' + tail) << QStringLiteral("byte 0x00");
    QTest::newRow("space in label") << (hdr + char(3) + "a b" + '\0' + tail) << QStringLiteral("byte 0x20");
    QTest::newRow("dot in label") << (hdr + char(3) + "a.b" + '\0' + tail) << QStringLiteral("byte 0x2e");
    QTest::newRow("question cut") << (hdr + wire({"a", "b"}) + u16(A)) << QStringLiteral("cut off");
    QTest::newRow("trailing bytes") << (hdr + wire({"a", "b"}) + tail + "xx") << QStringLiteral("2 bytes after");
    QTest::newRow("additional not OPT") << (u16(7) + u16(0x0100) + u16(1) + u16(0) + u16(0) + u16(1) + wire({"a", "b"}) + tail
                                            + wire({"x"}) + u16(16) + u16(1) + QByteArray(4, '\0') + u16(0))
                                        << QStringLiteral("not an EDNS OPT");
    QTest::newRow("OPT data cut") << (u16(7) + u16(0x0100) + u16(1) + u16(0) + u16(0) + u16(1) + wire({"a", "b"}) + tail
                                      + '\0' + u16(41) + u16(512) + QByteArray(4, '\0') + u16(40) + "abc")
                                  << QStringLiteral("cut off");
    QTest::newRow("oversize") << (hdr + QByteArray(70000, 'a')) << QStringLiteral("longer than 65535");
}

void TestDnsMessage::refusesHostile()
{
    QFETCH(QByteArray, message);
    QFETCH(QString, reason);
    const ParseResult r = parseQuery(message);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.contains(reason), qPrintable(r.error));
}

void TestDnsMessage::every_prefix_of_a_query_is_refused_without_crash()
{
    const QByteArray m = digStyleQuery(wire({"www", "example", "org"}), AAAA);
    for (qsizetype n = 0; n < m.size(); ++n) {
        // A fresh heap copy of exactly n bytes: ASan/valgrind catch any read past it.
        std::unique_ptr<char[]> copy(new char[size_t(std::max<qsizetype>(n, 1))]);
        std::memcpy(copy.get(), m.constData(), size_t(n));
        QVERIFY(!parseQuery(std::span<const char>(copy.get(), size_t(n))).ok);
    }
    QVERIFY(parseQuery(m).ok);
}

void TestDnsMessage::maximumLengthNameIsAccepted()
{
    // 3 x 63 + 61 content octets + 4 length octets + root = 255: the longest legal name.
    QByteArray name;
    for (int i = 0; i < 3; ++i)
        name += char(63) + QByteArray(63, 'a' + char(i));
    name += char(61) + QByteArray(61, 'd') + '\0';
    QCOMPARE(name.size(), 255);
    const ParseResult r = parseQuery(plainQuery(name));
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(r.query.name.size(), 253);
    QByteArray tooLong = name;
    tooLong.insert(tooLong.size() - 1, QByteArray(1, char(1)) + 'e');
    QVERIFY(!parseQuery(plainQuery(tooLong)).ok);
}

QTEST_GUILESS_MAIN(TestDnsMessage)
#include "test_dnsmessage.moc"
