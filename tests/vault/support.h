#pragma once
// Shared by the vault tests: a store with a sandbox row to lend secrets to.
#include "store/store.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QString>

namespace airlock::testsupport {

inline qint64 addSandbox(const QString &dbPath, const QString &name)
{
    auto store = Store::open(dbPath);
    if (!store)
        return -1;
    QSqlQuery q(store->db());
    q.exec(QStringLiteral("INSERT OR IGNORE INTO images(name, recipe, kernel, initrd, rootfs, created) "
                          "VALUES('tiny', 'tiny', 'k', 'i', 'r', 'now')"));
    q.prepare(QStringLiteral("INSERT INTO sandboxes(name, owner_uid, image, cpus, memory_mib, disk_gib, mac, created) "
                             "VALUES(?, 0, 'tiny', 1, 256, 1, ?, 'now')"));
    q.addBindValue(name);
    q.addBindValue(QStringLiteral("52:54:00:00:00:%1").arg(qHash(name) % 256, 2, 16, QLatin1Char('0')));
    if (!q.exec())
        return -1;
    return q.lastInsertId().toLongLong();
}

} // namespace airlock::testsupport
