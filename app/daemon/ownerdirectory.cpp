#include "daemon/ownerdirectory.h"
#include "core/logging.h"
#include "store/store.h"

#include <QSqlRecord>
#include <unistd.h>

namespace airlock {

void OwnerDirectory::reload(Store &store)
{
    QHash<QString, Sandbox> sandboxes;
    QHash<QString, uid_t> images;
    const auto boxes = store.rows(QStringLiteral("SELECT name, id, owner_uid FROM sandboxes"));
    if (!boxes) {
        qCWarning(lcDaemon) << "cannot read who owns the sandboxes; keeping what was known:" << boxes.error().message();
        return;
    }
    for (const QSqlRecord &q : *boxes)
        sandboxes.insert(q.value(0).toString(), {q.value(1).toLongLong(), uid_t(q.value(2).toLongLong())});
    const auto built = store.rows(QStringLiteral("SELECT name, coalesce(owner_uid, ?) FROM images"), {qint64(::geteuid())});
    if (!built) {
        qCWarning(lcDaemon) << "cannot read who built the images; keeping what was known:" << built.error().message();
        return;
    }
    for (const QSqlRecord &q : *built)
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
