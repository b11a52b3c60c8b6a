#pragma once
#include <QHash>
#include <QMutex>
#include <QString>
#include <sys/types.h>

namespace airlock {

// How many sandbox.exec commands may wait for their guests at once: each holds a thread of
// the exec pool for as long as its command runs (without limit when timeout_s is 0), so one
// user's long commands must never take every thread, nor queue without end. Touched from
// the API thread (take) and the exec pool's threads (give).
class ExecSlots {
public:
    static constexpr int kThreads = 8;   // the exec pool's threads
    static constexpr int kPerOwner = 4;  // one user's commands running or queued
    static constexpr int kTotal = 32;    // everyone's, running or queued

    // Takes a slot for `owner`; empty when taken, else why not (nothing was taken).
    QString take(uid_t owner)
    {
        QMutexLocker lock(&m_lock);
        int &mine = m_perOwner[owner];
        if (mine >= kPerOwner || m_total >= kTotal) {
            const bool own = mine >= kPerOwner;
            if (mine == 0)
                m_perOwner.remove(owner);
            return own ? QStringLiteral("%1 of your commands already run in sandboxes, the limit per user; wait for one "
                                        "to finish or give them a timeout (--timeout)").arg(kPerOwner)
                       : QStringLiteral("%1 commands already run in sandboxes, the daemon's limit; try again when one "
                                        "has finished").arg(kTotal);
        }
        ++mine;
        ++m_total;
        return {};
    }
    void give(uid_t owner)
    {
        QMutexLocker lock(&m_lock);
        --m_total;
        if (--m_perOwner[owner] <= 0)
            m_perOwner.remove(owner);
    }

private:
    QMutex m_lock;
    QHash<uid_t, int> m_perOwner;
    int m_total = 0;
};

} // namespace airlock
