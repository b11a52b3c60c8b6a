#pragma once
// Folds repeated identical denials into one egress_events row with a count, so a guest that
// hammers a denied target costs one row per window, not one per attempt. Identical means the
// same sandbox, host, address, port, protocol and reason. Only an attempt's FIRST record is
// folded (an update of an attempt already on record, e.g. a pending flow now denied, must
// reach its own row); later updates of a folded attempt are dropped (its row is the
// aggregate), updates of an aggregate's own attempt refresh the aggregate.
// Not thread-safe: EventLog calls it under its lock.
#include "egressevent.h"
#include "idwindow.h"

#include <QHash>
#include <chrono>
#include <vector>

namespace airlock {

struct DenialLimits {
    int windowMs = 10000; // identical denials this close to the first are one row
    int maxKeys = 1024;   // distinct denials folded at once; beyond: recorded one by one
};

class DenialAggregator {
public:
    using Clock = std::chrono::steady_clock;
    using Limits = DenialLimits;

    explicit DenialAggregator(Limits limits = Limits()) : m_limits(limits) {}

    // True when `e` was absorbed here (it reaches the store through takeChanged());
    // false: the caller records it as usual.
    bool absorb(const EgressEvent &e, Clock::time_point now);
    // The aggregates whose rows changed since the last call, with their current counts; then
    // forgets the ones whose window has passed.
    void takeChanged(std::vector<EgressEvent> *out, Clock::time_point now);
    qsizetype size() const { return m_byKey.size(); }
    bool anyChanged() const { return m_anyChanged; }

private:
    struct Aggregate {
        EgressEvent row;
        Clock::time_point windowEnd;
        bool changed = true;
    };
    static QString keyOf(const EgressEvent &e);
    bool makeRoom(Clock::time_point now);

    Limits m_limits;
    QHash<QString, Aggregate> m_byKey;
    QHash<qint64, QString> m_keyOfRow; // an aggregate's own attempt id -> its key
    IdWindow m_seen;                   // attempts already recorded once
    IdWindow m_folded;                 // attempts counted in an aggregate (their updates are dropped)
    bool m_anyChanged = false;
};

} // namespace airlock
