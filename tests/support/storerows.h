#pragma once
// Rows a test puts straight into the store, and what it reads back, through Store's own API;
// and, for a test that must hold SQLite's write lock meanwhile, a connection of its own.
#include "store/store.h"

#include <QAtomicInteger>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>

namespace airlock::testsupport {

// A sandbox row (and the image row it names), without booting anything; its id, or 0.
inline qint64 insertSandbox(Store &store, const QString &name, qint64 uid = 0)
{
    static QAtomicInteger<int> mac;
    if (!store.write(QStringLiteral("INSERT OR IGNORE INTO images(name, recipe, kernel, initrd, rootfs, created) "
                                    "VALUES('tiny', 'tiny', 'k', 'i', 'r', 'now')")))
        return 0;
    const int n = mac.fetchAndAddRelaxed(1);
    const Result<qint64> id = store.write(QStringLiteral("INSERT INTO sandboxes(name, owner_uid, image, cpus, memory_mib, disk_gib, "
                                                         "mac, created) VALUES(?, ?, 'tiny', 1, 256, 1, ?, 'now')"),
                                          {name, uid, QStringLiteral("52:54:00:fe:%1:%2").arg(n / 256, 2, 16, QLatin1Char('0'))
                                                          .arg(n % 256, 2, 16, QLatin1Char('0'))});
    return id ? *id : 0;
}

// The first column of the first row of `sql`, or -1 (an error, no row, NULL).
inline qint64 scalar(const Store &store, const QString &sql, const QVariantList &binds = {})
{
    const auto row = store.firstRow(sql, binds);
    if (!row || !*row || (*row)->isNull(0))
        return -1;
    return (*row)->value(0).toLongLong();
}

// A connection of the test's own on the database file (not a Store's): for holding the
// write lock (BEGIN IMMEDIATE / EXCLUSIVE) while the code under test works.
class OwnConnection {
public:
    explicit OwnConnection(const QString &path)
        : m_name(QStringLiteral("test-own-%1").arg(counter().fetchAndAddRelaxed(1)))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
        db.open();
    }
    ~OwnConnection()
    {
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    OwnConnection(const OwnConnection &) = delete;
    OwnConnection &operator=(const OwnConnection &) = delete;

    // True when `sql` ran.
    bool exec(const QString &sql)
    {
        QSqlQuery q(QSqlDatabase::database(m_name, false));
        return q.exec(sql);
    }

private:
    static QAtomicInteger<quint64> &counter()
    {
        static QAtomicInteger<quint64> n;
        return n;
    }
    QString m_name;
};

} // namespace airlock::testsupport
