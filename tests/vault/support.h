#pragma once
// Shared by the vault tests: a store with a sandbox row to lend secrets to.
#include "../support/storerows.h"
#include "store/store.h"

#include <QString>

namespace airlock::testsupport {

inline qint64 addSandbox(const QString &dbPath, const QString &name)
{
    auto store = Store::open(dbPath);
    if (!store)
        return -1;
    const qint64 id = insertSandbox(*store, name);
    return id > 0 ? id : -1;
}

} // namespace airlock::testsupport
