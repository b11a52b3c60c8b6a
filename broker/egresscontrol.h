#pragma once
// How the sandbox engine tells the egress broker that a sandbox's network is up or gone.
// Implemented by EgressService (app/daemon); the engine reaches it through its network
// hooks (app/daemon/egressnetworkhooks) and calls it from its own thread, one call at a time:
//   - sandboxUp() after the sandbox's libvirt network (bridge + gateway address) exists and
//     BEFORE the domain starts, so the guest's first packet already meets the rules; a
//     failure means the sandbox must not start (fail closed);
//   - sandboxDown() after the domain stopped (or failed to start);
//   - reconcile() once at daemon start with every sandbox that is running, which replaces
//     the nftables table and the broker's listeners to match exactly that list.
#include "core/result.h"
#include "sandboxnet.h"

#include <QByteArray>
#include <QList>
#include <chrono>

namespace airlock {

class EgressControl {
public:
    virtual ~EgressControl() = default;
    virtual Status sandboxUp(const SandboxNet &net) = 0;
    virtual void sandboxDown(const QString &name) = 0;
    virtual Status reconcile(const QList<SandboxNet> &running) = 0;
    // Requests of this sandbox held for a decision right now (`airlockctl ls` shows it). Any thread.
    virtual int pendingCount(const QString &name) = 0;
    // The sandbox's guest went on from a checkpoint: what it had open or waiting belongs to a
    // guest that no longer exists and is ended, denied, with events saying so. Any thread.
    virtual void timelineReplaced(const QString &name) = 0;
    // Bytes from the sandbox's process-report channel (guestprocess.h), from its reader's
    // thread. Returns how long that reader waits before it reads more (the per-sandbox budget).
    virtual std::chrono::milliseconds guestProcessBytes(const QString &, const QByteArray &) { return std::chrono::milliseconds(0); }
};

} // namespace airlock
