#include "daemon/egressnetworkhooks.h"
#include "core/logging.h"

namespace airlock {

Result<SandboxNet> EgressNetworkHooks::toSandboxNet(const SandboxNetwork &n)
{
    SandboxNet net;
    net.name = n.name;
    net.bridge = n.bridge;
    net.mac = n.mac;
    net.sandboxId = n.id;
    if (!parseIpv4(n.guestIp, &net.guestIp) || !parseIpv4(n.gateway, &net.gatewayIp))
        return Error{QStringLiteral("the network of sandbox %1 is recorded wrongly").arg(n.name),
                     QStringLiteral("guest address \"%1\", gateway \"%2\"; remove the sandbox and create it again")
                         .arg(n.guestIp, n.gateway)};
    return net;
}

Status EgressNetworkHooks::networkUp(const SandboxNetwork &n)
{
    Result<SandboxNet> net = toSandboxNet(n);
    if (!net)
        return net.error();
    return m_egress.sandboxUp(net.value());
}

void EgressNetworkHooks::networkDown(const QString &name) { m_egress.sandboxDown(name); }

Status EgressNetworkHooks::reconcile(const QList<SandboxNetwork> &running)
{
    QList<SandboxNet> nets;
    for (const SandboxNetwork &n : running) {
        Result<SandboxNet> net = toSandboxNet(n);
        if (!net)
            return net.error();
        nets.append(net.value());
    }
    return m_egress.reconcile(nets);
}

} // namespace airlock
