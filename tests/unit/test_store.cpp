// The store: migrations, refusal of newer and corrupt files, rollback of a failed migration.
#include "store/store.h"

#include <QFile>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace airlock;

namespace airlock {
// The one way past Store's API: a test that must leave a read open to see it refused.
struct StoreTestAccess {
    static QSqlDatabase db(const Store &store) { return store.db(); }
};
} // namespace airlock

namespace {

QVariant firstValue(const Store &store, const QString &sql, const QVariantList &binds = {})
{
    const auto row = store.firstRow(sql, binds);
    return row && *row ? (*row)->value(0) : QVariant();
}

} // namespace

class TestStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void createsSchemaWithWalAndForeignKeys();
    void reopensWithoutMigratingAgain();
    void refusesNewerSchema();
    void refusesCorruptFileAndLeavesItUntouched();
    void failedMigrationKeepsOldSchema();
    void settingsRoundTrip();
    void readsReleaseTheirStatement();
    void changeCountsTheRowsItChanged();
    void batchBindsEachTypeAndRefusesReads();
    void batchRefusesWhileAReadIsOpen();
};

void TestStore::createsSchemaWithWalAndForeignKeys()
{
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath(QStringLiteral("a.db")));
    QVERIFY2(store.ok(), qPrintable(store.error().message()));
    QCOMPARE(store->version(), Store::schemaVersion());
    QCOMPARE(firstValue(*store, QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
    QCOMPARE(firstValue(*store, QStringLiteral("PRAGMA foreign_keys")).toInt(), 1);
    for (const char *table : {"sandboxes", "images", "layers", "snapshots", "networks", "rules", "egress_events",
                              "secrets", "key_slots", "settings", "operations"}) {
        QVERIFY2(store->rows(QStringLiteral("SELECT count(*) FROM ") + QLatin1String(table)), table);
    }
    // Foreign keys are enforced: a snapshot of a sandbox that does not exist is refused.
    QVERIFY(!store->write(QStringLiteral("INSERT INTO snapshots(sandbox_id, layer_id, created) VALUES (42, 42, 'now')")));
}

void TestStore::reopensWithoutMigratingAgain()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("a.db"));
    {
        auto store = Store::open(path);
        QVERIFY(store.ok());
        QVERIFY(store.value().setSetting(QStringLiteral("k"), QStringLiteral("v")).ok());
    }
    auto again = Store::open(path);
    QVERIFY2(again.ok(), qPrintable(again.error().message()));
    QCOMPARE(again->setting(QStringLiteral("k")).value(), QStringLiteral("v"));
}

void TestStore::refusesNewerSchema()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("a.db"));
    {
        auto store = Store::open(path);
        QVERIFY(store.ok());
        QVERIFY(store->write(QStringLiteral("PRAGMA user_version=%1").arg(Store::schemaVersion() + 5)));
    }
    auto newer = Store::open(path);
    QVERIFY(!newer.ok());
    QVERIFY2(newer.error().message().contains(QLatin1String("newer Airlock")), qPrintable(newer.error().message()));
}

void TestStore::refusesCorruptFileAndLeavesItUntouched()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("a.db"));
    const QByteArray garbage(8192, 'x');
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(garbage);
    }
    auto store = Store::open(path);
    QVERIFY(!store.ok());
    QVERIFY2(store.error().message().contains(QLatin1String("not a SQLite database")), qPrintable(store.error().message()));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), garbage);

    // A real database whose pages were damaged after the header is caught by SQLite's own check.
    const QString damaged = dir.filePath(QStringLiteral("b.db"));
    {
        auto good = Store::open(damaged);
        QVERIFY(good.ok());
        QVERIFY(good->rows(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)")));
    }
    QFile::remove(damaged + QStringLiteral("-wal"));
    QFile::remove(damaged + QStringLiteral("-shm"));
    QByteArray bytes;
    {
        QFile in(damaged);
        QVERIFY(in.open(QIODevice::ReadOnly));
        bytes = in.readAll();
    }
    QVERIFY(bytes.size() > 8192);
    for (qsizetype i = 4096; i < bytes.size(); ++i)
        bytes[i] = char(0xA5);
    {
        QFile out(damaged);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bytes);
    }
    auto broken = Store::open(damaged);
    QVERIFY(!broken.ok());
    QFile check(damaged);
    QVERIFY(check.open(QIODevice::ReadOnly));
    QCOMPARE(check.readAll(), bytes);
}

