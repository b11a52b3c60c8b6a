#pragma once
#include "core/result.h"
#include "virhandle.h"

#include <QString>
#include <atomic>
#include <chrono>
#include <libvirt/libvirt.h>
#include <vector>

namespace airlock {

// One connection to libvirtd. libvirt's errors are captured (never printed to stderr) and
// turned into Errors that say what to do. virConnectPtr is thread-safe, so workers may
// share it; the owner closes it.
class LibvirtConnection {
public:
    LibvirtConnection() = default;
    ~LibvirtConnection();
    LibvirtConnection(const LibvirtConnection &) = delete;
    LibvirtConnection &operator=(const LibvirtConnection &) = delete;

    Status open(const QString &uri);
    void close();
    bool isOpen() const { return m_conn != nullptr; }
    // True while the connection is open and libvirt has not reported it closed (libvirtd
    // restarted, upgraded, killed). Cheap: no round trip.
    bool isAlive() const;
    // Reopens when libvirtd went away behind our back, at most once per backoff step
    // (1 s, doubling up to kMaxBackoff) so a libvirtd that stays down costs nothing.
    Status ensureAlive();
    // Counts successful opens: whoever caches objects of the connection (a storage pool)
    // drops them when it changes.
    quint64 generation() const { return m_generation; }
    virConnectPtr get() const { return m_conn; }
    QString uri() const { return m_uri; }

    static constexpr std::chrono::milliseconds kFirstBackoff{1000};
    static constexpr std::chrono::milliseconds kMaxBackoff{8000};

    // The calling thread's last libvirt error as "<what>: <libvirt's message>".
    static Error lastError(const QString &what);
    // True when the last libvirt error of this thread was "no such domain/network/volume/pool".
    static bool lastErrorIsMissing();
    // Once per process: libvirt prints no errors to stderr, and its event loop runs.
    static void initializeLibvirt();

private:
    static void onClosed(virConnectPtr conn, int reason, void *opaque);
    Status reconnect();

    virConnectPtr m_conn = nullptr;
    // Connections replaced by a reconnect. Pool threads may still hold the old pointer
    // (SandboxService hands it to them), so it is closed only with this object.
    std::vector<VirConnection> m_retired;
    std::atomic<bool> m_closed{false}; // set by libvirt's event thread
    QString m_uri;
    quint64 m_generation = 0;
    std::chrono::milliseconds m_backoff{0};
    std::chrono::steady_clock::time_point m_nextAttempt{};
};

} // namespace airlock
