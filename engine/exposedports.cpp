// Exposed guest ports: the host's loopback reaches a port in the guest (never the other
// way). The rows are kept in exposed_ports; the listeners belong to whoever the network
// hooks tell (app/daemon's, relaying through broker/portforwarder.h) while the guest runs.
#include "core/loopbackport.h"
#include "sandboxengine.h"

#include <QDateTime>
#include <QSqlRecord>

namespace airlock {

namespace {

Error storeFailed(const QString &what, const Error &error) { return Error{what, error.why}; }

bool sameGuestPort(const ExposedPort &p, quint16 guestPort) { return p.guestPort == guestPort; }

} // namespace

Result<QList<ExposedPort>> SandboxEngine::exposedPortsOf(qint64 sandboxId)
{
    const auto rows = m_store.rows(
        QStringLiteral("SELECT guest_port, host_port FROM exposed_ports WHERE sandbox_id = ? ORDER BY guest_port"), {sandboxId});
    if (!rows)
        return storeFailed(QStringLiteral("cannot read the exposed ports"), rows.error());
    QList<ExposedPort> ports;
    for (const QSqlRecord &r : rows.value())
        ports.append({quint16(r.value(0).toUInt()), quint16(r.value(1).toUInt())});
    return ports;
}

Status SandboxEngine::applyExposedPorts(const QString &name, const QList<ExposedPort> &ports)
{
    if (!m_hooks || !m_guarded.contains(name))
        return ok();
    Result<SandboxNet> net = networkOf(name);
    if (!net)
        return net.error();
    net->exposed = ports;
    return m_hooks->portsChanged(net.value());
}

Result<ExposedPort> SandboxEngine::exposePort(const QString &name, uid_t uid, quint16 guestPort, quint16 hostPort)
{
    qint64 id = 0;
    if (Status s = requireSandbox(name, uid, &id); !s)
        return s.error();
    if (guestPort == 0)
        return Error{QStringLiteral("cannot expose port 0 of %1").arg(name), QStringLiteral("give a guest port from 1 to 65535"),
                     ErrorKind::InvalidParams};
    Result<QList<ExposedPort>> ports = exposedPortsOf(id);
    if (!ports)
        return ports.error();
    for (const ExposedPort &p : ports.value()) {
        if (sameGuestPort(p, guestPort))
            return Error{QStringLiteral("port %1 of %2 is already exposed").arg(guestPort).arg(name),
                         QStringLiteral("it is reached on 127.0.0.1:%1; `airlockctl unexpose %2 %3` first to move it")
                             .arg(p.hostPort).arg(name).arg(guestPort),
                         ErrorKind::Conflict};
    }
    // "port P of sandbox S" when that host port is kept for another exposed port, else empty.
    const auto taken = [this](quint16 port) -> Result<QString> {
        const auto row = m_store.firstRow(QStringLiteral("SELECT s.name, e.guest_port FROM exposed_ports e JOIN sandboxes s "
                                                         "ON s.id = e.sandbox_id WHERE e.host_port = ?"),
                                          {port});
        if (!row)
            return storeFailed(QStringLiteral("cannot read the exposed ports"), row.error());
        return *row ? QStringLiteral("port %1 of sandbox %2").arg((*row)->value(1).toString(), (*row)->value(0).toString()) : QString();
    };
    Result<quint16> chosen = Error{};
    if (hostPort) {
        Result<QString> owner = taken(hostPort);
        if (!owner)
            return owner.error();
        if (!owner->isEmpty()) // kept even while free, as that sandbox may be stopped
            return Error{QStringLiteral("host port %1 cannot be used").arg(hostPort),
                         QStringLiteral("it already reaches %1; choose another with --host-port").arg(owner.value()),
                         ErrorKind::Conflict};
        chosen = freeLoopbackPort(hostPort);
    } else {
        // The guest's own number is what people type; a privileged or busy one gets any free port.
        Result<QString> owner = taken(guestPort);
        if (!owner)
            return owner.error();
        if (guestPort >= 1024 && owner->isEmpty())
            chosen = freeLoopbackPort(guestPort);
        for (int attempt = 0; !chosen && attempt < 8; ++attempt) {
            chosen = freeLoopbackPort(0);
            if (chosen) {
                Result<QString> other = taken(chosen.value());
                if (!other)
                    return other.error();
                if (!other->isEmpty())
                    chosen = Error{QStringLiteral("no free host port")};
            }
        }
    }
    if (!chosen)
        return chosen.error();
    const ExposedPort exposed{guestPort, chosen.value()};

    // Listening first: a port that cannot be bound is never recorded as reachable.
    QList<ExposedPort> next = ports.value();
    next.append(exposed);
    if (Status s = applyExposedPorts(name, next); !s) {
        applyExposedPorts(name, ports.value()); // the failed listener is not listed either
        return s.error();
    }
    const auto written = m_store.write(
        QStringLiteral("INSERT INTO exposed_ports (sandbox_id, guest_port, host_port, created) VALUES (?, ?, ?, ?)"),
        {id, guestPort, exposed.hostPort, QDateTime::currentDateTimeUtc().toString(Qt::ISODate)});
    if (!written) {
        applyExposedPorts(name, ports.value()); // back to what is recorded
        return storeFailed(QStringLiteral("cannot record port %1 of %2").arg(guestPort).arg(name), written.error());
    }
    return exposed;
}

Status SandboxEngine::unexposePort(const QString &name, uid_t uid, quint16 guestPort)
{
    qint64 id = 0;
    if (Status s = requireSandbox(name, uid, &id); !s)
        return s;
    const auto removed = m_store.change(QStringLiteral("DELETE FROM exposed_ports WHERE sandbox_id = ? AND guest_port = ?"),
                                        {id, guestPort});
    if (!removed)
        return storeFailed(QStringLiteral("cannot remove port %1 of %2").arg(guestPort).arg(name), removed.error());
    if (removed.value() == 0)
        return Error{QStringLiteral("port %1 of %2 is not exposed").arg(guestPort).arg(name),
                     QStringLiteral("see `airlockctl ports %1`").arg(name), ErrorKind::NotFound};
    Result<QList<ExposedPort>> ports = exposedPortsOf(id);
    if (!ports)
        return ports.error();
    // The row is gone whatever the hooks say: closing a listener cannot fail in a way that
    // leaves it reachable (PortForwarder closes before it reports).
    return applyExposedPorts(name, ports.value());
}

Result<QList<SandboxEngine::SandboxPorts>> SandboxEngine::listExposedPorts(const QString &name, uid_t uid)
{
    QList<SandboxPorts> result;
    if (!name.isEmpty()) {
        qint64 id = 0;
        if (Status s = requireSandbox(name, uid, &id); !s)
            return s.error();
        Result<QList<ExposedPort>> ports = exposedPortsOf(id);
        if (!ports)
            return ports.error();
        result.append({name, m_guarded.contains(name), ports.value()});
        return result;
    }
    const auto rows = m_store.rows(QStringLiteral("SELECT s.name, e.guest_port, e.host_port FROM exposed_ports e JOIN sandboxes s "
                                                  "ON s.id = e.sandbox_id WHERE ? = 0 OR s.owner_uid = ? "
                                                  "ORDER BY s.name, e.guest_port"),
                                   {qint64(uid), qint64(uid)});
    if (!rows)
        return storeFailed(QStringLiteral("cannot read the exposed ports"), rows.error());
    for (const QSqlRecord &r : rows.value()) {
        const QString sandbox = r.value(0).toString();
        if (result.isEmpty() || result.last().sandbox != sandbox)
            result.append({sandbox, m_guarded.contains(sandbox), {}});
        result.last().ports.append({quint16(r.value(1).toUInt()), quint16(r.value(2).toUInt())});
    }
    return result;
}

} // namespace airlock
