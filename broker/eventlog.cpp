#include "eventlog.h"
#include "core/diskspace.h"
#include "core/logging.h"
#include "store/store.h"

#include <QHash>
#include <QSqlError>
#include <QSqlDriver>
#include <QSqlQuery>
#include <sqlite3.h>
#include <QThread>

namespace airlock {


EventLog::~EventLog() { stop(); }

Status EventLog::start(const QString &databasePath, BatchListener listener)
{
    m_listener = std::move(listener);
    m_stopping = false;
    m_aggregator = DenialAggregator(m_limits.aggregation);
    std::promise<Status> opened;
    std::future<Status> result = opened.get_future();
    m_thread = std::thread([this, databasePath, &opened] { run(databasePath, &opened); });
    Status s = result.get();
    if (!s && m_thread.joinable())
        m_thread.join();
    return s;
}

void EventLog::stop()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_cv.notify_all();
    m_thread.join();
}

namespace {

// What a queued event costs in memory, roughly: the struct and its strings' characters.
qsizetype footprint(const EgressEvent &e)
{
    const qsizetype chars = e.sandbox.size() + e.proto.size() + e.host.size() + e.ip.size() + e.sni.size() +
                            e.method.size() + e.path.size() + e.reason.size();
    return qsizetype(sizeof(EgressEvent)) + 2 * chars + 64;
}

} // namespace

