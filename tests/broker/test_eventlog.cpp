// The egress event log against a real SQLite file: a flood cannot grow memory (the queue is
// bounded, record() never waits, the loss is one "dropped" row), identical denials become a
// few rows with counts, retention deletes only old events (by age and by size), and events
// are keyed by sandbox id so a re-created name starts with no history.
#include "../support/storerows.h"
#include "eventlog.h"
#include "store/store.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <future>
#include <sys/resource.h>
#include <unistd.h>

using namespace airlock;

namespace {

using Clock = std::chrono::steady_clock;

qint64 addSandbox(Store &store, const QString &name) { return testsupport::insertSandbox(store, name, 1000); }

using testsupport::scalar;

EgressEvent makeEvent(EventLog &log, Decision decision, const QString &host, int port = 443)
{
    EgressEvent e;
    e.id = log.nextId();
    e.sandbox = QStringLiteral("box");
    e.time = QDateTime::currentDateTimeUtc();
    e.proto = QStringLiteral("tcp");
    e.host = host;
    e.ip = QStringLiteral("198.18.0.7");
    e.port = port;
    e.decision = decision;
    e.reason = decision == Decision::Denied ? QStringLiteral("rule 3: deny %1 (global)").arg(host) : QString();
    return e;
}

QList<EgressEvent> query(EventLog &log, const QString &sandbox)
{
    std::promise<QList<EgressEvent>> rows;
    EventQuery q;
    q.sandbox = sandbox;
    q.limit = EventLog::kMaxLimit;
    log.query(q, [&](Result<QList<EgressEvent>> r) { rows.set_value(r ? r.value() : QList<EgressEvent>()); });
    return rows.get_future().get();
}

long voluntarySwitches()
{
    rusage usage{};
    ::getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_nvcsw;
}

qint64 residentBytes()
{
    QFile f(QStringLiteral("/proc/self/statm"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = f.readAll().split(' ');
    return fields.value(1).toLongLong() * ::sysconf(_SC_PAGESIZE);
}

} // namespace

class TestEventLog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("events-%1.db").arg(++m_n));
        Result<Store> store = Store::open(m_path);
        QVERIFY2(store, qPrintable(store ? QString() : store.error().message()));
        m_store = std::move(store.value());
    }
    void floodIsBoundedAndNeverBlocks();
    void identicalDenialsBecomeOneRowWithACount();
    void updatesOfAnAttemptAreNotFolded();
    void retentionDeletesOldEventsOnly();
    void retentionKeepsTheDatabaseUnderItsSize();
    void reusedNameStartsWithNoHistory();
    void everyFieldSurvivesTheRoundTrip();

private:
    QTemporaryDir m_dir;
    QString m_path;
    Store m_store;
    int m_n = 0;
};

