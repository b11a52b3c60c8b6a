// status and proxy: the commands every later capability builds on.
#include "ctl/bytebridge.h"
#include "ctl/command.h"
#include "protocol/names.h"
#include "protocol/ports.h"
#include "protocol/status.h"

#include <QJsonObject>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace airlock::ctl {

namespace {

int status(Context &ctx, const Args &)
{
    return ctx.show<proto::DaemonStatus>(proto::method::Status, {}, [](const proto::DaemonStatus &s) {
        std::printf("airlockd %s\n", qPrintable(s.version));
        std::printf("  libvirt:    %s (%s)\n", qPrintable(s.libvirtUri), qPrintable(s.accel));
        std::printf("  vault:      %s\n", qPrintable(proto::toString(s.vault)));
        std::printf("  sandboxes:  %d\n", s.sandboxes);
    });
}

// A byte pipe between stdio and the daemon's socket: `ssh host airlockctl proxy` gives a
// remote client the same protocol as a local one. With --to SANDBOX:GUESTPORT the pipe goes
// to that exposed port's listener on this machine instead (what `--remote R expose` on the
// person's machine forwards through); only an exposed port is reached this way.
int proxy(Context &ctx, const Args &args)
{
    int target = ctx.client.fd();
    if (args.has(QStringLiteral("--to"))) {
        const QString to = args.value(QStringLiteral("--to"));
        const QString sandbox = to.section(QLatin1Char(':'), 0, -2);
        bool number = false;
        const int guestPort = to.section(QLatin1Char(':'), -1).toInt(&number);
        if (sandbox.isEmpty() || !number)
            return ctx.fail(QStringLiteral("--to takes SANDBOX:GUESTPORT, got \"%1\"").arg(to), kUsage);
        const std::optional<QList<proto::ExposedPortInfo>> ports =
            ctx.callFor<QList<proto::ExposedPortInfo>>(proto::method::PortList, QJsonObject{{QStringLiteral("sandbox"), sandbox}});
        if (!ports)
            return kFailed;
        const auto exposed = std::find_if(ports->begin(), ports->end(), [&](const proto::ExposedPortInfo &p) { return p.guestPort == guestPort; });
        if (exposed == ports->end())
            return ctx.fail(QStringLiteral("port %1 of %2 is not exposed; `airlockctl expose %2 %1` first").arg(guestPort).arg(sandbox));
        if (!exposed->listening)
            return ctx.fail(QStringLiteral("port %1 of %2 is not reached now (%3); start the sandbox")
                                .arg(guestPort).arg(sandbox, exposed->error.isEmpty() ? QStringLiteral("stopped") : exposed->error));
        target = connectLoopback(exposed->hostPort);
        if (target < 0)
            return ctx.fail(QStringLiteral("cannot connect to 127.0.0.1:%1: %2").arg(exposed->hostPort).arg(QString::fromLocal8Bit(std::strerror(errno))));
    }
    const QString failed = bridge(STDIN_FILENO, STDOUT_FILENO, target);
    if (target != ctx.client.fd())
        ::close(target);
    return failed.isEmpty() ? 0 : ctx.fail(failed);
}

} // namespace

void registerBaseCommands(Registry &registry)
{
    registry.add({QStringLiteral("status"), {}, QStringLiteral("daemon version, libvirt, accelerator, vault, sandbox count"),
                  {}, {}, 0, 0, true, status});
    registry.add({QStringLiteral("proxy"), QStringLiteral("[--to SANDBOX:GUESTPORT]"),
                  QStringLiteral("stdio bridge to the local daemon (for ssh remotes), or to an exposed port"),
                  {QStringLiteral("--to")}, {}, 0, 0, true, proxy});
}

} // namespace airlock::ctl
