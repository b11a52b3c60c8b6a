#include "eventretention.h"
#include "egressevent.h"

#include <QSqlRecord>
#include <algorithm>

namespace airlock::eventretention {

namespace {

constexpr int kChunk = 5000;
constexpr int kMaxRounds = 200;

Error failure(const Error &e) { return Error{QStringLiteral("cannot delete old egress events"), e.why}; }

// The first column of the first row; -1 when there is no row or it is NULL.
Result<qint64> scalar(Store &db, const QString &sql, const QVariantList &binds = {})
{
    const auto row = db.firstRow(sql, binds);
    if (!row)
        return failure(row.error());
    if (!*row || (*row)->isNull(0))
        return qint64(-1);
    return (*row)->value(0).toLongLong();
}

// Deletes the rows with id < `below`; returns how many.
Result<int> deleteBelow(Store &db, qint64 below)
{
    const Result<int> n = db.change(QStringLiteral("DELETE FROM egress_events WHERE id < ?"), {below});
    if (!n)
        return failure(n.error());
    return n;
}

Result<qint64> oldestId(Store &db) { return scalar(db, QStringLiteral("SELECT id FROM egress_events ORDER BY id LIMIT 1")); }

// The first id young enough to keep (a scan that stops there), or one past the newest.
Result<qint64> firstKept(Store &db, const QDateTime &cutoff)
{
    const Result<qint64> keep = scalar(db, QStringLiteral("SELECT id FROM egress_events WHERE time >= ? ORDER BY id LIMIT 1"),
                                       {EgressEvent::isoTime(cutoff)});
    if (!keep || *keep >= 0)
        return keep;
    return scalar(db, QStringLiteral("SELECT max(id) + 1 FROM egress_events"));
}

} // namespace

Result<qint64> usedBytes(Store &db)
{
    qint64 v[3] = {};
    const char *pragmas[3] = {"PRAGMA page_count", "PRAGMA freelist_count", "PRAGMA page_size"};
    for (int i = 0; i < 3; ++i) {
        const Result<qint64> n = scalar(db, QString::fromLatin1(pragmas[i]));
        if (!n)
            return n;
        if (*n < 0)
            return Error{QStringLiteral("cannot measure the database"), QStringLiteral("%1 gave no value").arg(QLatin1String(pragmas[i]))};
        v[i] = *n;
    }
    return (v[0] - v[1]) * v[2];
}

Result<bool> enforce(Store &db, const EventRetention &retention, const QDateTime &now)
{
    int deleted = 0;
    int rounds = 0; // ids are sparse where denials were folded: bound the statements too
    const auto more = [&] { return deleted < kMaxRowsPerPass && rounds++ < kMaxRounds; };
    // Ids grow with time, so the old rows are the lowest ids: delete below the first row
    // young enough to keep, a chunk at a time.
    while (more()) {
        const Result<qint64> oldest = oldestId(db);
        if (!oldest || *oldest < 0)
            return oldest ? Result<bool>(false) : oldest.error(); // no events at all
        const Result<qint64> keep = firstKept(db, now.addDays(-retention.days));
        if (!keep)
            return keep.error();
        if (*keep <= *oldest)
            break;
        const Result<int> n = deleteBelow(db, std::min(*keep, *oldest + kChunk));
        if (!n)
            return n.error();
        deleted += *n;
    }
    // Then the size: the oldest rows go while the pages in use exceed the cap.
    for (;;) {
        const Result<qint64> used = usedBytes(db);
        if (!used)
            return used.error();
        if (!more() || *used <= retention.maxBytes)
            break;
        const Result<qint64> oldest = oldestId(db);
        if (!oldest || *oldest < 0)
            return oldest ? Result<bool>(false) : oldest.error(); // what is left is not events: not ours to delete
        const Result<qint64> newest = scalar(db, QStringLiteral("SELECT max(id) FROM egress_events"));
        if (!newest)
            return newest.error();
        // About as many ids as the excess takes, so the cap is met without emptying the table.
        const qint64 span = *newest - *oldest + 1;
        const qint64 perId = std::max<qint64>(1, *used / std::max<qint64>(1, span));
        const qint64 ids = std::clamp<qint64>((*used - retention.maxBytes) / perId + 1, 64, kChunk);
        const Result<int> n = deleteBelow(db, *oldest + ids);
        if (!n)
            return n.error();
        deleted += *n;
    }
    return !more();
}

} // namespace airlock::eventretention
