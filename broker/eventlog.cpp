#include "eventlog.h"
#include "core/diskspace.h"
#include "core/logging.h"
#include "store/store.h"

#include <QHash>
#include <QSqlRecord>
#include <QThread>

namespace airlock {

namespace {

// The columns that map one to one onto a text or a number field of EgressEvent.
constexpr std::pair<const char *, QString EgressEvent::*> kTextColumns[] = {
    {"sandbox", &EgressEvent::sandbox}, {"proto", &EgressEvent::proto}, {"host", &EgressEvent::host},
    {"ip", &EgressEvent::ip},           {"sni", &EgressEvent::sni},     {"method", &EgressEvent::method},
    {"path", &EgressEvent::path},       {"reason", &EgressEvent::reason}};
constexpr std::pair<const char *, qint64 EgressEvent::*> kNumberColumns[] = {
    {"id", &EgressEvent::id},           {"rule", &EgressEvent::rule},
    {"bytes_up", &EgressEvent::bytesUp}, {"bytes_down", &EgressEvent::bytesDown},
    {"duration_ms", &EgressEvent::durationMs}, {"count", &EgressEvent::count}};

EgressEvent eventFrom(const QSqlRecord &r)
{
    EgressEvent e;
    for (const auto &[column, field] : kTextColumns)
        e.*field = r.value(QLatin1String(column)).toString();
    for (const auto &[column, field] : kNumberColumns)
        e.*field = r.value(QLatin1String(column)).toLongLong();
    e.time = QDateTime::fromString(r.value(QStringLiteral("time")).toString(), Qt::ISODateWithMs);
    e.port = r.value(QStringLiteral("port")).toInt();
    // Only this log writes the column.
    e.decision = decisionFromName(r.value(QStringLiteral("decision")).toString()).value_or(Decision::Denied);
    e.guestProcess = GuestProcess::fromStored(r.value(QStringLiteral("guest_process")).toString());
    return e;
}

} // namespace


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
    const QString what = QStringLiteral("cannot read the egress events");
    qint64 sandboxId = 0;
    if (!q.sandbox.isEmpty()) {
        const auto id = m_store->firstRow(QStringLiteral("SELECT id FROM sandboxes WHERE name = ?"), {q.sandbox});
        if (!id) {
            done(Error{what, id.error().why});
            return;
        }
        if (*id)
            sandboxId = (*id)->value(0).toLongLong();
    }
    QString where = QStringLiteral("WHERE 1");
    QVariantList binds;
    const auto filter = [&](const char *clause, const QVariant &value) {
        where += QLatin1String(clause);
        binds.append(value);
    };
    if (sandboxId)
        filter(" AND sandbox_id = ?", sandboxId);
    else if (!q.sandbox.isEmpty())
        filter(" AND sandbox = ?", q.sandbox);
    if (q.beforeId > 0)
        filter(" AND id < ?", q.beforeId);
    if (q.ownerUid >= 0)
        filter(" AND sandbox_id IN (SELECT id FROM sandboxes WHERE owner_uid = ?)", q.ownerUid);
    binds.append(qBound(1, q.limit, kMaxLimit));
    const auto found = m_store->rows(QStringLiteral("SELECT * FROM (SELECT id, sandbox, time, proto, host, ip, port, sni, method, path, "
                                                    "decision, rule, reason, bytes_up, bytes_down, duration_ms, count, guest_process FROM egress_events ") +
                                         where + QStringLiteral(" ORDER BY id DESC LIMIT ?) ORDER BY id ASC"),
                                     binds);
    if (!found) {
        done(Error{what, found.error().why});
        return;
    }
    QList<EgressEvent> rows;
    for (const QSqlRecord &r : *found)
        rows.append(eventFrom(r));
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
    const Result<bool> more = eventretention::enforce(*m_store, m_limits.retention, QDateTime::currentDateTimeUtc());
    if (!more) {
        qCWarning(lcBroker) << more.error().message();
        return false;
    }
    return more.value();
}

