#pragma once
// Connects the engine's network hooks to the egress broker: a sandbox's network is guarded
// by EgressControl (nftables, resolver, proxy) before its guest may run, and its exposed
// ports (PortForwarder) listen while it runs.
#include "egresscontrol.h"
#include "networkhooks.h"

namespace airlock {

class PortForwarder;

class EgressNetworkHooks : public NetworkHooks {
public:
    EgressNetworkHooks(EgressControl &egress, PortForwarder &ports) : m_egress(egress), m_ports(ports) {}

    Status networkUp(const SandboxNet &net) override;
    void networkDown(const QString &name) override;
    Status reconcile(const QList<SandboxNet> &running) override;
    Status portsChanged(const SandboxNet &net) override;

private:
    EgressControl &m_egress;
    PortForwarder &m_ports;
};

} // namespace airlock