void TestEventLog::floodIsBoundedAndNeverBlocks()
{
    EventLog log;
    EventLog::Limits limits;
    limits.maxQueuedBytes = 4 * 1024 * 1024;
    log.setLimits(limits);
    QVERIFY(log.start(m_path, {}));
    // Another connection holds the write lock: the writer cannot store anything meanwhile.
    testsupport::OwnConnection holder(m_path);
    QVERIFY(holder.exec(QStringLiteral("BEGIN IMMEDIATE")));
    QVERIFY(holder.exec(QStringLiteral("INSERT INTO settings(key, value) VALUES ('lock', 'held')")));

    constexpr int kFlood = 1000000;
    const qint64 rssBefore = residentBytes();
    std::chrono::nanoseconds slowest{0};
    // Waiting (a lock, the disk) is a voluntary context switch; being preempted on a loaded
    // machine is not, so this tells a record() that blocks from one that was merely slow.
    const long waitsBefore = voluntarySwitches();
    const auto t0 = Clock::now();
    EgressEvent e = makeEvent(log, Decision::Allowed, QStringLiteral("flood.test"));
    for (int i = 0; i < kFlood; ++i) {
        e.id = log.nextId();
        const auto before = Clock::now();
        log.record(e);
        slowest = std::max(slowest, Clock::now() - before);
    }
    const long waits = voluntarySwitches() - waitsBefore;
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    const qint64 grown = residentBytes() - rssBefore;
    qInfo("%d records in %.2f s, slowest record() %lld us, %ld waits, queue %lld bytes, resident +%lld MiB, "
          "%lld dropped", kFlood, seconds, qint64(std::chrono::duration_cast<std::chrono::microseconds>(slowest).count()),
          waits, qint64(log.queuedBytes()), grown / (1024 * 1024), log.dropped());
    QVERIFY(log.queuedBytes() <= limits.maxQueuedBytes);
    QVERIFY2(grown < 64 * 1024 * 1024, "a flood grew the daemon's memory");
    QVERIFY2(slowest < std::chrono::milliseconds(100), "record() took too long");
    QVERIFY2(waits < 50, "record() waited"); // the writer's short critical sections may cost a few
    QVERIFY(log.dropped() > 0);

    QVERIFY(holder.exec(QStringLiteral("COMMIT")));
    log.flush();
    log.flush();
    const qint64 stored = scalar(m_store, QStringLiteral("SELECT count(*) FROM egress_events WHERE host = 'flood.test'"));
    const qint64 droppedRows = scalar(m_store, QStringLiteral("SELECT count(*) FROM egress_events WHERE decision = 'dropped'"));
    const qint64 droppedCount = scalar(m_store, QStringLiteral("SELECT sum(count) FROM egress_events WHERE decision = 'dropped'"));
    QCOMPARE(droppedRows, 1); // one row for the one sandbox, however many were lost
    QCOMPARE(droppedCount, log.dropped());
    QCOMPARE(stored + droppedCount, qint64(kFlood));
    QVERIFY(scalar(m_store, QStringLiteral("SELECT count(*) FROM egress_events WHERE decision = 'dropped' AND "
                                           "reason LIKE '%' || count || ' egress events were not recorded%'")) == 1);
}

void TestEventLog::identicalDenialsBecomeOneRowWithACount()
{
    EventLog log;
    QVERIFY(log.start(m_path, {}));
    constexpr int kDenials = 10000;
    for (int i = 0; i < kDenials; ++i)
        log.record(makeEvent(log, Decision::Denied, QStringLiteral("denied.test")));
    log.record(makeEvent(log, Decision::Denied, QStringLiteral("other.test")));
    log.flush();
    const qint64 rows = scalar(m_store, QStringLiteral("SELECT count(*) FROM egress_events WHERE host = 'denied.test'"));
    const qint64 total = scalar(m_store, QStringLiteral("SELECT sum(count) FROM egress_events WHERE host = 'denied.test'"));
    qInfo("%d identical denials -> %lld rows", kDenials, rows);
    QVERIFY2(rows >= 1 && rows <= 5, qPrintable(QString::number(rows)));
    QCOMPARE(total, qint64(kDenials));
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT count FROM egress_events WHERE host = 'other.test'")), 1);
    // egress ls shows the count.
    bool shown = false;
    for (const EgressEvent &e : query(log, QStringLiteral("box")))
        shown = shown || (e.host == QLatin1String("denied.test") && e.count > 1);
    QVERIFY(shown);
}

void TestEventLog::updatesOfAnAttemptAreNotFolded()
{
    EventLog log;
    QVERIFY(log.start(m_path, {}));
    // A flow held pending, then denied: its own row turns denied (not folded elsewhere).
    EgressEvent first = makeEvent(log, Decision::Denied, QStringLiteral("same.test"));
    log.record(first);
    EgressEvent held = makeEvent(log, Decision::Pending, QStringLiteral("same.test"));
    log.record(held);
    log.flush();
    held.decision = Decision::Denied;
    held.reason = first.reason;
    log.record(held);
    // A folded attempt recorded again (closed) is still one attempt.
    EgressEvent second = makeEvent(log, Decision::Denied, QStringLiteral("same.test"));
    log.record(second);
    second.durationMs = 20;
    log.record(second);
    log.flush();
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT decision = 'denied' FROM egress_events WHERE id = %1").arg(held.id)), 1);
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT sum(count) FROM egress_events WHERE host = 'same.test'")), 3);
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT count FROM egress_events WHERE id = %1").arg(first.id)), 2);
}

