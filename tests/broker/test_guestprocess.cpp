// The guest's process reports (broker/guestprocess.h): what the line parser takes and
// refuses, that a flood costs bounded memory, that the per-sandbox budget pushes back, and
// that a report is found by the socket the proxy sees.
#include "guestprocess.h"

#include <QTest>

using namespace airlock;
using namespace std::chrono_literals;

class TestGuestProcess : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesAReport();
    void refusesWhatIsNotAReport_data();
    void refusesWhatIsNotAReport();
    void longLinesAreSkippedWhole();
    void findsBySocket();
    void floodKeepsTheTableBounded();
    void oldReportsExpire();
    void budgetPushesBack();
    void storedFormRoundTrips();
};

static const QByteArray kGood = "v1\ttcp\t40312\t198.18.0.7\t443\t812\t640\tcurl\tsh\tcurl -s https://example.com/";
static const QByteArray kGoodV2 = kGood + "\tbash>claude>node>sh";

void TestGuestProcess::parsesAReport()
{
    const auto r = guestprocess::parseLine(kGood);
    QVERIFY(r);
    QCOMPARE(r->udp, false);
    QCOMPARE(r->localPort, quint16(40312));
    QCOMPARE(r->remoteIp, quint32(0xC6120007));
    QCOMPARE(r->remotePort, quint16(443));
    QCOMPARE(r->process.pid, 812);
    QCOMPARE(r->process.ppid, 640);
    QCOMPARE(r->process.comm, QStringLiteral("curl"));
    QCOMPARE(r->process.parent, QStringLiteral("sh"));
    QCOMPARE(r->process.cmdline, QStringLiteral("curl -s https://example.com/"));
    // The parent and the command line may be empty (a kernel thread's parent, a zombie).
    QVERIFY(guestprocess::parseLine("v1\tudp\t5353\t10.0.0.1\t53\t9\t0\tdig\t\t"));
    QVERIFY(r->process.chain.isEmpty()); // an older image's helper sends no chain

    // v2 adds the ancestors, oldest first.
    const auto v2 = guestprocess::parseLine(QByteArray(kGoodV2).replace("v1\t", "v2\t"));
    QVERIFY(v2);
    QCOMPARE(v2->process.comm, QStringLiteral("curl"));
    QCOMPARE(v2->process.chain, (QStringList{QStringLiteral("bash"), QStringLiteral("claude"), QStringLiteral("node"), QStringLiteral("sh")}));
    // A child of PID 1 has none; the longest report still fits in a line.
    const auto orphan = guestprocess::parseLine("v2\tudp\t5353\t10.0.0.1\t53\t9\t1\tdig\tinit\t\t");
    QVERIFY(orphan && orphan->process.chain.isEmpty());
    QByteArray longest = "v2\ttcp\t65535\t255.255.255.255\t65535\t2147483647\t2147483647\t" + QByteArray(16, 'c') + '\t' +
                         QByteArray(16, 'p') + '\t' + QByteArray(256, 'x') + '\t';
    for (int i = 0; i < guestprocess::kMaxChain; ++i)
        longest += (i ? ">" : "") + QByteArray(16, 'a' + char(i));
    QVERIFY(longest.size() <= guestprocess::kMaxLine);
    const auto full = guestprocess::parseLine(longest);
    QVERIFY(full);
    QCOMPARE(full->process.chain.size(), guestprocess::kMaxChain);
    QCOMPARE(full->process.chain.last(), QString(16, QLatin1Char('h')));
}

