#pragma once
#include "core/result.h"

#include <QString>
#include <libvirt/libvirt.h>

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
    // Reopens when libvirtd restarted behind our back.
    Status ensureAlive();
    virConnectPtr get() const { return m_conn; }
    QString uri() const { return m_uri; }

    // The calling thread's last libvirt error as "<what>: <libvirt's message>".
    static Error lastError(const QString &what);
    // True when the last libvirt error of this thread was "no such domain/network/volume/pool".
    static bool lastErrorIsMissing();
    // Once per process: libvirt prints no errors to stderr, and its event loop runs.
    static void initializeLibvirt();

private:
    virConnectPtr m_conn = nullptr;
    QString m_uri;
};

} // namespace airlock