void TestEventLog::retentionDeletesOldEventsOnly()
{
    const qint64 box = addSandbox(m_store, QStringLiteral("box"));
    QVERIFY(box > 0);
    QVERIFY(m_store.write(QStringLiteral("INSERT INTO rules(sandbox_id, owner_uid, action, pattern, created) "
                                         "VALUES (?, 1000, 'allow', 'old.test', '2000-01-01T00:00:00Z')"), {box}));
    QVERIFY(m_store.write(QStringLiteral("INSERT INTO secrets(name, owner_uid, hosts_json, header, value_len, nonce, "
                                         "ciphertext, created) VALUES ('key', 1000, '[]', '', 1, x'00', x'00', "
                                         "'2000-01-01T00:00:00Z')")));
    EventLog log;
    EventLog::Limits limits;
    limits.retention.days = 30;
    log.setLimits(limits);
    QVERIFY(log.start(m_path, {}));
    for (int i = 0; i < 100; ++i) {
        EgressEvent old = makeEvent(log, Decision::Allowed, QStringLiteral("old.test"));
        old.time = QDateTime::currentDateTimeUtc().addDays(-31);
        log.record(old);
    }
    for (int i = 0; i < 10; ++i)
        log.record(makeEvent(log, Decision::Allowed, QStringLiteral("new.test")));
    log.flush();
    // The writer's own periodic pass may already have run: either way the old rows go.
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT count(*) FROM egress_events WHERE host = 'new.test'")), 10);
    log.enforceRetention();
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT count(*) FROM egress_events WHERE host = 'old.test'")), 0);
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT count(*) FROM egress_events WHERE host = 'new.test'")), 10);
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT count(*) FROM rules")), 1);
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT count(*) FROM secrets")), 1);
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT count(*) FROM sandboxes")), 1);
}

void TestEventLog::retentionKeepsTheDatabaseUnderItsSize()
{
    const qint64 box = addSandbox(m_store, QStringLiteral("box"));
    QVERIFY(m_store.write(QStringLiteral("INSERT INTO rules(sandbox_id, owner_uid, action, pattern, created) "
                                         "VALUES (?, 1000, 'allow', 'kept.test', 'now')"), {box}));
    constexpr qint64 kCap = 1024 * 1024;
    EventLog log;
    EventLog::Limits limits;
    limits.retention.maxBytes = kCap;
    log.setLimits(limits);
    QVERIFY(log.start(m_path, {}));
    qint64 newest = 0;
    for (int i = 0; i < 20000; ++i) { // about 8 MiB of rows
        EgressEvent e = makeEvent(log, Decision::Allowed, QStringLiteral("big.test"));
        e.reason = QString(300, QLatin1Char('r'));
        newest = e.id;
        log.record(e);
    }
    log.flush();
    const auto used = [&] {
        return scalar(m_store, QStringLiteral("SELECT (SELECT page_count FROM pragma_page_count()) - "
                                              "(SELECT freelist_count FROM pragma_freelist_count())")) *
               scalar(m_store, QStringLiteral("PRAGMA page_size"));
    };
    // The writer's own periodic pass may already have trimmed: either way the cap must hold,
    // with the newest rows kept and the oldest gone (checked below).
    log.enforceRetention();
    const qint64 left = scalar(m_store, QStringLiteral("SELECT count(*) FROM egress_events"));
    qInfo("after retention: %lld bytes used, %lld of 20000 rows left", used(), left);
    QVERIFY(used() <= kCap);
    QVERIFY(left > 0 && left < 20000);
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT max(id) FROM egress_events")), newest); // the oldest went first
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT count(*) FROM rules")), 1);
    QCOMPARE(scalar(m_store, QStringLiteral("SELECT count(*) FROM sandboxes")), 1);
}

