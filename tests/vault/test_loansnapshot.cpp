// What the transparent proxy's loop asks per flow about borrowed secrets (SecretBridge::wants
// -> Interceptor::needsInterception, placeholderIn -> placeholderOwner) is answered from
// memory: every SQLite statement is traced, and the thread playing the proxy loop runs none,
// while another connection holds the database's write lock; the answers follow secret set,
// lend and sandbox removal.
#include "interceptor.h"
#include "support.h"
#include "vault.h"

#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <sqlite3.h>
#include <thread>
#include <vector>

using namespace airlock;

namespace {

thread_local bool t_proxyLoop = false;
std::atomic<int> g_proxyStatements{0};

int traced(unsigned, void *, void *, void *)
{
    if (t_proxyLoop)
        g_proxyStatements.fetch_add(1);
    return 0;
}

// Every connection opened from now on (QtSql's driver uses the same libsqlite3) is traced.
int traceConnection(sqlite3 *db, const char **, const sqlite3_api_routines *)
{
    sqlite3_trace_v2(db, SQLITE_TRACE_STMT, traced, nullptr);
    return SQLITE_OK;
}

// Runs `work` `times` on a fresh thread marked as the proxy loop (its own thread-local stores,
// as the real loop would get); returns each call's duration, sorted.
std::vector<std::chrono::microseconds> onProxyLoop(const std::function<void()> &work, int times = 1)
{
    std::vector<std::chrono::microseconds> took;
    std::thread([&] {
        t_proxyLoop = true;
        for (int i = 0; i < times; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            work();
            took.push_back(std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0));
        }
    }).join();
    std::sort(took.begin(), took.end());
    return took;
}

const QByteArray kPass = QByteArrayLiteral("correct horse battery staple");

} // namespace

class TestLoanSnapshot : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(sqlite3_auto_extension(reinterpret_cast<void (*)()>(traceConnection)) == SQLITE_OK);
    }
    void proxyLoopRunsNoSqlite();
    void requestRuleNamesAreInterceptedOnlyForFlowsDecidedPerRequest();
};

