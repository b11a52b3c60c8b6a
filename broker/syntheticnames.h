#pragma once
// The names each sandbox resolved and the synthetic addresses (198.18.0.0/15) the broker
// answered with, both ways (DnsResolver hands them out, TransparentProxy maps them back). Each sandbox has its
// own pool, so one sandbox's lookups say nothing about another's. Thread-safe: the resolver
// writes, the transparent proxy reads.
#include <QHash>
#include <QString>
#include <mutex>
#include <optional>

namespace airlock {

class SyntheticNames {
public:
    static constexpr quint32 kPoolBase = 0xC6120000; // 198.18.0.0
    static constexpr quint32 kPoolSize = 1u << 17;   // /15
    static constexpr int kMaxNamesPerSandbox = 16384;

    static bool inPool(quint32 ip) { return (ip & 0xFFFE0000u) == kPoolBase; }

    // The address of `name` for `sandbox`, allocated on first use; nullopt when the
    // sandbox's pool is full.
    std::optional<quint32> addressFor(const QString &sandbox, const QString &name);
    // The name behind a synthetic address, or "" when this sandbox never resolved it.
    QString nameFor(const QString &sandbox, quint32 ip) const;
    void forget(const QString &sandbox);

private:
    struct Pool {
        QHash<QString, quint32> byName;
        QHash<quint32, QString> byAddress;
        quint32 next = 1;
    };
    mutable std::mutex m_mutex;
    QHash<QString, Pool> m_pools;
};

} // namespace airlock
