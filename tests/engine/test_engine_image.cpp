// Builds the tiny guest image once per run (the FIXTURES_SETUP of every engine test) and
// checks what a user sees: progress, image ls, the pool's volumes, the cache, bad recipes.
#include "daemonharness.h"
#include "libvirtview.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

class TestEngineImage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void buildsTinyIntoThePool();
    void secondBuildIsCached();
    void statusNamesTheAccelerator();
    void unknownRecipeIsRefused();
    void imageInUseCannotBeRemoved();

private:
    DaemonHarness m_daemon;
};

void TestEngineImage::initTestCase()
{
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("airlock"));
    if (!view.error.isEmpty())
        QFAIL(qPrintable(view.error + QStringLiteral(" (CI starts it with tests/support/libvirt-env.sh)")));
    QString error;
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
}

void TestEngineImage::buildsTinyIntoThePool()
{
    const CtlResult r = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("tiny")}, 600000);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.json().toObject().value(QLatin1String("name")).toString(), QStringLiteral("tiny"));

    const CtlResult ls = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("ls")});
    QCOMPARE(ls.exitCode, 0);
    bool found = false;
    QString kernel;
    for (const QJsonValue &v : ls.json().toArray()) {
        const QJsonObject o = v.toObject();
        if (o.value(QLatin1String("name")).toString() != QLatin1String("tiny"))
            continue;
        found = true;
        kernel = o.value(QLatin1String("kernel")).toString();
        QVERIFY(o.value(QLatin1String("size_bytes")).toInteger() > 1 << 20);
        QVERIFY(!o.value(QLatin1String("created")).toString().isEmpty());
    }
    QVERIFY2(found, ls.out.constData());
    // Kernel, initrd and root disk are volumes of the pool `airlock`.
    const QString base = kernel.section(QLatin1Char('.'), 0, 0);
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), base);
    QVERIFY2(view.volumes.size() == 3, qPrintable(view.volumes.join(QLatin1Char(','))));
}

void TestEngineImage::secondBuildIsCached()
{
    QElapsedTimer t;
    t.start();
    const CtlResult r = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("tiny")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.json().toObject().value(QLatin1String("cached")).toBool());
    QVERIFY2(t.elapsed() < 3000, qPrintable(QString::number(t.elapsed())));
}

void TestEngineImage::statusNamesTheAccelerator()
{
    const CtlResult r = m_daemon.ctl({QStringLiteral("status")});
    QCOMPARE(r.exitCode, 0);
    const QString accel = r.json().toObject().value(QLatin1String("accel")).toString();
    QVERIFY2(accel == QLatin1String("kvm") || accel == QLatin1String("tcg"), qPrintable(accel));
}

void TestEngineImage::unknownRecipeIsRefused()
{
    const CtlResult r = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("no-such-recipe")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("no image recipe named \"no-such-recipe\""), r.err.constData());
    const CtlResult bad = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("../etc")});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.err.contains("invalid recipe name"), bad.err.constData());
    const CtlResult rm = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("rm"), QStringLiteral("no-such-image")});
    QCOMPARE(rm.exitCode, 1);
    QVERIFY2(rm.err.contains("no image named no-such-image"), rm.err.constData());
}

void TestEngineImage::imageInUseCannotBeRemoved()
{
    const QString name = uniqueName(QStringLiteral("img"));
    QCOMPARE(m_daemon.ctl({QStringLiteral("create"), name}).exitCode, 0);
    const CtlResult rm = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("rm"), QStringLiteral("tiny")});
    QCOMPARE(rm.exitCode, 1);
    QVERIFY2(rm.err.contains("image tiny is in use") && rm.err.contains(name.toUtf8()), rm.err.constData());
    QCOMPARE(m_daemon.ctl({QStringLiteral("rm"), name}).exitCode, 0);
}

QTEST_GUILESS_MAIN(TestEngineImage)
#include "test_engine_image.moc"