void EventLog::record(const EgressEvent &event)
{
    const auto now = DenialAggregator::Clock::now();
    std::lock_guard lock(m_mutex);
    EgressEvent e = event;
    if (!e.sandboxId)
        e.sandboxId = m_sandboxIds.value(e.sandbox);
    if (m_aggregator.absorb(e, now))
        return;
    const qsizetype cost = footprint(e);
    if (m_queuedBytes + cost > m_limits.maxQueuedBytes) {
        // Full: counted, written later as one row; the proxy loop never waits for room.
        ++m_lost[e.sandbox];
        m_dropped.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    m_queuedBytes += cost;
    m_queue.push_back(std::move(e));
    // The writer wakes on its own every kFlushMs: batching is the point.
}

void EventLog::setSandboxId(const QString &name, qint64 id)
{
    std::lock_guard lock(m_mutex);
    if (id > 0)
        m_sandboxIds.insert(name, id);
    else
        m_sandboxIds.remove(name);
}

qsizetype EventLog::queuedBytes() const
{
    std::lock_guard lock(m_mutex);
    return m_queuedBytes;
}

void EventLog::query(const EventQuery &q, std::function<void(Result<QList<EgressEvent>>)> done)
{
    std::lock_guard lock(m_mutex);
    if (!m_thread.joinable()) {
        done(Error{QStringLiteral("the egress event log is not running"), QStringLiteral("see the airlockd log")});
        return;
    }
    m_jobs.push_back([this, q, done = std::move(done)] { runQuery(q, done); });
    m_cv.notify_all();
}

void EventLog::runQuery(const EventQuery &q, const std::function<void(Result<QList<EgressEvent>>)> &done)
{
    // The sandbox that bears the name now, by id; the name only when none does.
    qint64 sandboxId = 0;
    if (!q.sandbox.isEmpty()) {
        QSqlQuery id(m_db);
        id.prepare(QStringLiteral("SELECT id FROM sandboxes WHERE name = ?"));
        id.addBindValue(q.sandbox);
        if (id.exec() && id.next())
            sandboxId = id.value(0).toLongLong();
    }
    QSqlQuery sql(m_db);
    QString where = QStringLiteral("WHERE 1");
    if (sandboxId)
        where += QStringLiteral(" AND sandbox_id = :sandbox_id");
    else if (!q.sandbox.isEmpty())
        where += QStringLiteral(" AND sandbox = :sandbox");
    if (q.beforeId > 0)
        where += QStringLiteral(" AND id < :before");
    if (q.ownerUid >= 0)
        where += QStringLiteral(" AND sandbox_id IN (SELECT id FROM sandboxes WHERE owner_uid = :uid)");
    sql.prepare(QStringLiteral("SELECT * FROM (SELECT id, sandbox, time, proto, host, ip, port, sni, method, path, "
                               "decision, rule, reason, bytes_up, bytes_down, duration_ms, count FROM egress_events ") +
                where + QStringLiteral(" ORDER BY id DESC LIMIT :limit) ORDER BY id ASC"));
    if (sandboxId)
        sql.bindValue(QStringLiteral(":sandbox_id"), sandboxId);
    else if (!q.sandbox.isEmpty())
        sql.bindValue(QStringLiteral(":sandbox"), q.sandbox);
    if (q.beforeId > 0)
        sql.bindValue(QStringLiteral(":before"), q.beforeId);
    if (q.ownerUid >= 0)
        sql.bindValue(QStringLiteral(":uid"), q.ownerUid);
    sql.bindValue(QStringLiteral(":limit"), qBound(1, q.limit, kMaxLimit));
    if (!sql.exec()) {
        done(Error{QStringLiteral("cannot read the egress events"), sql.lastError().text()});
        return;
    }
    QList<EgressEvent> rows;
    while (sql.next()) {
        EgressEvent e;
        e.id = sql.value(0).toLongLong();
        e.sandbox = sql.value(1).toString();
        e.time = QDateTime::fromString(sql.value(2).toString(), Qt::ISODateWithMs);
        e.proto = sql.value(3).toString();
        e.host = sql.value(4).toString();
        e.ip = sql.value(5).toString();
        e.port = sql.value(6).toInt();
        e.sni = sql.value(7).toString();
        e.method = sql.value(8).toString();
        e.path = sql.value(9).toString();
        e.decision = decisionFromName(sql.value(10).toString()).value_or(Decision::Denied); // only this log writes the column
        e.rule = sql.value(11).toLongLong();
        e.reason = sql.value(12).toString();
        e.bytesUp = sql.value(13).toLongLong();
        e.bytesDown = sql.value(14).toLongLong();
        e.durationMs = sql.value(15).toLongLong();
        e.count = sql.value(16).toLongLong();
        rows.append(e);
    }
    done(rows);
}

void EventLog::runAndWait(const std::function<void()> &job)
{
    if (!m_thread.joinable())
        return;
    std::promise<void> done;
    std::future<void> waited = done.get_future();
    {
        std::lock_guard lock(m_mutex);
        m_jobs.push_back([&job, &done] {
            job();
            done.set_value();
        });
    }
    m_cv.notify_all();
    waited.wait();
}

void EventLog::flush()
{
    runAndWait([] {});
}

void EventLog::enforceRetention()
{
    runAndWait([this] {
        while (retainOnce()) {
        }
    });
}

bool EventLog::retainOnce()
{
    // One bounded pass (kMaxRowsPerPass rows): a big backlog is worked off between batches.
    const Result<bool> more = eventretention::enforce(m_sqlite, m_limits.retention, QDateTime::currentDateTimeUtc());
    if (!more) {
        qCWarning(lcBroker) << more.error().message();
        return false;
    }
    return more.value();
}

bool EventLog::prepareUpsert(sqlite3 *db)
{
    static const char sql[] =
        "INSERT INTO egress_events(id, sandbox, time, proto, host, ip, port, sni, method, path, decision, rule, "
        "reason, bytes_up, bytes_down, duration_ms, count, sandbox_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(id) DO UPDATE SET decision = excluded.decision, rule = excluded.rule, reason = excluded.reason, "
        "host = excluded.host, sni = excluded.sni, method = excluded.method, path = excluded.path, "
        "proto = excluded.proto, bytes_up = excluded.bytes_up, bytes_down = excluded.bytes_down, "
        "duration_ms = excluded.duration_ms, count = max(count, excluded.count)"; // sandbox_id: the first write's
    return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &m_upsert, nullptr) == SQLITE_OK;
}

