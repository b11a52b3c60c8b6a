#include "pendingboard.h"

#include <algorithm>

namespace airlock {

void PendingBoard::hold(qint64 itemId, const EgressEvent &item, qint64 eventId)
{
    std::lock_guard lock(m_mutex);
    if (!m_items.contains(itemId))
        m_items.insert(itemId, item);
    m_itemOfEvent.insert(eventId, itemId);
}

void PendingBoard::update(qint64 itemId, const EgressEvent &item)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_items.find(itemId);
    if (it != m_items.end())
        *it = item;
}

void PendingBoard::leave(qint64 eventId)
{
    std::lock_guard lock(m_mutex);
    m_itemOfEvent.remove(eventId);
}

void PendingBoard::remove(qint64 itemId)
{
    std::lock_guard lock(m_mutex);
    m_items.remove(itemId);
    m_itemOfEvent.removeIf([itemId](const auto &it) { return it.value() == itemId; });
}

QList<EgressEvent> PendingBoard::items(const QString &sandbox) const
{
    QList<EgressEvent> result;
    {
        std::lock_guard lock(m_mutex);
        for (const EgressEvent &e : m_items)
            if (sandbox.isEmpty() || e.sandbox == sandbox)
                result.append(e);
    }
    std::sort(result.begin(), result.end(), [](const EgressEvent &a, const EgressEvent &b) { return a.id < b.id; });
    return result;
}

std::optional<EgressEvent> PendingBoard::find(qint64 id) const
{
    std::lock_guard lock(m_mutex);
    const auto item = m_itemOfEvent.constFind(id);
    if (item == m_itemOfEvent.constEnd())
        return std::nullopt;
    const auto found = m_items.constFind(*item);
    return found == m_items.constEnd() ? std::nullopt : std::optional<EgressEvent>(*found);
}

qint64 PendingBoard::size() const
{
    std::lock_guard lock(m_mutex);
    return m_items.size();
}

} // namespace airlock
