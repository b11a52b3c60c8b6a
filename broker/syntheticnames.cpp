#include "syntheticnames.h"

namespace airlock {

std::optional<quint32> SyntheticNames::addressFor(const QString &sandbox, const QString &name)
{
    std::lock_guard lock(m_mutex);
    Pool &pool = m_pools[sandbox];
    const auto it = pool.byName.constFind(name);
    if (it != pool.byName.constEnd())
        return *it;
    if (pool.byName.size() >= kMaxNamesPerSandbox)
        return std::nullopt;
    // Skip .0 and .255 host parts: some stacks treat them specially.
    quint32 ip;
    do {
        ip = kPoolBase + (pool.next++ % kPoolSize);
    } while ((ip & 0xff) == 0 || (ip & 0xff) == 0xff || pool.byAddress.contains(ip));
    pool.byName.insert(name, ip);
    pool.byAddress.insert(ip, name);
    return ip;
}

QString SyntheticNames::nameFor(const QString &sandbox, quint32 ip) const
{
    std::lock_guard lock(m_mutex);
    const auto pool = m_pools.constFind(sandbox);
    return pool == m_pools.constEnd() ? QString() : pool->byAddress.value(ip);
}

void SyntheticNames::forget(const QString &sandbox)
{
    std::lock_guard lock(m_mutex);
    m_pools.remove(sandbox);
}

} // namespace airlock
