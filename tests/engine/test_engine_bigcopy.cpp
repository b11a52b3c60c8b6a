// cp of a 100 MiB file into a sandbox and back out, checksums equal on all three sides
// (airlockctl cp moves it through file.push / file.pull in chunks).
#include "daemonharness.h"
#include "libvirtview.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

class TestEngineBigCopy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void hundredMebibytesInAndOut();
    void cleanupTestCase();

private:
    DaemonHarness m_daemon;
    QString m_box;
};

void TestEngineBigCopy::initTestCase()
{
    QString error;
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
    m_box = uniqueName(QStringLiteral("big"));
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), m_box, QStringLiteral("--start")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
}

void TestEngineBigCopy::hundredMebibytesInAndOut()
{
    QTemporaryDir dir;
    const QString in = dir.filePath(QStringLiteral("big.bin"));
    QCryptographicHash hash(QCryptographicHash::Sha256);
    {
        QFile f(in);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QRandomGenerator rng(7);
        QByteArray block(1 << 20, Qt::Uninitialized);
        for (int i = 0; i < 100; ++i) {
            rng.fillRange(reinterpret_cast<quint32 *>(block.data()), block.size() / 4);
            hash.addData(block);
            QCOMPARE(f.write(block), qint64(block.size()));
        }
    }
    const QByteArray sum = hash.result().toHex();

    const CtlResult push = m_daemon.ctl({QStringLiteral("cp"), in, m_box + QStringLiteral(":/root/big.bin")}, 600000);
    QVERIFY2(push.exitCode == 0, push.err.constData());
    QCOMPARE(push.json().toObject().value(QLatin1String("bytes")).toInteger(), qint64(100) << 20);
    const CtlResult guest = m_daemon.ctl({QStringLiteral("exec"), m_box, QStringLiteral("--"), QStringLiteral("sha256sum"), QStringLiteral("/root/big.bin")});
    QVERIFY2(QByteArray::fromBase64(guest.json().toObject().value(QLatin1String("stdout_b64")).toString().toLatin1()).startsWith(sum),
             guest.out.constData());

    const QString out = dir.filePath(QStringLiteral("back.bin"));
    const CtlResult pull = m_daemon.ctl({QStringLiteral("cp"), m_box + QStringLiteral(":/root/big.bin"), out}, 600000);
    QVERIFY2(pull.exitCode == 0, pull.err.constData());
    QFile back(out);
    QVERIFY(back.open(QIODevice::ReadOnly));
    QCryptographicHash backHash(QCryptographicHash::Sha256);
    QVERIFY(backHash.addData(&back));
    QCOMPARE(backHash.result().toHex(), sum);
}

void TestEngineBigCopy::cleanupTestCase()
{
    m_daemon.ctl({QStringLiteral("kill"), m_box});
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), m_box}).exitCode, 0);
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + m_box);
    QVERIFY(view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty());
}

QTEST_GUILESS_MAIN(TestEngineBigCopy)
#include "test_engine_bigcopy.moc"
