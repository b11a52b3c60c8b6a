#include "eventretention.h"
#include "egressevent.h"

#include <algorithm>
#include <sqlite3.h>

namespace airlock::eventretention {

namespace {

constexpr int kChunk = 5000;
constexpr int kMaxRounds = 200;

qint64 scalar(sqlite3 *db, const char *sql, const QByteArray &text = {})
{
    sqlite3_stmt *st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK)
        return -1;
    if (!text.isEmpty())
        sqlite3_bind_text(st, 1, text.constData(), int(text.size()), SQLITE_TRANSIENT);
    qint64 v = -1;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

// Deletes the rows with id < `below`; returns how many, or -1.
int deleteBelow(sqlite3 *db, qint64 below)
{
    sqlite3_stmt *st = nullptr;
    if (sqlite3_prepare_v2(db, "DELETE FROM egress_events WHERE id < ?", -1, &st, nullptr) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, below);
    const int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? sqlite3_changes(db) : -1;
}

Error failure(sqlite3 *db)
{
    return Error{QStringLiteral("cannot delete old egress events"), QString::fromUtf8(sqlite3_errmsg(db))};
}

} // namespace

qint64 usedBytes(sqlite3 *db)
{
    const qint64 pages = scalar(db, "PRAGMA page_count");
    const qint64 free = scalar(db, "PRAGMA freelist_count");
    const qint64 size = scalar(db, "PRAGMA page_size");
    return pages < 0 || free < 0 || size < 0 ? -1 : (pages - free) * size;
}

Result<bool> enforce(sqlite3 *db, const EventRetention &retention, const QDateTime &now)
{
    int deleted = 0;
    int rounds = 0; // ids are sparse where denials were folded: bound the statements too
    const auto more = [&] { return deleted < kMaxRowsPerPass && rounds++ < kMaxRounds; };
    // Ids grow with time, so the old rows are the lowest ids: find the first row young
    // enough to keep (a scan that stops there) and delete below it, a chunk at a time.
    const QByteArray cutoff = EgressEvent::isoTime(now.addDays(-retention.days)).toLatin1();
    while (more()) {
        const qint64 oldest = scalar(db, "SELECT id FROM egress_events ORDER BY id LIMIT 1");
        if (oldest < 0)
            return false; // no events at all
        qint64 keep = scalar(db, "SELECT id FROM egress_events WHERE time >= ? ORDER BY id LIMIT 1", cutoff);
        if (keep < 0)
            keep = scalar(db, "SELECT max(id) + 1 FROM egress_events");
        if (keep <= oldest)
            break;
        const int n = deleteBelow(db, std::min(keep, oldest + kChunk));
        if (n < 0)
            return failure(db);
        deleted += n;
    }
    // Then the size: the oldest rows go while the pages in use exceed the cap.
    for (qint64 used = usedBytes(db); more() && used > retention.maxBytes; used = usedBytes(db)) {
        const qint64 oldest = scalar(db, "SELECT id FROM egress_events ORDER BY id LIMIT 1");
        if (oldest < 0)
            return false; // what is left is not events: nothing more is ours to delete
        // About as many ids as the excess takes, so the cap is met without emptying the table.
        const qint64 span = scalar(db, "SELECT max(id) FROM egress_events") - oldest + 1;
        const qint64 perId = std::max<qint64>(1, used / std::max<qint64>(1, span));
        const qint64 ids = std::clamp<qint64>((used - retention.maxBytes) / perId + 1, 64, kChunk);
        const int n = deleteBelow(db, oldest + ids);
        if (n < 0)
            return failure(db);
        deleted += n;
    }
    return !more();
}

} // namespace airlock::eventretention
