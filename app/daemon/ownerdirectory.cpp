#include "daemon/ownerdirectory.h"
#include "core/logging.h"
#include "store/store.h"

#include <QSqlQuery>
#include <unistd.h>

namespace airlock {

void OwnerDirectory::reload(Store &store)
{
    QHash<QString, Sandbox> sandboxes;
    QHash<QString, uid_t> images;
    QSqlQuery q(store.db());
    if (!q.exec(QStringLiteral("SELECT name, id, owner_uid FROM sandboxes"))) {
        qCWarning(lcDaemon) << "cannot read who owns the sandboxes; keeping what was known";
        return;
    }
    while (q.next())
        sandboxes.insert(q.value(0).toString(), {q.value(1).toLongLong(), uid_t(q.value(2).toLongLong())});
    q.prepare(QStringLiteral("SELECT name, coalesce(owner_uid, ?) FROM images"));
    q.addBindValue(qint64(::geteuid()));
    if (!q.exec()) {
        qCWarning(lcDaemon) << "cannot read who built the images; keeping what was known";
        return;
    }
    while (q.next())
        images.insert(q.value(0).toString(), uid_t(q.value(1).toLongLong()));
    QMutexLocker lock(&m_lock);
    m_sandboxes = std::move(sandboxes);
    m_images = std::move(images);
}

std::optional<OwnerDirectory::Sandbox> OwnerDirectory::sandbox(const QString &name) const
{
    QMutexLocker lock(&m_lock);
    const auto it = m_sandboxes.constFind(name);
    return it == m_sandboxes.constEnd() ? std::nullopt : std::optional<Sandbox>(*it);
}

std::optional<uid_t> OwnerDirectory::imageOwner(const QString &name) const
{
    QMutexLocker lock(&m_lock);
    const auto it = m_images.constFind(name);
    return it == m_images.constEnd() ? std::nullopt : std::optional<uid_t>(*it);
}

} // namespace airlock
