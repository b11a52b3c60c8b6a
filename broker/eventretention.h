#pragma once
// How long egress events are kept (airlockd --event-retention-days / --event-retention-mib):
// rows older than `days` go, then the oldest rows while the database's used pages exceed
// `maxBytes`. Only egress_events rows are ever deleted; rules, secrets and sandboxes are
// never touched. Runs on the event writer's thread, on its connection.
#include "core/result.h"
#include "store/store.h"

#include <QDateTime>

namespace airlock {

struct EventRetention {
    int days = 30;
    qint64 maxBytes = qint64(1024) * 1024 * 1024;
};

namespace eventretention {

// Rows deleted by one call at most, so the writer never stalls long behind a big backlog.
constexpr int kMaxRowsPerPass = 50000;

// Deletes what `retention` no longer keeps (up to kMaxRowsPerPass rows); returns true when
// more is left to delete (call again soon).
Result<bool> enforce(Store &db, const EventRetention &retention, const QDateTime &now);
// The bytes the database's pages in use take (page_count - freelist_count).
Result<qint64> usedBytes(Store &db);

} // namespace eventretention
} // namespace airlock
