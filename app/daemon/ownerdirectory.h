#pragma once
#include <QHash>
#include <QMutex>
#include <QString>
#include <optional>
#include <sys/types.h>

namespace airlock {

class Store;

// Who owns each sandbox and each image, read from the store and kept in memory, so the peer
// policy can answer from any thread (proxy, console, pool) without touching SQLite there.
// Reloaded on the engine thread, from a Store of its own, after every create, fork, remove
// and build (SandboxService::publishState, recordImage).
class OwnerDirectory {
public:
    struct Sandbox {
        qint64 id = 0;
        uid_t owner = 0;
    };
    // On the thread that owns `store`; a failure keeps what was known.
    void reload(Store &store);
    std::optional<Sandbox> sandbox(const QString &name) const;
    // An image built before builders were recorded is the daemon's own user's (root's for
    // the system service).
    std::optional<uid_t> imageOwner(const QString &name) const;

private:
    mutable QMutex m_lock;
    QHash<QString, Sandbox> m_sandboxes;
    QHash<QString, uid_t> m_images;
};

} // namespace airlock