bool EventLog::writeBatch(sqlite3 *db, const std::vector<EgressEvent> &events)
{
    auto bindText = [this](int index, const QString &value) {
        const QByteArray utf8 = value.toUtf8();
        sqlite3_bind_text(m_upsert, index, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT);
    };
    // Inside the transaction run() began.
    for (const EgressEvent &e : events) {
        sqlite3_bind_int64(m_upsert, 1, e.id);
        bindText(2, e.sandbox);
        bindText(3, EgressEvent::isoTime(e.time));
        bindText(4, e.proto);
        bindText(5, e.host);
        bindText(6, e.ip);
        sqlite3_bind_int(m_upsert, 7, e.port);
        bindText(8, e.sni);
        bindText(9, e.method);
        bindText(10, e.path);
        bindText(11, decisionName(e.decision));
        if (e.rule)
            sqlite3_bind_int64(m_upsert, 12, e.rule);
        else
            sqlite3_bind_null(m_upsert, 12);
        bindText(13, e.reason);
        sqlite3_bind_int64(m_upsert, 14, e.bytesUp);
        sqlite3_bind_int64(m_upsert, 15, e.bytesDown);
        sqlite3_bind_int64(m_upsert, 16, e.durationMs);
        sqlite3_bind_int64(m_upsert, 17, e.count);
        if (e.sandboxId)
            sqlite3_bind_int64(m_upsert, 18, e.sandboxId);
        else
            sqlite3_bind_null(m_upsert, 18);
        const int rc = sqlite3_step(m_upsert) & 0xff;
        const QString why = QString::fromUtf8(sqlite3_errmsg(db));
        sqlite3_reset(m_upsert);
        if (rc == SQLITE_FULL || rc == SQLITE_IOERR) { // no row of this batch will fit: one failure, not one each
            if (!sqlite3_get_autocommit(db))
                sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
            storeFailed(events, why);
            return false;
        }
        if (rc != SQLITE_DONE)
            qCWarning(lcBroker) << "cannot store egress event" << e.id << why;
    }
    if (sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
        const QString why = QString::fromUtf8(sqlite3_errmsg(db));
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        storeFailed(events, why);
        return false;
    }
    std::lock_guard lock(m_mutex);
    if (!m_storeError.isEmpty()) {
        qCInfo(lcBroker) << "egress events are stored again";
        m_storeError.clear();
    }
    return true;
}

// The batch is counted per sandbox and written as one row each once the database takes
// writes again; the broker's decisions never wait for the disk.
void EventLog::storeFailed(const std::vector<EgressEvent> &events, const QString &why)
{
    qint64 lost = 0;
    for (const EgressEvent &e : events) {
        const bool lossRow = e.decision == Decision::Dropped && e.proto == QLatin1String("log");
        m_unstored[e.sandbox] += lossRow ? std::max<qint64>(e.count, 1) : 1;
        lost += lossRow ? 0 : 1; // a loss row's events are counted already
    }
    m_notStored.fetch_add(lost, std::memory_order_relaxed);
    const Error e = explainDiskFull(Error{QStringLiteral("egress events are not being stored"), why}, m_databasePath);
    std::lock_guard lock(m_mutex);
    if (m_storeError.isEmpty()) // once per outage, not once per batch
        qCWarning(lcBroker).noquote() << e.message();
    m_storeError = e.message();
}

QString EventLog::storeError() const
{
    std::lock_guard lock(m_mutex);
    return m_storeError;
}

std::vector<EgressEvent> EventLog::takeBatch(std::deque<EgressEvent> &queue, std::vector<EgressEvent> &changed,
                                             QHash<QString, qint64> &lost, QHash<QString, qint64> &unstored)
{
    // Several updates of one attempt in a batch: only the last is written (it keeps the
    // sandbox id the first one was stamped with).
    QHash<qint64, qsizetype> last;
    std::vector<EgressEvent> events;
    events.reserve(queue.size() + changed.size() + size_t(lost.size()));
    const auto add = [&](EgressEvent &&e) {
        const auto it = last.constFind(e.id);
        if (it == last.constEnd()) {
            last.insert(e.id, qsizetype(events.size()));
            events.push_back(std::move(e));
            return;
        }
        EgressEvent &earlier = events[size_t(*it)];
        if (!e.sandboxId)
            e.sandboxId = earlier.sandboxId;
        e.count = std::max(e.count, earlier.count);
        earlier = std::move(e);
    };
    for (EgressEvent &e : queue)
        add(std::move(e));
    for (EgressEvent &e : changed)
        add(std::move(e));
    // The loss is itself on record: one row per sandbox saying how many were not kept.
    const auto addLoss = [&](const QHash<QString, qint64> &counts, const QString &why) {
        for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
            EgressEvent e;
            e.id = nextId();
            e.sandbox = it.key();
            {
                std::lock_guard lock(m_mutex);
                e.sandboxId = m_sandboxIds.value(e.sandbox);
            }
            e.time = QDateTime::currentDateTimeUtc();
            e.proto = QStringLiteral("log");
            e.decision = Decision::Dropped;
            e.count = it.value();
            e.reason = QStringLiteral("%1 egress events were not recorded: %2").arg(it.value()).arg(why);
            add(std::move(e));
        }
    };
    addLoss(lost, QStringLiteral("the event log's queue was full (more than %1 MiB waiting for the disk)")
                      .arg(m_limits.maxQueuedBytes / (1024 * 1024)));
    addLoss(unstored, QStringLiteral("the event log could not be written (its disk was full or failing)"));
    unstored.clear();
    return events;
}

