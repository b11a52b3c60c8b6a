#pragma once
#include <QMutex>
#include <QSet>
#include <QString>

namespace airlock {

// Image builds that are queued or running, and which of them the user cancelled
// (image.cancel). Touched from the API thread and polled from the builder thread.
class BuildCancels {
public:
    // False when a build of `name` is already queued or running.
    bool begin(const QString &name)
    {
        QMutexLocker lock(&m_lock);
        if (m_running.contains(name))
            return false;
        m_running.insert(name);
        return true;
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
    QSet<QString> m_running;
    QSet<QString> m_cancelled;
};

} // namespace airlock
