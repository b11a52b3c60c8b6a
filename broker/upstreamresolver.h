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
#include <mutex>
#include <optional>

namespace airlock {

class UpstreamResolver {
public:
    explicit UpstreamResolver(QString hostsFile = {}) : m_hostsFile(std::move(hostsFile)) {}

    // The override for `name` (re-read when the file changes), nullopt when not listed.
    std::optional<quint32> fromHostsFile(const QString &name);
    // Resolves on a short-lived worker thread and calls `done` there (0 = failed, with why).
    void resolve(const QString &name, std::function<void(quint32 ip, QString why)> done);

private:
    QString m_hostsFile;
    std::mutex m_mutex;
    QDateTime m_loaded;
    std::chrono::steady_clock::time_point m_checked;
    bool m_read = false;
    QHash<QString, quint32> m_hosts;
};

} // namespace airlock
