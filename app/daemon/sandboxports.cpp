// port.expose, port.unexpose, port.list: a guest port reached from the host's loopback.
// The engine keeps them (engine/exposedports.cpp) and tells the network hooks, whose
// PortForwarder (broker/portforwarder.h) listens while the guest runs. Every change goes to
// the sandbox's owner on topic "port".
#include "daemon/sandboxservice.h"
#include "api/apiserver.h"
#include "api/jsonrpc.h"
#include "protocol/names.h"
#include "protocol/jsonfields.h"
#include "protocol/ports.h"
#include "portforwarder.h"
#include "sandboxengine.h"

namespace airlock {

namespace {

// The rows of one sandbox as recorded, with what its listeners say now.
QList<proto::ExposedPortInfo> portInfos(const SandboxEngine::SandboxPorts &recorded, const PortForwarder *forwarder)
{
    const QList<PortForwarder::PortState> live = forwarder ? forwarder->state(recorded.sandbox) : QList<PortForwarder::PortState>{};
    QList<proto::ExposedPortInfo> infos;
    for (const ExposedPort &port : recorded.ports) {
        proto::ExposedPortInfo info{recorded.sandbox, port.guestPort, port.hostPort};
        for (const PortForwarder::PortState &s : live) {
            if (!(s.port == port))
                continue;
            info.listening = s.listening;
            info.error = s.error;
            info.connections = s.connections;
            info.bytesToGuest = s.bytesToGuest;
            info.bytesFromGuest = s.bytesFromGuest;
        }
        if (recorded.guarded && !info.listening && info.error.isEmpty())
            info.error = QStringLiteral("not listening yet");
        infos.append(info);
    }
    return infos;
}

std::optional<QString> badPort(int port, const char *what, int lowest)
{
    if (port < lowest || port > 65535)
        return QStringLiteral("%1 must be a port number from %2 to 65535").arg(QLatin1String(what)).arg(lowest);
    return std::nullopt;
}

} // namespace

void SandboxService::registerPortMethods(ApiServer &api)
{
    // The ports of `sandbox` as they are now, to its owner.
    const auto publish = [this](SandboxEngine &engine, const QString &sandbox) {
        Result<QList<SandboxEngine::SandboxPorts>> now = engine.listExposedPorts(sandbox, 0);
        if (now && !now->isEmpty())
            m_api.postAbout(sandbox, proto::topic::Port, proto::PortsChanged{sandbox, portInfos(now->first(), m_ports.get())}.toJson());
    };

    api.registerMethod(proto::method::PortExpose, [this, publish](const Call &call) {
        Result<proto::PortExposeParams> p = proto::PortExposeParams::fromJson(call.params());
        if (!p)
            return call.fail(p.error());
        if (const auto bad = badPort(p->guestPort, "guest_port", 1); bad)
            return call.fail(rpc::InvalidParams, *bad);
        if (const auto bad = badPort(p->hostPort, "host_port", 0); bad)
            return call.fail(rpc::InvalidParams, *bad);
        if (!m_ports)
            return call.fail(Error{QStringLiteral("cannot expose ports"),
                                   QStringLiteral("this airlockd runs without its egress broker, which relays them"),
                                   ErrorKind::Unavailable});
        onEngine([this, publish, call, p = p.value()](SandboxEngine &e) {
            Result<ExposedPort> exposed = e.exposePort(p.sandbox, call.peer().uid, quint16(p.guestPort), quint16(p.hostPort));
            if (!exposed)
                return call.fail(exposed.error());
            Result<QList<SandboxEngine::SandboxPorts>> now = e.listExposedPorts(p.sandbox, call.peer().uid);
            if (!now)
                return call.fail(now.error());
            publish(e, p.sandbox);
            for (const proto::ExposedPortInfo &info : portInfos(now->first(), m_ports.get()))
                if (info.guestPort == p.guestPort)
                    return call.reply(info.toJson());
            call.fail(Error{QStringLiteral("port %1 of %2 went away meanwhile").arg(p.guestPort).arg(p.sandbox)});
        });
    });

    api.registerMethod(proto::method::PortUnexpose, [this, publish](const Call &call) {
        Result<proto::PortRef> p = proto::PortRef::fromJson(call.params());
        if (!p)
            return call.fail(p.error());
        if (const auto bad = badPort(p->guestPort, "guest_port", 1); bad)
            return call.fail(rpc::InvalidParams, *bad);
        onEngine([publish, call, p = p.value()](SandboxEngine &e) {
            if (Status s = e.unexposePort(p.sandbox, call.peer().uid, quint16(p.guestPort)); !s)
                return call.fail(s.error());
            publish(e, p.sandbox);
            call.reply(p.toJson());
        });
    });

    // {sandbox}: its ports; without: every port of the caller's sandboxes (root: everyone's).
    api.registerMethod(proto::method::PortList, [this](const Call &call) {
        const QString sandbox = call.params().value(QLatin1String("sandbox")).toString();
        onEngine([this, call, sandbox](SandboxEngine &e) {
            Result<QList<SandboxEngine::SandboxPorts>> rows = e.listExposedPorts(sandbox, call.peer().uid);
            if (!rows)
                return call.fail(rows.error());
            QList<proto::ExposedPortInfo> infos;
            for (const SandboxEngine::SandboxPorts &box : rows.value())
                infos += portInfos(box, m_ports.get());
            call.reply(proto::toJsonArray(infos));
        });
    });
}

} // namespace airlock
