// The one line splitter of the JSON-RPC socket: what a peer sends is cut into lines exactly
// where the protocol says, and a peer that never ends its line costs a bounded buffer.
#include "api/linereader.h"

#include <QTest>

using airlock::rpc::LineReader;

class TestLineReader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splitsLinesAcrossReads();
    void dropsOneCarriageReturnBeforeNewline();
    void keepsEmptyLines();
    void lineAtTheLimitPasses();
    void completeLineOverTheLimitIsRefused();
    void unendedLineOverTheLimitIsRefused();
    void holdsAtMostOneLineAfterConsuming();
    void clearStartsANewStream();
};

static QList<QByteArray> drain(LineReader &reader)
{
    QList<QByteArray> lines;
    while (const std::optional<QByteArray> line = reader.next())
        lines.append(*line);
    return lines;
}

void TestLineReader::splitsLinesAcrossReads()
{
    LineReader reader(100);
    reader.append("{\"a\":1}\n{\"b\"");
    QCOMPARE(drain(reader), QList<QByteArray>{"{\"a\":1}"});
    reader.append(":2}");
    QVERIFY(drain(reader).isEmpty());
    reader.append("\n\n{\"c\":3}\n");
    QCOMPARE(drain(reader), (QList<QByteArray>{"{\"b\":2}", "", "{\"c\":3}"}));
    QVERIFY(!reader.overflowed());
    QCOMPARE(reader.bufferedBytes(), 0);
}

void TestLineReader::dropsOneCarriageReturnBeforeNewline()
{
    LineReader reader(100);
    reader.append("a\r\nb\r\r\nc\rd\n");
    QCOMPARE(drain(reader), (QList<QByteArray>{"a", "b\r", "c\rd"}));
}

void TestLineReader::keepsEmptyLines()
{
    // Callers decide what an empty line means (the server skips it); the reader keeps count.
    LineReader reader(10);
    reader.append("\n\r\n");
    QCOMPARE(drain(reader), (QList<QByteArray>{"", ""}));
}

void TestLineReader::lineAtTheLimitPasses()
{
    LineReader reader(8);
    reader.append(QByteArray(QByteArray(8, 'x') + "\r\n"));
    QCOMPARE(drain(reader), QList<QByteArray>{QByteArray(8, 'x')});
    QVERIFY(!reader.overflowed());
}

void TestLineReader::completeLineOverTheLimitIsRefused()
{
    LineReader reader(8);
    reader.append(QByteArray("ok\n" + QByteArray(9, 'x') + "\nafter\n"));
    QCOMPARE(drain(reader), QList<QByteArray>{"ok"});
    QVERIFY(reader.overflowed());
    reader.append("more\n");
    QVERIFY(!reader.next()); // nothing after an overlong line: the stream is not trusted again
}

void TestLineReader::unendedLineOverTheLimitIsRefused()
{
    LineReader reader(1024);
    for (int i = 0; i < 8 && !reader.overflowed(); ++i) {
        reader.append(QByteArray(200, 'y'));
        QVERIFY(!reader.next());
    }
    QVERIFY(reader.overflowed());
    // Once overflowed nothing more is kept: a peer cannot grow the buffer further.
    const qsizetype held = reader.bufferedBytes();
    reader.append(QByteArray(1 << 20, 'z'));
    QCOMPARE(reader.bufferedBytes(), held);
}

void TestLineReader::holdsAtMostOneLineAfterConsuming()
{
    LineReader reader(64);
    for (int i = 0; i < 1000; ++i) {
        reader.append("0123456789\n01234");
        QCOMPARE(drain(reader).size(), 1);
        reader.append("56789");
        QCOMPARE(reader.bufferedBytes(), 10);
        reader.append("\n");
        QCOMPARE(drain(reader), QList<QByteArray>{"0123456789"});
        QCOMPARE(reader.bufferedBytes(), 0);
    }
}

void TestLineReader::clearStartsANewStream()
{
    LineReader reader(4);
    reader.append("too long\n");
    QVERIFY(!reader.next());
    QVERIFY(reader.overflowed());
    reader.clear();
    QVERIFY(!reader.overflowed());
    reader.append("ok\n");
    QCOMPARE(drain(reader), QList<QByteArray>{"ok"});
}

QTEST_GUILESS_MAIN(TestLineReader)
#include "test_linereader.moc"
