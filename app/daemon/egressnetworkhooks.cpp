#include "daemon/egressnetworkhooks.h"
#include "core/logging.h"
#include "portforwarder.h"

namespace airlock {

Status EgressNetworkHooks::networkUp(const SandboxNet &net)
{
    if (Status s = m_egress.sandboxUp(net); !s)
        return s;
    // A port another program took meanwhile is listed with its error; the guest still starts.
    if (Status s = m_ports.apply(net); !s)
        qCWarning(lcDaemon) << s.error().message();
    return ok();
}

void EgressNetworkHooks::networkDown(const QString &name)
{
    m_ports.drop(name); // before the guard goes: nothing is relayed to an unguarded address
    m_egress.sandboxDown(name);
}

Status EgressNetworkHooks::reconcile(const QList<SandboxNet> &running)
{
    Status guarded = m_egress.reconcile(running);
    if (guarded)
        m_ports.reconcile(running);
    else
        m_ports.reconcile({});
    return guarded;
}

Status EgressNetworkHooks::portsChanged(const SandboxNet &net) { return m_ports.apply(net); }

} // namespace airlock
