#pragma once
// The egress event log (design.md, "Events"): every attempt is written to egress_events in
// batches by a writer thread with its own Store connection, and handed, batch by batch, to
// a listener that streams it to clients. Ids are given out at once (not by SQLite), so a
// pending attempt can be named before it is written; a changed attempt is written again
// under its id.
#include "core/result.h"
#include "egressevent.h"

#include <QJsonArray>
#include <QSqlDatabase>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace airlock {

struct EventQuery {
    QString sandbox;          // "" = all
    qint64 beforeId = 0;      // 0 = newest
    int limit = 100;
    qint64 ownerUid = -1;     // >= 0: only sandboxes this uid owns
};

class EventLog {
public:
    using BatchListener = std::function<void(const std::vector<EgressEvent> &)>;

    static constexpr int kFlushMs = 50;
    static constexpr int kMaxLimit = 1000;

    EventLog() = default;
    ~EventLog();

    // Opens the writer's own connection to `databasePath` and starts its thread.
    Status start(const QString &databasePath, BatchListener listener);
    void stop();

    qint64 nextId() { return m_nextId.fetch_add(1); }
    // Thread-safe; never blocks on the disk.
    void record(const EgressEvent &event);
    // Runs on the writer thread after what was recorded before it is written.
    void query(const EventQuery &q, std::function<void(Result<QJsonArray>)> done);
    // Waits until everything recorded so far is written (tests, benchmarks, shutdown).
    void flush();

    qint64 written() const { return m_written.load(); }

private:
    void run(const QString &databasePath, std::promise<Status> *opened);
    bool prepareUpsert(sqlite3 *db);
    void writeBatch(sqlite3 *db, const std::vector<EgressEvent> &events);
    sqlite3_stmt *m_upsert = nullptr; // writer thread only
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<EgressEvent> m_queue;
    std::deque<std::function<void()>> m_jobs;
    bool m_stopping = false;
    std::atomic<qint64> m_nextId{1};
    std::atomic<qint64> m_written{0};
    BatchListener m_listener;
    QSqlDatabase m_db; // writer thread only
};

} // namespace airlock
