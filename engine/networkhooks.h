#pragma once
// Whoever guards sandbox networks (the egress broker, through app/daemon's EgressNetworkHooks)
// learns from the engine when a sandbox's network starts or stops carrying a guest. The
// engine calls these on its own thread, one call at a time.
#include "core/result.h"
#include "core/sandboxnet.h"

#include <QList>
#include <QString>

namespace airlock {

class NetworkHooks {
public:
    virtual ~NetworkHooks() = default;
    // After the network is active and BEFORE the domain starts; a failure stops the start
    // (fail closed).
    virtual Status networkUp(const SandboxNet &net) = 0;
    // After the domain stopped, was killed, failed to start or is being removed. Idempotent.
    virtual void networkDown(const QString &name) = 0;
    // Once at start: exactly these sandboxes run.
    virtual Status reconcile(const QList<SandboxNet> &running) = 0;
    // A sandbox whose network is up now exposes `net.exposed` (and only those). A failure
    // means a port of the list could not be opened; the others stay as they were.
    virtual Status portsChanged(const SandboxNet &net) { Q_UNUSED(net) return ok(); }
};

} // namespace airlock