Status EventLog::prepareUpsert()
{
    // The batch insert is the hot path (20k events/s): one statement prepared once.
    Result<Store::Batch> upsert = m_store->prepare(QStringLiteral(
        "INSERT INTO egress_events(id, sandbox, time, proto, host, ip, port, sni, method, path, decision, rule, "
        "reason, bytes_up, bytes_down, duration_ms, count, sandbox_id, guest_process) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(id) DO UPDATE SET decision = excluded.decision, rule = excluded.rule, reason = excluded.reason, "
        "host = excluded.host, sni = excluded.sni, method = excluded.method, path = excluded.path, "
        "proto = excluded.proto, bytes_up = excluded.bytes_up, bytes_down = excluded.bytes_down, "
        "duration_ms = excluded.duration_ms, count = max(count, excluded.count), "
        "guest_process = CASE WHEN excluded.guest_process <> '' THEN excluded.guest_process ELSE guest_process END"));
    // sandbox_id: the first write's; guest_process: the latest report, never erased by a write without one
    if (!upsert)
        return Error{QStringLiteral("cannot prepare the egress event writer"), upsert.error().why};
    m_upsert = std::move(upsert.value());
    return ok();
}

Status EventLog::writeBatch(const std::vector<EgressEvent> &events)
{
    const auto idOrNull = [](qint64 id) { return id ? QVariant(id) : QVariant(QMetaType(QMetaType::LongLong)); };
    // Inside writePending()'s transaction. A row SQLite refuses is logged; the others are kept.
    for (const EgressEvent &e : events) {
        const Status s = m_upsert.run({e.id, e.sandbox, EgressEvent::isoTime(e.time), e.proto, e.host, e.ip, e.port, e.sni,
                                       e.method, e.path, decisionName(e.decision), idOrNull(e.rule), e.reason, e.bytesUp,
                                       e.bytesDown, e.durationMs, e.count, idOrNull(e.sandboxId),
                                       GuestProcess::toStored(e.guestProcess)});
        if (s)
            continue;
        // A full or failing disk takes no row of this batch: one failure (the transaction
        // rolls back), not one warning each.
        if (s.error().why.contains(QLatin1String("disk is full")) || s.error().why.contains(QLatin1String("disk I/O error")))
            return s.error();
        qCWarning(lcBroker) << "cannot store egress event" << e.id << s.error().why;
    }
    return ok();
}

std::size_t EventLog::writePending()
{
    // The write lock first: while another connection holds it, the events stay queued
    // (bounded; record() counts what does not fit) instead of being lost here.
    std::vector<EgressEvent> events;
    bool began = false;
    const Status committed = m_store->transaction([&]() -> Status {
        began = true;
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
        return writeBatch(events);
    });
    if (!began) {
        qCWarning(lcBroker) << "egress events wait: the database is busy:" << committed.error().message();
        return 0;
    }
    if (committed) {
        m_written += qint64(events.size());
        std::lock_guard lock(m_mutex);
        if (!m_storeError.isEmpty()) {
            qCInfo(lcBroker) << "egress events are stored again";
            m_storeError.clear();
        }
    } else {
        storeFailed(events, committed.error().why.isEmpty() ? committed.error().message() : committed.error().why);
    }
    if (m_listener)
        m_listener(events);
    return events.size();
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
    // The log (for whoever runs airlockd) names the mount; status, which every admitted
    // peer reads, says what is wrong without the host's paths.
    const QString shown = diskIsFull(m_databasePath, why)
                              ? QStringLiteral("egress events are not being stored: the disk holding the event log is full; "
                                               "they are counted until there is room again")
                              : QStringLiteral("egress events are not being stored: %1").arg(why);
    std::lock_guard lock(m_mutex);
    if (m_storeError.isEmpty()) // once per outage, not once per batch
        qCWarning(lcBroker).noquote() << e.message();
    m_storeError = shown;
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
        m_store = &store.value();
        const auto max = m_store->firstRow(QStringLiteral("SELECT COALESCE(MAX(id), 0) FROM egress_events"));
        if (!max || !*max) {
            // Ids given out again would overwrite the rows that hold them.
            opened->set_value(Error{QStringLiteral("cannot read the egress events' last id"), max ? QString() : max.error().why});
            m_store = nullptr;
            return;
        }
        m_nextId = (*max)->value(0).toLongLong() + 1;
        if (Status s = prepareUpsert(); !s) {
            opened->set_value(s);
            m_store = nullptr;
            return;
        }
        opened->set_value(ok());
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
            const std::size_t wrote = work ? writePending() : 0;
            for (auto &job : jobs)
                job();
            if (std::chrono::steady_clock::now() >= nextRetention) {
                const bool behind = retainOnce();
                nextRetention = std::chrono::steady_clock::now() + std::chrono::milliseconds(behind ? 0 : kRetentionEveryMs);
            }
            if (stopping && wrote == 0)
                break;
        }
        m_upsert = Store::Batch(); // before its Store closes
        m_store = nullptr;
    }
}

} // namespace airlock
