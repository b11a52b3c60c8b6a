// The blocking halves of a sandbox's power changes: a guest's own shutdown and its guest
// agent coming up. They poll for seconds to minutes, so they run on the daemon's pool
// threads on the engine's (thread-safe) connection and touch neither the store nor the
// engine's state; start, kill, pause and resume (sandboxengine.cpp) run on the engine thread.
#include "core/crashpoint.h"
#include "guestagent.h"
#include "sandboxengine.h"
#include "virhandle.h"

#include <QThread>

namespace airlock {

namespace {
constexpr int kAgentPollMs = 250;
constexpr int kShutdownPollMs = 100;

bool isShutOff(virDomainPtr dom)
{
    int state = 0, reason = 0;
    return virDomainGetState(dom, &state, &reason, 0) == 0 && state == VIR_DOMAIN_SHUTOFF;
}
} // namespace

AgentWait SandboxEngine::waitForGuestAgent(virDomainPtr dom, QDeadlineTimer deadline, const std::atomic<bool> &stopping)
{
    while (dom && !stopping) {
        if (GuestAgent(dom).ping(2))
            return AgentWait::Answered;
        if (isShutOff(dom))
            return AgentWait::ShutOff;
        if (deadline.hasExpired())
            return AgentWait::TimedOut;
        QThread::msleep(kAgentPollMs);
    }
    return stopping ? AgentWait::Cancelled : AgentWait::ShutOff; // no domain: it is gone
}

Status SandboxEngine::shutdown(virConnectPtr conn, const QString &sandbox, const QString &domain, int timeoutS)
{
    VirDomain dom = lookupDomain(conn, domain);
    if (!dom)
        return Error{QStringLiteral("the domain of %1 is gone").arg(sandbox), {}, ErrorKind::NotFound};
    // A paused guest cannot shut itself down.
    int state = 0, reason = 0;
    virDomainGetState(dom.get(), &state, &reason, 0);
    bool asked = false;
    if (state == VIR_DOMAIN_RUNNING)
        asked = virDomainShutdownFlags(dom.get(), VIR_DOMAIN_SHUTDOWN_GUEST_AGENT) == 0 ||
                virDomainShutdownFlags(dom.get(), VIR_DOMAIN_SHUTDOWN_ACPI_POWER_BTN) == 0;
    QDeadlineTimer deadline(asked ? qint64(timeoutS) * 1000 : 0);
    while (!deadline.hasExpired() && !isShutOff(dom.get()))
        QThread::msleep(kShutdownPollMs);
    if (virDomainIsActive(dom.get()) == 1)
        virDomainDestroy(dom.get()); // the guest did not stop in time
    crashPoint("stop:shutoff"); // before the daemon releases the guest's network
    return ok();
}

} // namespace airlock
