#include "denialaggregator.h"

namespace airlock {

QString DenialAggregator::keyOf(const EgressEvent &e)
{
    // U+0001 cannot occur in a host name, an address or a reason we write.
    const QChar sep(1);
    return e.sandbox + sep + e.host + sep + e.ip + sep + QString::number(e.port) + sep + e.proto + sep + e.reason;
}

bool DenialAggregator::absorb(const EgressEvent &e, Clock::time_point now)
{
    if (m_folded.contains(e.id, false))
        return true; // counted already; its row is the aggregate
    if (const auto own = m_keyOfRow.constFind(e.id); own != m_keyOfRow.constEnd()) {
        Aggregate &a = m_byKey[*own];
        const qint64 count = a.row.count;
        a.row = e;
        a.row.count = count;
        a.changed = true;
        m_anyChanged = true;
        return true;
    }
    const bool first = !m_seen.contains(e.id, true);
    m_seen.set(e.id);
    if (!first || e.decision != Decision::Denied)
        return false;
    const QString key = keyOf(e);
    const auto it = m_byKey.find(key);
    if (it != m_byKey.end() && now < it->windowEnd) {
        ++it->row.count;
        it->changed = true;
        m_anyChanged = true;
        m_folded.set(e.id);
        return true;
    }
    if (it != m_byKey.end()) {
        if (it->changed)
            return false; // its last count is not written yet: this one stands alone
        m_keyOfRow.remove(it->row.id);
        m_byKey.erase(it);
    } else if (!makeRoom(now)) {
        return false;
    }
    Aggregate a;
    a.row = e;
    a.row.count = 1;
    a.windowEnd = now + std::chrono::milliseconds(m_limits.windowMs);
    m_byKey.insert(key, std::move(a));
    m_keyOfRow.insert(e.id, key);
    m_anyChanged = true;
    return true;
}

bool DenialAggregator::makeRoom(Clock::time_point now)
{
    if (m_byKey.size() < m_limits.maxKeys)
        return true;
    for (auto it = m_byKey.begin(); it != m_byKey.end();) {
        if (!it->changed && now >= it->windowEnd) {
            m_keyOfRow.remove(it->row.id);
            it = m_byKey.erase(it);
        } else {
            ++it;
        }
    }
    return m_byKey.size() < m_limits.maxKeys;
}

void DenialAggregator::takeChanged(std::vector<EgressEvent> *out, Clock::time_point now)
{
    m_anyChanged = false;
    for (auto it = m_byKey.begin(); it != m_byKey.end();) {
        if (it->changed) {
            out->push_back(it->row);
            it->changed = false;
        }
        if (now >= it->windowEnd && !it->changed) {
            m_keyOfRow.remove(it->row.id);
            it = m_byKey.erase(it);
        } else {
            ++it;
        }
    }
}

} // namespace airlock
