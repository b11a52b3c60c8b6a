// The engine's side of network guarding (networkhooks.h): which network a sandbox has, and
// telling the hooks when it carries a running guest.
#include "core/logging.h"
#include "sandboxengine.h"
#include "virhandle.h"

#include <QSqlRecord>
#include <libvirt/libvirt.h>

namespace airlock {

// Only a confirmed answer releases a guard: libvirt says the domain does not exist, or says
// it is shut off or crashed (QEMU is gone). "unknown" (no answer: libvirtd restarting, a
// broken connection) keeps the guest guarded, since it may still send packets.
bool SandboxEngine::hasStopped(const QString &state)
{
    return state == QLatin1String("stopped") || state == QLatin1String("missing") || state == QLatin1String("crashed");
}

Result<SandboxNet> SandboxEngine::networkOf(const QString &name)
{
    const auto row = m_store.firstRow(QStringLiteral("SELECT n.bridge, n.guest_ip, n.gateway, s.mac, s.id FROM sandboxes s "
                                                     "JOIN networks n ON n.name = s.network WHERE s.name = ?"),
                                      {name});
    if (!row)
        return Error{QStringLiteral("cannot read the network of %1").arg(name), row.error().why};
    if (!*row)
        return Error{QStringLiteral("the network of %1 is not recorded").arg(name),
                     QStringLiteral("remove the sandbox and create it again")};
    const QSqlRecord &q = **row;
    Result<SandboxNet> net = sandboxNetFromText(name, q.value(0).toString(), q.value(2).toString(), q.value(1).toString(),
                                                q.value(3).toString(), q.value(4).toLongLong());
    if (!net)
        return Error{net.error().what, net.error().why + QStringLiteral("; remove the sandbox and create it again")};
    Result<QList<ExposedPort>> exposed = exposedPortsOf(net->sandboxId);
    if (!exposed)
        return exposed.error();
    net->exposed = exposed.value();
    return net;
}

Status SandboxEngine::guardNetwork(const QString &name)
{
    if (!m_hooks)
        return ok();
    Result<SandboxNet> net = networkOf(name);
    if (!net)
        return net.error();
    if (Status s = m_hooks->networkUp(net.value()); !s) {
        // The guest is not started: the drop-only chains the hooks left need not stay.
        if (!m_guarded.contains(name))
            m_hooks->networkDown(name);
        return Error{QStringLiteral("sandbox %1 was not started: its network cannot be guarded").arg(name), s.error().message(),
                     s.error().kind};
    }
    m_guarded.insert(name);
    return ok();
}

void SandboxEngine::releaseNetwork(const QString &name)
{
    if (!m_hooks || !m_guarded.remove(name))
        return;
    m_hooks->networkDown(name);
}

void SandboxEngine::releaseStoppedNetworks()
{
    if (!m_hooks || m_guarded.isEmpty())
        return;
    // A lost connection is reopened (with backoff) before anything is judged stopped; until
    // then every guard stays. After a reconnect this same pass is the reconcile: the guests
    // libvirtd still runs keep their guard, those it confirms gone lose it.
    if (Status s = ensureLibvirt(); !s)
        return;
    const QSet<QString> guarded = m_guarded;
    for (const QString &name : guarded) {
        const QString state = stateOf(m_libvirt.get(), objectName(name));
        if (hasStopped(state))
            releaseNetwork(name);
    }
}

Status SandboxEngine::reconcileNetworks()
{
    if (!m_hooks)
        return ok();
    QList<SandboxNet> running;
    const auto names = m_store.rows(QStringLiteral("SELECT name FROM sandboxes"));
    if (!names) // guarding none would leave running guests unguarded: refuse instead
        return Error{QStringLiteral("cannot read which sandboxes to guard"), names.error().why};
    for (const QSqlRecord &row : *names) {
        const QString name = row.value(0).toString();
        const QString state = stateOf(m_libvirt.get(), objectName(name));
        if (hasStopped(state))
            continue;
        Result<SandboxNet> net = networkOf(name);
        if (net) {
            running.append(net.value());
            continue;
        }
        // A guest whose network cannot even be described cannot be guarded (fail closed).
        qCWarning(lcEngine) << "stopping" << name << "because its network cannot be guarded:" << net.error().message();
        if (VirDomain d = lookupDomain(m_libvirt.get(), objectName(name)))
            virDomainDestroy(d.get());
    }
    m_guarded.clear();
    for (const SandboxNet &n : running)
        m_guarded.insert(n.name);
    Status s = m_hooks->reconcile(running);
    if (s)
        return s;
    // Some could not be guarded: try each on its own; a guest whose network still cannot be
    // guarded must not run on (fail closed).
    for (const SandboxNet &n : running) {
        const Status one = m_hooks->networkUp(n);
        if (one)
            continue;
        qCWarning(lcEngine) << "stopping" << n.name << "because its network cannot be guarded:" << one.error().message();
        // Until the guest is confirmed gone its drop-only chains stay (EgressService keeps a
        // sandbox it cannot listen for behind them); the sweep releases it later.
        if (VirDomain d = lookupDomain(m_libvirt.get(), objectName(n.name)))
            virDomainDestroy(d.get());
        if (hasStopped(stateOf(m_libvirt.get(), objectName(n.name))))
            releaseNetwork(n.name);
    }
    return s;
}

} // namespace airlock