void TestEventLog::reusedNameStartsWithNoHistory()
{
    EventLog log;
    QVERIFY(log.start(m_path, {}));
    const qint64 first = addSandbox(m_store, QStringLiteral("box"));
    QVERIFY(first > 0);
    log.setSandboxId(QStringLiteral("box"), first);
    for (int i = 0; i < 5; ++i)
        log.record(makeEvent(log, Decision::Allowed, QStringLiteral("first.test")));
    log.flush();
    QCOMPARE(query(log, QStringLiteral("box")).size(), 5);

    // rm, then create again under the same name: a new row (SQLite may even give it the same id).
    QVERIFY(m_store.write(QStringLiteral("DELETE FROM sandboxes WHERE id = ?"), {first}));
    QCOMPARE(query(log, QStringLiteral("box")).size(), 5); // a removed sandbox's history stays readable by name
    const qint64 second = addSandbox(m_store, QStringLiteral("box"));
    QVERIFY(second > 0);
    QCOMPARE(query(log, QStringLiteral("box")).size(), 0);
    log.setSandboxId(QStringLiteral("box"), second);
    log.record(makeEvent(log, Decision::Allowed, QStringLiteral("second.test")));
    log.flush();
    const QList<EgressEvent> rows = query(log, QStringLiteral("box"));
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.at(0).host, QStringLiteral("second.test"));
    QCOMPARE(query(log, QString()).size(), 6); // all of it is still on record
}

// What the writer's batch binds is what a query reads back, field by field; a rule and a
// sandbox id of 0 are stored as NULL.
void TestEventLog::everyFieldSurvivesTheRoundTrip()
{
    EventLog log;
    QVERIFY(log.start(m_path, {}));
    EgressEvent e = makeEvent(log, Decision::Allowed, QStringLiteral("api.example.test"), 8443); // a denial would be folded
    e.time = QDateTime::fromString(QStringLiteral("2026-11-30T15:43:37.123Z"), Qt::ISODateWithMs);
    e.proto = QStringLiteral("http");
    e.ip = QStringLiteral("198.18.0.7");
    e.sni = QStringLiteral("sni.example.test");
    e.method = QStringLiteral("POST");
    e.path = QStringLiteral("/v1/ünïcode?q=1");
    e.rule = qint64(1) << 33;
    e.reason = QStringLiteral("rule says yes");
    e.bytesUp = 123456789012;
    e.bytesDown = 42;
    e.durationMs = 9876;
    EgressEvent unruled = makeEvent(log, Decision::Allowed, QStringLiteral("plain.test"));
    log.record(e);
    log.record(unruled);
    log.flush();
    const QList<EgressEvent> rows = query(log, QStringLiteral("box"));
    QCOMPARE(rows.size(), 2);
    const EgressEvent &r = rows.at(0);
    QCOMPARE(r.id, e.id);
    QCOMPARE(r.sandbox, e.sandbox);
    QCOMPARE(r.time, e.time);
    for (const auto &[got, want] : {std::pair{r.proto, e.proto}, {r.host, e.host}, {r.ip, e.ip}, {r.sni, e.sni},
                                    {r.method, e.method}, {r.path, e.path}, {r.reason, e.reason}})
        QCOMPARE(got, want);
    QCOMPARE(r.port, 8443);
    QCOMPARE(r.decision, Decision::Allowed);
    QCOMPARE(r.rule, e.rule);
    QCOMPARE(r.bytesUp, e.bytesUp);
    QCOMPARE(r.bytesDown, e.bytesDown);
    QCOMPARE(r.durationMs, e.durationMs);
    QCOMPARE(r.count, e.count);
    QCOMPARE(rows.at(1).rule, qint64(0));
    const auto nulls = m_store.firstRow(QStringLiteral("SELECT typeof(rule), typeof(sandbox_id) FROM egress_events WHERE id = ?"),
                                        {unruled.id});
    QVERIFY(nulls && *nulls);
    QCOMPARE((*nulls)->value(0).toString(), QStringLiteral("null"));
    QCOMPARE((*nulls)->value(1).toString(), QStringLiteral("null"));
}

QTEST_GUILESS_MAIN(TestEventLog)
#include "test_eventlog.moc"
