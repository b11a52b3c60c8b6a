#include "libvirtconnection.h"
#include "core/logging.h"

#include <libvirt/virterror.h>
#include <mutex>
#include <thread>

namespace airlock {

namespace {
// What a person whose libvirtd is down should read, wherever the daemon notices it.
constexpr const char kStartLibvirtd[] = "is libvirtd running? start it with `systemctl start libvirtd` "
                                        "(or `virtlogd -d; libvirtd -d` without systemd)";

void ignoreError(void *, virErrorPtr) {}
} // namespace

void LibvirtConnection::initializeLibvirt()
{
    static std::once_flag once;
    std::call_once(once, [] {
        virInitialize();
        virSetErrorFunc(nullptr, ignoreError);
        // libvirt's own event loop on a thread of its own: streams (consoles) and keepalive
        // need it, and no caller ever has to drive a connection's I/O by itself.
        virEventRegisterDefaultImpl();
        std::thread([] {
            for (;;)
                virEventRunDefaultImpl();
        }).detach();
    });
}

LibvirtConnection::~LibvirtConnection()
{
    close(); // m_retired closes the replaced ones
}

void LibvirtConnection::onClosed(virConnectPtr, int, void *opaque)
{
    static_cast<LibvirtConnection *>(opaque)->m_closed = true;
}

void LibvirtConnection::close()
{
    if (m_conn) {
        virConnectUnregisterCloseCallback(m_conn, onClosed);
        virConnectClose(m_conn);
        m_conn = nullptr;
    }
}

Status LibvirtConnection::open(const QString &uri)
{
    initializeLibvirt();
    close();
    m_uri = uri;
    m_closed = false;
    m_conn = virConnectOpen(uri.toUtf8().constData());
    if (!m_conn) {
        Error e = lastError(QStringLiteral("cannot connect to libvirt at %1").arg(uri));
        virErrorPtr err = virGetLastError();
        const bool daemonDown = !err || err->code == VIR_ERR_SYSTEM_ERROR || err->code == VIR_ERR_NO_CONNECT ||
                                e.why.contains(QLatin1String("Failed to connect socket")) ||
                                e.why.contains(QLatin1String("No such file"));
        if (daemonDown)
            e.why += QLatin1String("; ") + QLatin1String(kStartLibvirtd);
        e.kind = ErrorKind::Unavailable;
        return e;
    }
    // Drivers without a remote end (test:///) have no close event: virConnectIsAlive covers them.
    virConnectRegisterCloseCallback(m_conn, onClosed, this, nullptr);
    ++m_generation;
    return ok();
}

bool LibvirtConnection::isAlive() const
{
    return m_conn && !m_closed && virConnectIsAlive(m_conn) == 1;
}

Status LibvirtConnection::ensureAlive()
{
    if (isAlive())
        return ok();
    const auto now = std::chrono::steady_clock::now();
    if (now < m_nextAttempt) {
        const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(m_nextAttempt - now);
        return Error{QStringLiteral("the connection to libvirt at %1 is lost").arg(m_uri),
                     QStringLiteral("airlockd reconnects by itself (next attempt in %1 ms); %2").arg(wait.count()).arg(QLatin1String(kStartLibvirtd)),
                     ErrorKind::Unavailable};
    }
    return reconnect();
}

Status LibvirtConnection::reconnect()
{
    qCWarning(lcEngine) << "libvirt connection lost; reconnecting to" << m_uri;
    if (m_conn) {
        virConnectUnregisterCloseCallback(m_conn, onClosed);
        m_retired.emplace_back(m_conn);
        m_conn = nullptr;
    }
    Status s = open(m_uri);
    if (s) {
        m_backoff = std::chrono::milliseconds(0);
        m_nextAttempt = {};
        qCInfo(lcEngine) << "reconnected to libvirt at" << m_uri;
        return s;
    }
    m_backoff = m_backoff.count() == 0 ? kFirstBackoff : std::min(m_backoff * 2, kMaxBackoff);
    m_nextAttempt = std::chrono::steady_clock::now() + m_backoff;
    return s;
}

Error LibvirtConnection::lastError(const QString &what)
{
    virErrorPtr err = virGetLastError();
    const QString why = err && err->message ? QString::fromUtf8(err->message) : QStringLiteral("unknown libvirt error");
    return Error{what, why};
}

bool LibvirtConnection::lastErrorIsMissing()
{
    virErrorPtr err = virGetLastError();
    if (!err)
        return false;
    switch (err->code) {
    case VIR_ERR_NO_DOMAIN:
    case VIR_ERR_NO_NETWORK:
    case VIR_ERR_NO_STORAGE_VOL:
    case VIR_ERR_NO_STORAGE_POOL:
        return true;
    default:
        return false;
    }
}

} // namespace airlock
