#pragma once
// The egress event log: every attempt is written to egress_events in
// batches by a writer thread with its own Store connection, and handed, batch by batch, to
// a listener that streams it to clients. Ids are given out at once (not by SQLite), so a
// pending attempt can be named before it is written; a changed attempt is written again
// under its id.
//
// A guest cannot grow it: the queue to the writer holds at most Limits::maxQueuedBytes
// (beyond, events are counted per sandbox and written as one "dropped" row saying how many);
// identical denials are folded into one row with a count (DenialAggregator); the table is
// trimmed by age and size (EventRetention) on the writer's thread. record() only takes a
// short lock: it never waits on SQLite.
#include "core/result.h"
#include "denialaggregator.h"
#include "egressevent.h"
#include "eventretention.h"
#include "store/store.h"

#include <QHash>
#include <QJsonArray>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace airlock {

struct EventQuery {
    // "" = all; else the sandbox that has this name now (by its id: a removed sandbox's
    // history never shows under a new one of the same name), or, when none has, the rows
    // recorded under the name (the history of removed sandboxes).
    QString sandbox;
    qint64 beforeId = 0;      // 0 = newest
    int limit = 100;
    qint64 ownerUid = -1;     // >= 0: only sandboxes this uid owns
};

class EventLog {
public:
    using BatchListener = std::function<void(const std::vector<EgressEvent> &)>;

    static constexpr int kFlushMs = 50;
    static constexpr int kMaxLimit = 1000;
    static constexpr int kRetentionEveryMs = 60000;

    struct Limits {
        qsizetype maxQueuedBytes = 32 * 1024 * 1024; // about 50,000 typical events
        DenialAggregator::Limits aggregation;
        EventRetention retention;
    };

    EventLog() = default;
    ~EventLog();

    // Set before start().
    void setLimits(const Limits &limits) { m_limits = limits; }
    // Opens the writer's own connection to `databasePath` and starts its thread.
    Status start(const QString &databasePath, BatchListener listener);
    void stop();

    qint64 nextId() { return m_nextId.fetch_add(1); }
    // Thread-safe; never blocks on the disk. Stamps the event with its sandbox's id.
    void record(const EgressEvent &event);
    // The daemon tells which sandbox id a name stands for when its network comes up; events
    // recorded for the name from then on are keyed by that id (no query on the proxy loop).
    void setSandboxId(const QString &name, qint64 id);
    // Runs retention now and waits for it (tests; the writer runs it every kRetentionEveryMs).
    void enforceRetention();
    // The bytes waiting for the writer, and the events dropped so far because it was full.
    qsizetype queuedBytes() const;
    qint64 dropped() const { return m_dropped.load(); }
    // Runs on the writer thread after what was recorded before it is written.
    void query(const EventQuery &q, std::function<void(Result<QList<EgressEvent>>)> done);
    // Waits until everything recorded so far is written (tests, benchmarks, shutdown).
    void flush();

    qint64 written() const { return m_written.load(); }
    // Events the database would not take (its disk full, an I/O error) since start, and why,
    // while it lasts: "" once a batch is stored again. The loss itself is written then.
    qint64 notStored() const { return m_notStored.load(); }
    QString storeError() const;

private:
    void run(const QString &databasePath, std::promise<Status> *opened);
    Status prepareUpsert();
    Status writeBatch(const std::vector<EgressEvent> &events); // an error: nothing of it may be kept
    std::size_t writePending(); // one batch, in one transaction; the events it took
    void storeFailed(const std::vector<EgressEvent> &events, const QString &why);
    // The queue, the changed aggregates and the dropped-rows, as the rows to write.
    std::vector<EgressEvent> takeBatch(std::deque<EgressEvent> &queue, std::vector<EgressEvent> &changed,
                                       QHash<QString, qint64> &lost, QHash<QString, qint64> &unstored);
    bool retainOnce(); // true: more is left to delete
    void runAndWait(const std::function<void()> &job); // on the writer thread, after what is queued
    void runQuery(const EventQuery &q, const std::function<void(Result<QList<EgressEvent>>)> &done);
    Store *m_store = nullptr; // writer thread only: its connection (the query jobs run there too)
    Store::Batch m_upsert;    // writer thread only
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<EgressEvent> m_queue;
    qsizetype m_queuedBytes = 0;
    QHash<QString, qint64> m_lost;         // sandbox -> events dropped since the last batch
    QHash<QString, qint64> m_unstored;     // sandbox -> events a failed write lost (writer thread only)
    QString m_storeError;                  // why writes fail, "" while they work
    QString m_databasePath;
    std::atomic<qint64> m_notStored{0};
    QHash<QString, qint64> m_sandboxIds;   // name -> sandboxes.id
    DenialAggregator m_aggregator;
    std::deque<std::function<void()>> m_jobs;
    bool m_stopping = false;
    Limits m_limits;
    std::atomic<qint64> m_nextId{1};
    std::atomic<qint64> m_written{0};
    std::atomic<qint64> m_dropped{0};
    BatchListener m_listener;
};

} // namespace airlock