void TestStore::failedMigrationKeepsOldSchema()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("a.db"));
    {
        auto store = Store::open(path);
        QVERIFY(store.ok());
    }
    // The real migrations cannot be made to fail on demand, so a broken step stands in for one.
    std::vector<Migration> steps = Store::migrations();
    const int next = Store::schemaVersion() + 1;
    steps.push_back({next, QStringLiteral("half-good step"),
                     QStringLiteral("CREATE TABLE added_then_rolled_back (x INTEGER);\nTHIS IS NOT SQL")});
    auto failed = Store::open(path, steps);
    QVERIFY(!failed.ok());
    QVERIFY2(failed.error().message().contains(QLatin1String("rolled back")), qPrintable(failed.error().message()));

    auto store = Store::open(path);
    QVERIFY(store.ok());
    QCOMPARE(store->version(), Store::schemaVersion());
    QVERIFY(!store->rows(QStringLiteral("SELECT * FROM added_then_rolled_back")));
}

void TestStore::settingsRoundTrip()
{
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath(QStringLiteral("a.db")));
    QVERIFY(store.ok());
    QCOMPARE(store->setting(QStringLiteral("missing"), QStringLiteral("dflt")).value(), QStringLiteral("dflt"));
    QVERIFY(store.value().setSetting(QStringLiteral("hold_timeout"), QStringLiteral("120")).ok());
    QVERIFY(store.value().setSetting(QStringLiteral("hold_timeout"), QStringLiteral("30")).ok());
    QCOMPARE(store->setting(QStringLiteral("hold_timeout")).value(), QStringLiteral("30"));
}

// rows() and firstRow() materialise and release the statement before they return, so a
// read never pins this connection's snapshot: after one, another connection commits and
// this one still writes. firstRow() of a many-row result is the case a caller's own open
// QSqlQuery got wrong; the last block shows the store refuses such a read left open.
void TestStore::readsReleaseTheirStatement()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("a.db"));
    auto mine = Store::open(path);
    auto other = Store::open(path);
    QVERIFY(mine.ok() && other.ok());
    for (int i = 0; i < 5; ++i)
        QVERIFY(mine->setSetting(QStringLiteral("k%1").arg(i), QStringLiteral("v")).ok());

    auto first = mine->firstRow(QStringLiteral("SELECT key FROM settings ORDER BY key"));
    QVERIFY(first.ok() && first->has_value());
    QCOMPARE((*first)->value(0).toString(), QStringLiteral("k0"));
    QVERIFY(other->setSetting(QStringLiteral("from-other"), QStringLiteral("1")).ok()); // a concurrent writer commits
    Status wrote = mine->transaction([&] { return mine->setSetting(QStringLiteral("after-first-row"), QStringLiteral("1")); });
    QVERIFY2(wrote.ok(), qPrintable(wrote.error().message()));

    auto all = mine->rows(QStringLiteral("SELECT key FROM settings ORDER BY key"));
    QVERIFY(all.ok());
    QCOMPARE(all->size(), 7);
    QVERIFY(other->setSetting(QStringLiteral("from-other"), QStringLiteral("2")).ok());
    Result<qint64> direct = mine->write(QStringLiteral("INSERT INTO settings(key, value) VALUES('after-rows', '1')"));
    QVERIFY2(direct.ok(), qPrintable(direct.error().message()));
    QCOMPARE(mine->setting(QStringLiteral("from-other")).value(), QStringLiteral("2")); // and it sees the other's commit

    // The mistake the two calls rule out: a statement stepped once and left open.
    QSqlQuery leftOpen(StoreTestAccess::db(*mine));
    QVERIFY(leftOpen.exec(QStringLiteral("SELECT key FROM settings")) && leftOpen.next());
    Status refused = mine->transaction([] { return ok(); });
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message().contains(QLatin1String("still open")), qPrintable(refused.error().message()));
}

// change() is for the writes that must hit a row (the vault's compare-and-swap of its key
// slot, removing a rule that must exist): it says how many they hit.
void TestStore::changeCountsTheRowsItChanged()
{
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath(QStringLiteral("a.db")));
    QVERIFY(store.ok());
    for (int i = 0; i < 3; ++i)
        QVERIFY(store->setSetting(QStringLiteral("k%1").arg(i), QStringLiteral("old")).ok());
    Result<int> updated = store->change(QStringLiteral("UPDATE settings SET value = ? WHERE value = ?"), {QStringLiteral("new"), QStringLiteral("old")});
    QVERIFY2(updated.ok(), qPrintable(updated.error().message()));
    QCOMPARE(*updated, 3);
    Result<int> none = store->change(QStringLiteral("DELETE FROM settings WHERE key = ?"), {QStringLiteral("absent")});
    QVERIFY(none.ok());
    QCOMPARE(*none, 0);
    Result<int> bad = store->change(QStringLiteral("UPDATE no_such_table SET x = 1"));
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().message().contains(QLatin1String("no_such_table")), qPrintable(bad.error().message()));
}

