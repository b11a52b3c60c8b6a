#pragma once
#include "core/result.h"

#include <QSqlDatabase>
#include <QSqlRecord>
#include <QString>
#include <QStringList>
#include <QVariantList>
#include <functional>
#include <optional>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace airlock {

// One schema step. `sql` holds statements separated by ";\n"; each step runs in one
// transaction together with the user_version bump, so a failure leaves the old schema.
struct Migration {
    int version;
    QString description;
    QString sql;
};

// The one SQLite database airlockd owns (its schema: Store::migrations() in store.cpp).
// A Store is one connection; QtSql connections belong to the thread that opened them,
// so a worker thread opens its own Store on the same file (WAL lets them coexist).
class Store {
public:
    Store() = default;
    ~Store();
    Store(const Store &) = delete;
    Store &operator=(const Store &) = delete;
    Store(Store &&other) noexcept;
    Store &operator=(Store &&other) noexcept;

    static const std::vector<Migration> &migrations();
    static int schemaVersion();

    // Opens (creating if absent) and migrates. Refuses a newer schema and a corrupt file,
    // and never writes to either.
    static Result<Store> open(const QString &path);
    static Result<Store> open(const QString &path, const std::vector<Migration> &steps);

    QString path() const { return m_path; }
    int version() const;

    // Runs `work` inside a transaction; rolls back when it returns an error.
    // Refuses to begin while a read on this connection is unfinished: such a read pins an
    // old WAL snapshot, so the write would fail with "database is locked" whenever another
    // connection (the egress event writer) committed meanwhile. Refusing always turns that
    // timing-dependent failure into one every test sees.
    Status transaction(const std::function<Status()> &work);

    // Reads every row of `sql` into memory and releases the statement before returning, so
    // no read outlives the call: nothing a caller does with the rows can block a writer.
    Result<QList<QSqlRecord>> rows(const QString &sql, const QVariantList &binds = {}) const;
    Result<std::optional<QSqlRecord>> firstRow(const QString &sql, const QVariantList &binds = {}) const;
    // One statement that writes; returns the id of the row it inserted (if any). Outside a
    // transaction it refuses while a read is unfinished, as transaction() does.
    Result<qint64> write(const QString &sql, const QVariantList &binds = {});
    // The same, returning how many rows it changed (an UPDATE or DELETE that must hit a row).
    Result<int> change(const QString &sql, const QVariantList &binds = {});

    // One write statement prepared once and run many times (the egress event writer's
    // batched upserts): it binds straight to SQLite, without QtSql's per-value conversions.
    // prepare() refuses a statement that only reads, so a Batch never holds a read open.
    // A Batch must not outlive its Store, and is used on the Store's thread.
    class Batch {
    public:
        Batch() = default;
        ~Batch();
        Batch(const Batch &) = delete;
        Batch &operator=(const Batch &) = delete;
        Batch(Batch &&other) noexcept;
        Batch &operator=(Batch &&other) noexcept;

        // Binds `binds` in order (integers, text, blobs, null), steps and resets.
        Status run(const QVariantList &binds);

    private:
        friend class Store;
        sqlite3 *m_db = nullptr;
        sqlite3_stmt *m_statement = nullptr;
    };
    Result<Batch> prepare(const QString &sql);

    Result<QString> setting(const QString &key, const QString &fallback = {}) const;
    Status setSetting(const QString &key, const QString &value);

private:
    friend struct StoreTestAccess; // tests/unit/test_store.cpp: leaves a read open on purpose
    QSqlDatabase db() const;
    sqlite3 *handle() const;
    Status requireNoOpenRead(const QString &what) const;

    QString m_connection;
    QString m_path;
};

} // namespace airlock