void TestGuestProcess::refusesWhatIsNotAReport_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("other version") << QByteArray(kGood).replace("v1\t", "v3\t");
    QTest::newRow("v2 without its chain") << QByteArray(kGood).replace("v1\t", "v2\t");
    QTest::newRow("v1 with a chain") << kGoodV2;
    const QByteArray v2 = QByteArray(kGoodV2).replace("v1\t", "v2\t");
    QTest::newRow("v2 a field more") << QByteArray(v2 + "\textra");
    QTest::newRow("chain with an empty name") << QByteArray(v2).replace("claude>node", "claude>>node");
    QTest::newRow("chain ending in >") << QByteArray(v2 + ">");
    QTest::newRow("chain of 9") << QByteArray(v2 + ">a>b>c>d>e");
    QTest::newRow("chain name of 17") << QByteArray(v2).replace("claude", QByteArray(17, 'c'));
    QTest::newRow("chain control byte") << QByteArray(v2).replace("claude", "cla\x7fude");
    QTest::newRow("other protocol") << QByteArray(kGood).replace("\ttcp\t", "\tsctp\t");
    QTest::newRow("a field short") << kGood.left(kGood.lastIndexOf('\t'));
    QTest::newRow("a field more") << QByteArray(kGood + "\textra");
    QTest::newRow("port 0") << QByteArray(kGood).replace("\t40312\t", "\t0\t");
    QTest::newRow("port too big") << QByteArray(kGood).replace("\t40312\t", "\t65536\t");
    QTest::newRow("signed port") << QByteArray(kGood).replace("\t40312\t", "\t+4031\t");
    QTest::newRow("pid 0") << QByteArray(kGood).replace("\t812\t", "\t0\t");
    QTest::newRow("pid too long") << QByteArray(kGood).replace("\t812\t", "\t12345678901\t");
    QTest::newRow("address with 5 parts") << QByteArray(kGood).replace("198.18.0.7", "198.18.0.7.1");
    QTest::newRow("address octet 256") << QByteArray(kGood).replace("198.18.0.7", "198.18.0.256");
    QTest::newRow("IPv6 address") << QByteArray(kGood).replace("198.18.0.7", "::1");
    QTest::newRow("empty comm") << QByteArray(kGood).replace("\tcurl\t", "\t\t");
    QTest::newRow("comm of 17") << QByteArray(kGood).replace("\tcurl\t", QByteArray("\t" + QByteArray(17, 'c') + "\t"));
    QTest::newRow("cmdline of 257") << QByteArray(kGood.left(kGood.lastIndexOf('\t') + 1) + QByteArray(257, 'x'));
    QTest::newRow("control byte") << QByteArray(kGood).replace("https", "ht\x1btps");
    QTest::newRow("UTF-8") << QByteArray(kGood).replace("example", "exämple");
    QTest::newRow("NUL") << QByteArray(kGood).replace("example", QByteArray("ex\0mple", 7));
}

void TestGuestProcess::refusesWhatIsNotAReport()
{
    QFETCH(QByteArray, line);
    QVERIFY(!guestprocess::parseLine(line));
}

void TestGuestProcess::longLinesAreSkippedWhole()
{
    // A line over the limit is dropped up to its newline: its tail is not read as a report.
    guestprocess::LineReader reader;
    int reports = 0;
    const QByteArray flood = QByteArray(guestprocess::kMaxLine + 10, 'x') + QByteArray(kGood + '\n') + QByteArray(kGood + '\n');
    reader.feed(flood, [&](const GuestSocketReport &) { ++reports; });
    QCOMPARE(reports, 1);
    QCOMPARE(reader.junk(), 1);
    // Split anywhere, the same bytes give the same reports.
    guestprocess::LineReader bytewise;
    reports = 0;
    for (char c : flood)
        bytewise.feed(QByteArrayView(&c, 1), [&](const GuestSocketReport &) { ++reports; });
    QCOMPARE(reports, 1);
}

void TestGuestProcess::findsBySocket()
{
    GuestProcessTable table;
    table.feed(QStringLiteral("a"), QByteArray(kGood + '\n'));
    const auto found = table.find(QStringLiteral("a"), false, 40312, 0xC6120007, 443);
    QVERIFY(found);
    QCOMPARE(found->comm, QStringLiteral("curl"));
    // Another sandbox, protocol, port or remote is not that socket.
    QVERIFY(!table.find(QStringLiteral("b"), false, 40312, 0xC6120007, 443));
    QVERIFY(!table.find(QStringLiteral("a"), true, 40312, 0xC6120007, 443));
    QVERIFY(!table.find(QStringLiteral("a"), false, 40313, 0xC6120007, 443));
    QVERIFY(!table.find(QStringLiteral("a"), false, 40312, 0xC6120008, 443));
    QVERIFY(!table.find(QStringLiteral("a"), false, 40312, 0xC6120007, 80));
    table.forget(QStringLiteral("a"));
    QVERIFY(!table.find(QStringLiteral("a"), false, 40312, 0xC6120007, 443));
}