// A Batch binds integers, text, blobs and NULL as QtSql would, resets after a failed row
// (the next row still goes in), and cannot be a read or be given the wrong number of values.
void TestStore::batchBindsEachTypeAndRefusesReads()
{
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath(QStringLiteral("a.db")));
    QVERIFY(store.ok());
    QVERIFY(store->write(QStringLiteral("CREATE TABLE t(i INTEGER PRIMARY KEY, s TEXT, b BLOB, n INTEGER)")));

    Result<Store::Batch> read = store->prepare(QStringLiteral("SELECT * FROM t"));
    QVERIFY(!read.ok());
    QVERIFY2(read.error().message().contains(QLatin1String("only writes")), qPrintable(read.error().message()));
    QVERIFY(!store->prepare(QStringLiteral("INSERT INTO no_such_table VALUES(1)")).ok());

    Result<Store::Batch> insert = store->prepare(QStringLiteral("INSERT INTO t(i, s, b, n) VALUES(?, ?, ?, ?)"));
    QVERIFY2(insert.ok(), qPrintable(insert.error().message()));
    const QByteArray blob = QByteArray::fromHex("00ff6279746573");
    Status stored = store->transaction([&]() -> Status {
        if (Status s = insert->run({qint64(1) << 40, QStringLiteral("tëxt"), blob, QVariant(QMetaType(QMetaType::LongLong))}); !s)
            return s;
        Status duplicate = insert->run({qint64(1) << 40, QString(), QByteArray(), 0});
        if (duplicate)
            return Error{QStringLiteral("a duplicate key went in")};
        return insert->run({2, QString(), QByteArray(), 7});
    });
    QVERIFY2(stored.ok(), qPrintable(stored.error().message()));
    const auto row = store->firstRow(QStringLiteral("SELECT i, typeof(s), s, typeof(b), b, typeof(n) FROM t ORDER BY i DESC LIMIT 1"));
    QVERIFY(row.ok() && row->has_value());
    const QSqlRecord &r = **row;
    QCOMPARE(r.value(0).toLongLong(), qint64(1) << 40);
    QCOMPARE(r.value(1).toString(), QStringLiteral("text"));
    QCOMPARE(r.value(2).toString(), QStringLiteral("tëxt"));
    QCOMPARE(r.value(3).toString(), QStringLiteral("blob"));
    QCOMPARE(r.value(4).toByteArray(), blob);
    QCOMPARE(r.value(5).toString(), QStringLiteral("null"));
    QCOMPARE(firstValue(*store, QStringLiteral("SELECT n FROM t WHERE i = 2")).toInt(), 7);
    QCOMPARE(firstValue(*store, QStringLiteral("SELECT count(*) FROM t")).toInt(), 2);

    Status wrongCount = insert->run({3});
    QVERIFY(!wrongCount.ok());
    QVERIFY2(wrongCount.error().message().contains(QLatin1String("1 values for 4 parameters")), qPrintable(wrongCount.error().message()));
    Store::Batch moved = std::move(insert.value());
    QVERIFY(!insert->run({4, QString(), QByteArray(), 0}).ok()); // the moved-from one holds nothing
    QVERIFY(moved.run({4, QString(), QByteArray(), 0}).ok());
}

// Outside a transaction a Batch refuses, as write() does, while a read is left open.
void TestStore::batchRefusesWhileAReadIsOpen()
{
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath(QStringLiteral("a.db")));
    QVERIFY(store.ok());
    QVERIFY(store->setSetting(QStringLiteral("a"), QStringLiteral("1")).ok());
    Result<Store::Batch> insert = store->prepare(QStringLiteral("INSERT INTO settings(key, value) VALUES(?, ?)"));
    QVERIFY(insert.ok());
    QSqlQuery leftOpen(StoreTestAccess::db(*store));
    QVERIFY(leftOpen.exec(QStringLiteral("SELECT key FROM settings")) && leftOpen.next());
    Status refused = insert->run({QStringLiteral("b"), QStringLiteral("2")});
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message().contains(QLatin1String("still open")), qPrintable(refused.error().message()));
    leftOpen.finish();
    QVERIFY(insert->run({QStringLiteral("b"), QStringLiteral("2")}).ok());
    QCOMPARE(store->setting(QStringLiteral("b")).value(), QStringLiteral("2"));
}

QTEST_GUILESS_MAIN(TestStore)
#include "test_store.moc"
