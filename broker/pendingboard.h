#pragma once
// The transparent proxy's pending items as other threads may read them: the proxy's loop
// writes every change here, and egress.list, egress.decide and the peer policy read it
// under a mutex instead of waiting for the loop (a busy loop never stalls the API).
#include "egressevent.h"

#include <QHash>
#include <QList>
#include <mutex>
#include <optional>

namespace airlock {

class PendingBoard {
public:
    // The item `itemId` (its event as first held) now holds the flow of event `eventId`.
    void hold(qint64 itemId, const EgressEvent &item, qint64 eventId);
    // The item's event changed while it waits (the guest reported its process).
    void update(qint64 itemId, const EgressEvent &item);
    // The flow of event `eventId` left its item (closed before a decision).
    void leave(qint64 eventId);
    // The item is gone (decided, timed out, or its last flow closed).
    void remove(qint64 itemId);

    // Items sorted by id, optionally of one sandbox.
    QList<EgressEvent> items(const QString &sandbox = {}) const;
    // The item that event `id` belongs to (its own id or a joined flow's).
    std::optional<EgressEvent> find(qint64 id) const;
    qint64 size() const;

private:
    mutable std::mutex m_mutex;
    QHash<qint64, EgressEvent> m_items;  // by item id
    QHash<qint64, qint64> m_itemOfEvent; // member flow's event id -> item id
};

} // namespace airlock