void TestGuestProcess::floodKeepsTheTableBounded()
{
    GuestProcessTable table(GuestProcessTable::Limits{100, 60s, 1 << 30});
    QByteArray bytes;
    for (int port = 1; port <= 1000; ++port)
        bytes += "v1\ttcp\t" + QByteArray::number(port) + "\t10.0.0.1\t80\t5\t1\tx\t\t\n";
    // The same socket reported again and again must not grow the order either.
    for (int i = 0; i < 1000; ++i)
        bytes += "v1\ttcp\t1000\t10.0.0.1\t80\t6\t1\ty\t\t\n";
    table.feed(QStringLiteral("a"), bytes);
    const auto stats = table.stats(QStringLiteral("a"));
    QCOMPARE(stats.reports, 2000);
    QVERIFY(stats.sockets <= 100);
    QVERIFY(!table.find(QStringLiteral("a"), false, 1, 0x0A000001, 80)); // the oldest went first
    const auto last = table.find(QStringLiteral("a"), false, 1000, 0x0A000001, 80);
    QVERIFY(last);
    QCOMPARE(last->comm, QStringLiteral("y")); // the latest report of a socket wins
}

void TestGuestProcess::oldReportsExpire()
{
    GuestProcessTable table(GuestProcessTable::Limits{100, 60s, 1 << 30});
    const auto t0 = GuestProcessTable::Clock::now();
    table.feed(QStringLiteral("a"), QByteArray(kGood + '\n'), t0);
    QVERIFY(table.find(QStringLiteral("a"), false, 40312, 0xC6120007, 443, t0 + 59s));
    QVERIFY(!table.find(QStringLiteral("a"), false, 40312, 0xC6120007, 443, t0 + 61s));
}

void TestGuestProcess::budgetPushesBack()
{
    GuestProcessTable table(GuestProcessTable::Limits{100, 60s, 1000});
    const auto t0 = GuestProcessTable::Clock::now();
    QCOMPARE(table.feed(QStringLiteral("a"), QByteArray(900, '\n'), t0), 0ms);
    // Over the budget: wait out the rest of the second; another sandbox has its own budget.
    QCOMPARE(table.feed(QStringLiteral("a"), QByteArray(200, '\n'), t0 + 300ms), 700ms);
    QCOMPARE(table.feed(QStringLiteral("b"), QByteArray(200, '\n'), t0 + 300ms), 0ms);
    QCOMPARE(table.feed(QStringLiteral("a"), QByteArray(200, '\n'), t0 + 1s), 0ms);
    QCOMPARE(table.stats(QStringLiteral("a")).junk, 1300); // empty lines are not reports
}

void TestGuestProcess::storedFormRoundTrips()
{
    const GuestProcess p{812, 640, QStringLiteral("curl"), QStringLiteral("sh"), QStringLiteral("curl -s \"x\"")};
    QCOMPARE(GuestProcess::fromStored(GuestProcess::toStored(p)), std::optional<GuestProcess>(p));
    const GuestProcess chained{812, 640, QStringLiteral("curl"), QStringLiteral("sh"), QString(), {QStringLiteral("claude"), QStringLiteral("sh")}};
    QCOMPARE(GuestProcess::fromStored(GuestProcess::toStored(chained)), std::optional<GuestProcess>(chained));
    QCOMPARE(GuestProcess::toStored(std::nullopt), QString());
    QCOMPARE(GuestProcess::fromStored(QString()), std::nullopt);
    QCOMPARE(GuestProcess::fromStored(QStringLiteral("not json")), std::nullopt);
}

QTEST_GUILESS_MAIN(TestGuestProcess)
#include "test_guestprocess.moc"
