// Every reply of the guest agent is the guest's to forge: each one is bounded and checked
// against what was asked before anything uses it.
#include "guestagent.h"

#include <QJsonDocument>
#include <QTest>

using namespace airlock;

class TestGuestAgent : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aReplyBeyondTheCapIsRefused()
    {
        QByteArray huge = "{\"return\":\"" + QByteArray(GuestAgent::kMaxReplyBytes, 'A') + "\"}";
        const Result<QJsonValue> r = GuestAgent::parseReply(huge, QStringLiteral("guest-exec-status"));
        QVERIFY(!r);
        QVERIFY2(r.error().message().contains(QLatin1String("too large")), qPrintable(r.error().message()));
    }

    void aReplyThatIsNotJsonIsRefused()
    {
        QVERIFY(!GuestAgent::parseReply("not json", QStringLiteral("guest-ping")));
        QVERIFY(!GuestAgent::parseReply("[1,2]", QStringLiteral("guest-ping")));
        const Result<QJsonValue> fine = GuestAgent::parseReply("{\"return\":{}}", QStringLiteral("guest-ping"));
        QVERIFY(fine);
    }

    void aReadThatReturnsMoreThanAskedIsRefused()
    {
        bool eof = false;
        const QJsonObject lie{{QStringLiteral("buf-b64"), QString::fromLatin1(QByteArray(4096, 'x').toBase64())},
                              {QStringLiteral("eof"), false}};
        const Result<QByteArray> r = GuestAgent::parseRead(lie, 16, &eof);
        QVERIFY(!r);
        QVERIFY2(r.error().message().contains(QLatin1String("more than the 16 bytes")), qPrintable(r.error().message()));
        for (int n : {1, 2, 3, 4, 16}) {
            const QJsonObject honest{{QStringLiteral("buf-b64"), QString::fromLatin1(QByteArray(n, 'x').toBase64())},
                                     {QStringLiteral("eof"), true}};
            const Result<QByteArray> ok = GuestAgent::parseRead(honest, n, &eof);
            QVERIFY(ok);
            QCOMPARE(ok->size(), n);
            QVERIFY(eof);
        }
        // Found by fuzz_guestagent: unpadded base64 of two bytes is three characters, which a
        // check on the text's length alone let through for a one-byte read.
        const QJsonObject unpadded{{QStringLiteral("buf-b64"), QStringLiteral("aQ0")}, {QStringLiteral("eof"), false}};
        const Result<QByteArray> overrun = GuestAgent::parseRead(unpadded, 1, &eof);
        QVERIFY2(!overrun, "two bytes accepted for a one-byte read");
        QVERIFY(overrun.error().message().contains(QLatin1String("more than the 1 bytes")));
    }

    void execOutputBeyondTheCapIsRefused()
    {
        const QString big = QString::fromLatin1(QByteArray(GuestAgent::kMaxExecOutput + 3, 'y').toBase64());
        const QJsonObject st{{QStringLiteral("exited"), true}, {QStringLiteral("exitcode"), 0}, {QStringLiteral("err-data"), big}};
        const Result<ExecResult> r = GuestAgent::parseExited(st);
        QVERIFY(!r);
        QVERIFY2(r.error().message().contains(QLatin1String("stderr")), qPrintable(r.error().message()));
        const QJsonObject small{{QStringLiteral("exited"), true}, {QStringLiteral("exitcode"), 3},
                                {QStringLiteral("out-data"), QStringLiteral("aGk=")}};
        const Result<ExecResult> fine = GuestAgent::parseExited(small);
        QVERIFY(fine);
        QCOMPARE(fine->exitCode, 3);
        QCOMPARE(fine->out, QByteArray("hi"));
    }

    // The trust-bundle read: a guest that never says EOF, or serves an endless file.
    void readAllStopsAtItsLimit()
    {
        int calls = 0;
        const Result<QByteArray> endless = GuestAgent::readAll(
            [&](int count, bool *eof) -> Result<QByteArray> {
                ++calls;
                *eof = false;
                return QByteArray(count, 'z');
            },
            1000);
        QVERIFY(!endless);
        QVERIFY2(endless.error().message().contains(QLatin1String("larger than 1000 bytes")), qPrintable(endless.error().message()));
        QVERIFY(calls <= 2);

        calls = 0;
        const Result<QByteArray> silent = GuestAgent::readAll(
            [&](int, bool *eof) -> Result<QByteArray> {
                ++calls;
                *eof = false;
                return QByteArray();
            },
            1000);
        QVERIFY(silent);
        QCOMPARE(calls, 1);

        const Result<QByteArray> exact = GuestAgent::readAll(
            [sent = 0](int count, bool *eof) mutable -> Result<QByteArray> {
                const int n = qMin(count, 1000 - sent);
                sent += n;
                *eof = sent == 1000;
                return QByteArray(n, 'a');
            },
            1000);
        QVERIFY(exact);
        QCOMPARE(exact->size(), 1000);
    }
};

QTEST_GUILESS_MAIN(TestGuestAgent)
#include "test_guestagent.moc"
