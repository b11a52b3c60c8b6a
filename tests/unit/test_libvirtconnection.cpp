// What the network sweep may conclude from libvirt (libvirt's test driver, test:///default,
// in-process): only "no such domain" or a confirmed shut-off state count as stopped; a
// connection that cannot answer never does, and a lost one is retried with backoff.
#include "libvirtconnection.h"
#include "sandboxengine.h"

#include <QElapsedTimer>
#include <QTest>
#include <thread>

using namespace airlock;

class TestLibvirtConnection : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stateIsMissingOnlyWhenLibvirtSaysSo()
    {
        LibvirtConnection c;
        QVERIFY(c.open(QStringLiteral("test:///default")));
        QVERIFY(c.isAlive());
        QCOMPARE(SandboxEngine::stateOf(c.get(), QStringLiteral("test")), QStringLiteral("running"));
        QCOMPARE(SandboxEngine::stateOf(c.get(), QStringLiteral("no-such-domain")), QStringLiteral("missing"));
        virDomainPtr d = virDomainLookupByName(c.get(), "test");
        QVERIFY(d);
        QCOMPARE(virDomainDestroy(d), 0);
        virDomainFree(d);
        QCOMPARE(SandboxEngine::stateOf(c.get(), QStringLiteral("test")), QStringLiteral("stopped"));
    }

    void aConnectionThatCannotAnswerSaysNothingAboutTheGuest()
    {
        LibvirtConnection::initializeLibvirt();
        // No connection at all (libvirtd gone): the guest may still run.
        QCOMPARE(SandboxEngine::stateOf(nullptr, QStringLiteral("test")), QStringLiteral("unknown"));
    }

    void aLostConnectionIsRetriedWithBackoff()
    {
        LibvirtConnection c;
        const QString nowhere = QStringLiteral("qemu+unix:///system?socket=/nonexistent/airlock-test/libvirt-sock");
        QVERIFY(!c.open(nowhere));
        QCOMPARE(c.generation(), quint64(0));
        const Status first = c.ensureAlive(); // tries at once
        QVERIFY(!first);
        const Status second = c.ensureAlive(); // within the backoff: no attempt
        QVERIFY(!second);
        QVERIFY2(second.error().message().contains(QLatin1String("next attempt in")), qPrintable(second.error().message()));
        std::this_thread::sleep_for(LibvirtConnection::kFirstBackoff + std::chrono::milliseconds(100));
        const Status third = c.ensureAlive(); // tried again, failed again: backoff doubled
        QVERIFY(!third);
        QVERIFY2(!third.error().message().contains(QLatin1String("next attempt in")), qPrintable(third.error().message()));
        const Status fourth = c.ensureAlive();
        QVERIFY2(fourth.error().message().contains(QLatin1String("next attempt in")), qPrintable(fourth.error().message()));
    }

    void aWorkingConnectionCountsItsGenerations()
    {
        LibvirtConnection c;
        QVERIFY(c.open(QStringLiteral("test:///default")));
        QCOMPARE(c.generation(), quint64(1));
        QVERIFY(c.ensureAlive());
        QCOMPARE(c.generation(), quint64(1)); // alive: not reopened
        QVERIFY(c.open(QStringLiteral("test:///default")));
        QCOMPARE(c.generation(), quint64(2));
    }
};

QTEST_GUILESS_MAIN(TestLibvirtConnection)
#include "test_libvirtconnection.moc"
