#pragma once
// Resolves the real address of an allowed name: the host's resolver, except for names an
// override hosts file lists (AIRLOCK_UPSTREAM_HOSTS: tests point names at servers inside
// their own network namespace). Only ever asked after a connection was allowed, so a
// guest's DNS never leaves the host before a decision. IPv4 only (AAAA answers are never
// dialled); numeric and single-label names are refused before any lookup (refusedName), and
// the proxy checks the address it gets (UpstreamAddressCheck) before connecting.
#include <QFileInfo>
#include <QHash>
#include <QString>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace airlock {

class UpstreamResolver {
public:
    using Done = std::function<void(quint32 ip, QString why)>;
    // Lookups run on kLookupThreads threads started here and joined by the destructor (which
    // so waits for lookups under way: getaddrinfo's own timeout); at most kMaxWaiting wait for one,
    // kMaxWaitingPerOwner of them for one owner (a sandbox), so a guest whose names resolve
    // slowly delays only its own lookups and never makes the daemon start threads.
    static constexpr int kLookupThreads = 4;
    static constexpr int kMaxWaiting = 256;
    static constexpr int kMaxWaitingPerOwner = 32;

    explicit UpstreamResolver(QString hostsFile = {});
    ~UpstreamResolver();
    UpstreamResolver(const UpstreamResolver &) = delete;
    UpstreamResolver &operator=(const UpstreamResolver &) = delete;

    // The override for `name` (re-read when the file changes), nullopt when not listed.
    std::optional<quint32> fromHostsFile(const QString &name);
    // Resolves on a lookup thread and calls `done` there (0 = failed, with why); when too
    // many lookups of `owner` or of everyone wait, `done` is called at once with why.
    void resolve(const QString &name, Done done, const QString &owner = {});

private:
    struct Lookups;
    std::shared_ptr<Lookups> m_lookups; // shared with the lookup threads
    std::vector<std::thread> m_threads; // joined by the destructor
    QString m_hostsFile;
    std::mutex m_mutex;
    QDateTime m_loaded;
    std::chrono::steady_clock::time_point m_checked;
    bool m_read = false;
    QHash<QString, quint32> m_hosts;
};

} // namespace airlock
