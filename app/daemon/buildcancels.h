#pragma once
#include <QHash>
#include <QMutex>
#include <QSet>
#include <QString>
#include <optional>
#include <sys/types.h>

namespace airlock {

// Image builds that are queued or running, who started each, and which of them the user
// cancelled (image.cancel). Touched from the API thread and polled from the builder thread.
class BuildCancels {
public:
    // False when a build of `name` is already queued or running.
    bool begin(const QString &name, uid_t by)
    {
        QMutexLocker lock(&m_lock);
        if (m_running.contains(name))
            return false;
        m_running.insert(name, by);
        return true;
    }
    // Who started the build of `name`, if one is queued or running.
    std::optional<uid_t> startedBy(const QString &name) const
    {
        QMutexLocker lock(&m_lock);
        const auto it = m_running.constFind(name);
        return it == m_running.constEnd() ? std::nullopt : std::optional<uid_t>(*it);
    }
    // False when no build of `name` is queued or running.
    bool cancel(const QString &name)
    {
        QMutexLocker lock(&m_lock);
        if (!m_running.contains(name))
            return false;
        m_cancelled.insert(name);
        return true;
    }
    bool isCancelled(const QString &name) const
    {
        QMutexLocker lock(&m_lock);
        return m_cancelled.contains(name);
    }
    void end(const QString &name)
    {
        QMutexLocker lock(&m_lock);
        m_running.remove(name);
        m_cancelled.remove(name);
    }

private:
    mutable QMutex m_lock;
    QHash<QString, uid_t> m_running;
    QSet<QString> m_cancelled;
};

} // namespace airlock