void TestLoanSnapshot::proxyLoopRunsNoSqlite()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("airlock.db"));
    Vault vault(db);
    QVERIFY(vault.open());
    QVERIFY(vault.init(kPass));
    const Status set = vault.setSecret(QStringLiteral("alpha"), {QStringLiteral("api.bound.test")}, {}, QByteArrayLiteral("sk-alpha-000001"), 0);
    QVERIFY2(set, qPrintable(set ? QString() : set.error().message()));
    const qint64 box = testsupport::addSandbox(db, QStringLiteral("box"));
    QVERIFY(box > 0);
    const Result<QByteArray> placeholder = vault.lendSecret(box, QStringLiteral("alpha"), QStringLiteral("ALPHA_KEY"), 0);
    QVERIFY(placeholder);
    Interceptor interceptor(vault, {}, {});

    // Another connection holds the write lock for the whole time the "proxy" asks.
    testsupport::OwnConnection other(db);
    QVERIFY(other.exec(QStringLiteral("BEGIN EXCLUSIVE")));
    QVERIFY(other.exec(QStringLiteral("INSERT INTO settings(key, value) VALUES ('lock', 'held')")));
    const QByteArray request = "GET /?k=" + placeholder.value() + " HTTP/1.1\r\n";
    bool wanted = false, evil = true, otherBox = true;
    std::optional<QString> owner;
    const auto took = onProxyLoop([&] {
        wanted = interceptor.needsInterception(QStringLiteral("box"), QStringLiteral("api.bound.test"));
        evil = interceptor.needsInterception(QStringLiteral("box"), QStringLiteral("evil.test"));
        otherBox = interceptor.needsInterception(QStringLiteral("nobody"), QStringLiteral("api.bound.test"));
        owner = interceptor.placeholderOwner(QStringLiteral("box"), request);
    }, 1000);
    const std::chrono::microseconds p99 = took.at(took.size() * 99 / 100);
    qInfo("1000 decisions while the database was locked: median %lld us, 99th percentile %lld us, slowest %lld us "
          "(a loaded machine may preempt any one of them)",
          qint64(took.at(took.size() / 2).count()), qint64(p99.count()), qint64(took.back().count()));
    QVERIFY(wanted);
    QVERIFY(!evil);
    QVERIFY(!otherBox);
    QCOMPARE(owner, std::optional<QString>(QStringLiteral("alpha")));
    QVERIFY2(p99 < std::chrono::milliseconds(5), "the proxy loop waited");
    QCOMPARE(g_proxyStatements.load(), 0);
    QVERIFY(other.exec(QStringLiteral("ROLLBACK")));

    // secret set with other hosts: the loop sees the new binding at once.
    QVERIFY(vault.setSecret(QStringLiteral("alpha"), {QStringLiteral("new.bound.test")}, {}, QByteArrayLiteral("sk-alpha-000002"), 0));
    onProxyLoop([&] {
        wanted = interceptor.needsInterception(QStringLiteral("box"), QStringLiteral("new.bound.test"));
        evil = interceptor.needsInterception(QStringLiteral("box"), QStringLiteral("api.bound.test"));
    });
    QVERIFY(wanted);
    QVERIFY(!evil);

    // sandbox rm (its loans cascade away, then the daemon forgets it): nothing is intercepted.
    QVERIFY(Store::open(db)->write(QStringLiteral("DELETE FROM sandboxes WHERE id = ?"), {box}));
    vault.forgetSandbox(QStringLiteral("box"));
    onProxyLoop([&] {
        wanted = interceptor.needsInterception(QStringLiteral("box"), QStringLiteral("new.bound.test"));
        owner = interceptor.placeholderOwner(QStringLiteral("box"), request);
    });
    QVERIFY(!wanted);
    QCOMPARE(owner, std::nullopt);

    QCOMPARE(g_proxyStatements.load(), 0);
}

// A sandbox that borrows nothing gets a CA for the names of its request rules: a flow whose
// requests rules decide is intercepted there, any other flow to the same name is relayed.
void TestLoanSnapshot::requestRuleNamesAreInterceptedOnlyForFlowsDecidedPerRequest()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("airlock.db"));
    Vault vault(db);
    QVERIFY(vault.open());
    QVERIFY(vault.init(kPass));
    const qint64 box = testsupport::addSandbox(db, QStringLiteral("rules"));
    QVERIFY(box > 0);
    // Nothing to constrain the CA to: no CA (one without name constraints would speak for any name).
    QVERIFY(!vault.issueSandboxCa(box));
    Result<Store> store = Store::open(db);
    QVERIFY(store);
    const Result<QByteArray> pem = vault.issueSandboxCa(store.value(), box, {QStringLiteral("*.rules.test")});
    QVERIFY2(pem, qPrintable(pem ? QString() : pem.error().message()));
    QVERIFY(vault.reloadLoans());
    Interceptor interceptor(vault, {}, {});
    bool perRequest = false, whole = true, outside = true;
    onProxyLoop([&] {
        perRequest = interceptor.needsInterception(QStringLiteral("rules"), QStringLiteral("api.rules.test"), true);
        whole = interceptor.needsInterception(QStringLiteral("rules"), QStringLiteral("api.rules.test"), false);
        outside = interceptor.needsInterception(QStringLiteral("rules"), QStringLiteral("rules.test.evil"), true);
    });
    QVERIFY(perRequest);
    QVERIFY(!whole);
    QVERIFY(!outside);
    QCOMPARE(vault.caHosts(QStringLiteral("rules")), QStringList{QStringLiteral("*.rules.test")});
    QCOMPARE(g_proxyStatements.load(), 0);
}

QTEST_GUILESS_MAIN(TestLoanSnapshot)
#include "test_loansnapshot.moc"
