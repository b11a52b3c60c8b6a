#pragma once
// Whoever guards sandbox networks (the egress broker, through app/daemon's EgressNetworkHooks)
// learns from the engine when a sandbox's network starts or stops carrying a guest. The
// engine calls these on its own thread, one call at a time.
#include "core/result.h"

#include <QList>
#include <QString>

namespace airlock {

// One sandbox's network as the guard needs it: the bridge the guest's packets arrive on and
// the only addresses the guest may use.
struct SandboxNetwork {
    QString name;    // sandbox name
    QString bridge;  // host bridge, e.g. "al-0fd90000"
    QString guestIp; // dotted quad
    QString gateway; // the bridge's own address (the guest's default route and resolver)
    QString mac;     // the guest's MAC
    qint64 id = 0;   // the sandbox's row id
};

class NetworkHooks {
public:
    virtual ~NetworkHooks() = default;
    // After the network is active and BEFORE the domain starts; a failure stops the start
    // (fail closed).
    virtual Status networkUp(const SandboxNetwork &net) = 0;
    // After the domain stopped, was killed, failed to start or is being removed. Idempotent.
    virtual void networkDown(const QString &name) = 0;
    // Once at start: exactly these sandboxes run.
    virtual Status reconcile(const QList<SandboxNetwork> &running) = 0;
};

} // namespace airlock
