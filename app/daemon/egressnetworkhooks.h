#pragma once
// Connects the engine's network hooks to the egress broker: a sandbox's network is guarded
// by EgressControl (nftables, resolver, proxy) before its guest may run.
#include "egresscontrol.h"
#include "networkhooks.h"

namespace airlock {

class EgressNetworkHooks : public NetworkHooks {
public:
    explicit EgressNetworkHooks(EgressControl &egress) : m_egress(egress) {}

    Status networkUp(const SandboxNet &net) override;
    void networkDown(const QString &name) override;
    Status reconcile(const QList<SandboxNet> &running) override;

private:
    EgressControl &m_egress;
};

} // namespace airlock
