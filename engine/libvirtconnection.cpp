#include "libvirtconnection.h"
#include "core/logging.h"

#include <libvirt/virterror.h>
#include <mutex>
#include <thread>

namespace airlock {

namespace {
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

LibvirtConnection::~LibvirtConnection() { close(); }

void LibvirtConnection::close()
{
    if (m_conn) {
        virConnectClose(m_conn);
        m_conn = nullptr;
    }
}

Status LibvirtConnection::open(const QString &uri)
{
    initializeLibvirt();
    close();
    m_uri = uri;
    m_conn = virConnectOpen(uri.toUtf8().constData());
    if (!m_conn) {
        Error e = lastError(QStringLiteral("cannot connect to libvirt at %1").arg(uri));
        virErrorPtr err = virGetLastError();
        const bool daemonDown = !err || err->code == VIR_ERR_SYSTEM_ERROR || err->code == VIR_ERR_NO_CONNECT ||
                                e.why.contains(QLatin1String("Failed to connect socket")) ||
                                e.why.contains(QLatin1String("No such file"));
        if (daemonDown)
            e.why += QStringLiteral("; is libvirtd running? start it with `systemctl start libvirtd` "
                                    "(or `virtlogd -d; libvirtd -d` without systemd)");
        e.code = -32003; // rpc::Unavailable
        return e;
    }
    return ok();
}

Status LibvirtConnection::ensureAlive()
{
    if (m_conn && virConnectIsAlive(m_conn) == 1)
        return ok();
    qCWarning(lcEngine) << "libvirt connection lost; reconnecting to" << m_uri;
    return open(m_uri);
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
