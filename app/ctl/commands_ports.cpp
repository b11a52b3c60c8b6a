// expose, unexpose, ports: a guest port reached from this machine's loopback.
#include "ctl/command.h"
#include "ctl/loopbackforward.h"
#include "protocol/names.h"
#include "protocol/ports.h"

#include <QJsonObject>
#include <algorithm>
#include <cstdio>

namespace airlock::ctl {

namespace {

bool parsePort(Context &ctx, const QString &text, const char *what, int lowest, int *port)
{
    bool number = false;
    *port = text.toInt(&number);
    if (!number || *port < lowest || *port > 65535) {
        ctx.fail(QStringLiteral("%1 must be a port number from %2 to 65535, got \"%3\"").arg(QLatin1String(what)).arg(lowest).arg(text), kUsage);
        return false;
    }
    return true;
}

QString stateOf(const proto::ExposedPortInfo &p)
{
    if (p.listening)
        return QStringLiteral("listening");
    return p.error.isEmpty() ? QStringLiteral("sandbox stopped") : QStringLiteral("not listening: ") + p.error;
}

// Through a remote host the port is exposed there (on its loopback) and this command stays,
// forwarding from this machine's 127.0.0.1 (--host-port) over the remote's own command
// until Ctrl-C; the exposure on the remote stays until unexpose.
int exposeThroughRemote(Context &ctx, const proto::PortExposeParams &local)
{
    proto::PortExposeParams remote{local.sandbox, local.guestPort};
    Result<QJsonValue> reply = ctx.client.call(proto::method::PortExpose, remote.toJson());
    if (!reply) {
        // Exposed there already (an earlier run of this command): forward to that one.
        const std::optional<QList<proto::ExposedPortInfo>> ports = ctx.callFor<QList<proto::ExposedPortInfo>>(
            proto::method::PortList, QJsonObject{{QStringLiteral("sandbox"), local.sandbox}});
        if (!ports)
            return kFailed;
        if (std::none_of(ports->begin(), ports->end(), [&](const proto::ExposedPortInfo &p) { return p.guestPort == local.guestPort; }))
            return ctx.fail(reply.error().message());
    }
    LoopbackForward forward;
    const Result<int> port = forward.listen(local.hostPort, local.guestPort >= 1024 ? local.guestPort : 0);
    if (!port)
        return ctx.fail(port.error().message());
    const QStringList command = ctx.remoteCommand + QStringList{QStringLiteral("--to"), QStringLiteral("%1:%2").arg(local.sandbox).arg(local.guestPort)};
    if (ctx.json)
        ctx.printJson(QJsonObject{{QStringLiteral("sandbox"), local.sandbox}, {QStringLiteral("guest_port"), local.guestPort},
                                  {QStringLiteral("host_port"), *port}, {QStringLiteral("address"), QStringLiteral("127.0.0.1")},
                                  {QStringLiteral("remote"), ctx.remoteName}});
    else
        std::printf("%s: port %d (on %s) is reached on 127.0.0.1:%d of this machine while this runs; Ctrl-C stops\n",
                    qPrintable(local.sandbox), local.guestPort, qPrintable(ctx.remoteName), *port);
    std::fflush(stdout);
    forward.run(command);
    return 0;
}

int expose(Context &ctx, const Args &args)
{
    proto::PortExposeParams params{args.positional.at(0)};
    if (!parsePort(ctx, args.positional.at(1), "GUESTPORT", 1, &params.guestPort) ||
        (args.has(QStringLiteral("--host-port")) && !parsePort(ctx, args.value(QStringLiteral("--host-port")), "--host-port", 1, &params.hostPort)))
        return kUsage;
    if (!ctx.remoteName.isEmpty())
        return exposeThroughRemote(ctx, params);
    return ctx.show<proto::ExposedPortInfo>(proto::method::PortExpose, params.toJson(), [](const proto::ExposedPortInfo &p) {
        std::printf("%s: port %d is reached on %s:%d (%s)\n", qPrintable(p.sandbox), p.guestPort, qPrintable(p.address), p.hostPort,
                    p.listening ? "listening now" : "once the sandbox runs");
    });
}

int unexpose(Context &ctx, const Args &args)
{
    proto::PortRef params{args.positional.at(0)};
    if (!parsePort(ctx, args.positional.at(1), "GUESTPORT", 1, &params.guestPort))
        return kUsage;
    return ctx.show<proto::PortRef>(proto::method::PortUnexpose, params.toJson(), [](const proto::PortRef &p) {
        std::printf("%s: port %d is no longer reached from this machine\n", qPrintable(p.sandbox), p.guestPort);
    });
}

int list(Context &ctx, const Args &args)
{
    QJsonObject params;
    if (!args.positional.isEmpty())
        params.insert(QStringLiteral("sandbox"), args.positional.at(0));
    return ctx.show<QList<proto::ExposedPortInfo>>(proto::method::PortList, params, [](const QList<proto::ExposedPortInfo> &all) {
        std::printf("%-20s %-6s %-21s %-6s %s\n", "SANDBOX", "GUEST", "HOST", "CONNS", "STATE");
        for (const proto::ExposedPortInfo &p : all)
            std::printf("%-20s %-6d %-21s %-6d %s\n", qPrintable(p.sandbox), p.guestPort,
                        qPrintable(QStringLiteral("%1:%2").arg(p.address).arg(p.hostPort)), p.connections, qPrintable(stateOf(p)));
    });
}

} // namespace

void registerPortCommands(Registry &registry)
{
    registry.add({QStringLiteral("expose"), QStringLiteral("NAME GUESTPORT [--host-port P]"),
                  QStringLiteral("reach a port of the guest on this machine's 127.0.0.1 (never opens any egress); "
                                 "through --remote it forwards from here until Ctrl-C"),
                  {QStringLiteral("--host-port")}, {}, 2, 2, true, expose});
    registry.add({QStringLiteral("unexpose"), QStringLiteral("NAME GUESTPORT"), QStringLiteral("stop reaching an exposed guest port"),
                  {}, {}, 2, 2, true, unexpose});
    registry.add({QStringLiteral("ports"), QStringLiteral("[NAME]"), QStringLiteral("list exposed guest ports"), {}, {}, 0, 1, true, list});
}

} // namespace airlock::ctl
