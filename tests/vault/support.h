#pragma once
// Shared by the vault tests: a store with a sandbox row to lend secrets to.
#include "../support/storerows.h"
#include "store/store.h"

#include <QFile>
#include <QString>

namespace airlock::testsupport {

// A PEM (or any bytes) where a client will read it; false when it could not be written whole.
inline bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

inline qint64 addSandbox(const QString &dbPath, const QString &name)
{
    auto store = Store::open(dbPath);
    if (!store)
        return -1;
    const qint64 id = insertSandbox(*store, name);
    return id > 0 ? id : -1;
}

} // namespace airlock::testsupport
