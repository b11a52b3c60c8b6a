#include "daemon/egressnetworkhooks.h"

namespace airlock {

Status EgressNetworkHooks::networkUp(const SandboxNet &net) { return m_egress.sandboxUp(net); }

void EgressNetworkHooks::networkDown(const QString &name) { m_egress.sandboxDown(name); }

Status EgressNetworkHooks::reconcile(const QList<SandboxNet> &running) { return m_egress.reconcile(running); }

} // namespace airlock