void EventLog::run(const QString &databasePath, std::promise<Status> *opened)
{
    QThread::currentThread()->setObjectName(QStringLiteral("egress-events"));
    m_databasePath = databasePath;
    {
        // The writer's own connection (a Store belongs to the thread that opened it).
        Result<Store> store = Store::open(databasePath);
        if (!store) {
            opened->set_value(store.error());
            return;
        }
        QSqlDatabase db = store->db();
        m_db = db; // the query jobs run on this thread too
        {
            QSqlQuery max(db);
            if (max.exec(QStringLiteral("SELECT COALESCE(MAX(id), 0) FROM egress_events")) && max.next())
                m_nextId = max.value(0).toLongLong() + 1;
        }

        // The batch insert is the hot path (20k events/s): straight to SQLite, bypassing
        // QtSql's per-value conversions, on the same connection.
        sqlite3 *sqlite = nullptr;
        const QVariant handle = db.driver()->handle();
        if (handle.isValid() && qstrcmp(handle.typeName(), "sqlite3*") == 0)
            sqlite = *static_cast<sqlite3 *const *>(handle.constData());
        if (!sqlite || !prepareUpsert(sqlite)) {
            opened->set_value(Error{QStringLiteral("cannot prepare the egress event writer"), QStringLiteral("the SQLite driver gave no handle")});
            return;
        }
        opened->set_value(ok());
        m_sqlite = sqlite;
        auto nextRetention = std::chrono::steady_clock::now(); // at once, then every kRetentionEveryMs
        for (;;) {
            std::deque<std::function<void()>> jobs;
            bool stopping, work;
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait_for(lock, std::chrono::milliseconds(kFlushMs), [this] { return m_stopping || !m_jobs.empty(); });
                jobs.swap(m_jobs);
                stopping = m_stopping;
                work = !m_queue.empty() || !m_lost.isEmpty() || !m_unstored.isEmpty() || m_aggregator.anyChanged();
            }
            std::vector<EgressEvent> events;
            // The write lock first: while another connection holds it, the events stay queued
            // (bounded; record() counts what does not fit) instead of being lost here.
            if (work && sqlite3_exec(sqlite, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK) {
                std::deque<EgressEvent> queue;
                std::vector<EgressEvent> changed;
                QHash<QString, qint64> lost;
                {
                    std::lock_guard lock(m_mutex);
                    queue.swap(m_queue);
                    m_queuedBytes = 0;
                    m_aggregator.takeChanged(&changed, DenialAggregator::Clock::now());
                    lost.swap(m_lost);
                }
                events = takeBatch(queue, changed, lost, m_unstored);
                if (writeBatch(sqlite, events))
                    m_written += qint64(events.size());
                if (m_listener)
                    m_listener(events);
            } else if (work) {
                qCWarning(lcBroker) << "egress events wait: the database is busy:" << sqlite3_errmsg(sqlite);
            }
            for (auto &job : jobs)
                job();
            if (std::chrono::steady_clock::now() >= nextRetention) {
                const bool behind = retainOnce();
                nextRetention = std::chrono::steady_clock::now() + std::chrono::milliseconds(behind ? 0 : kRetentionEveryMs);
            }
            if (stopping && events.empty())
                break;
        }
        sqlite3_finalize(m_upsert);
        m_upsert = nullptr;
        m_sqlite = nullptr;
        m_db = QSqlDatabase();
    }
}

} // namespace airlock
