// status and proxy: the commands every later capability builds on.
#include "ctl/command.h"
#include "protocol/names.h"
#include "protocol/status.h"

#include <QJsonObject>
#include <cerrno>
#include <cstdio>
#include <poll.h>
#include <sys/socket.h>
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

bool writeAll(int fd, const char *data, ssize_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size_t(size));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= n;
    }
    return true;
}

// A byte pipe between stdio and the daemon's socket: `ssh host airlockctl proxy` gives a
// remote client the same protocol as a local one.
int proxy(Context &ctx, const Args &)
{
    const int sock = ctx.client.fd();
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {sock, POLLIN, 0}};
    char buffer[65536];
    bool stdinOpen = true;
    for (;;) {
        fds[0].fd = stdinOpen ? STDIN_FILENO : -1;
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return ctx.fail(QStringLiteral("poll failed"));
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t n = ::read(sock, buffer, sizeof buffer);
            if (n <= 0)
                return 0; // daemon closed: the bridge ends
            if (!writeAll(STDOUT_FILENO, buffer, n))
                return 0;
        }
        if (stdinOpen && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (n <= 0) {
                stdinOpen = false;
                ::shutdown(sock, SHUT_WR); // let the daemon finish answering, then it closes
            } else if (!writeAll(sock, buffer, n)) {
                return ctx.fail(QStringLiteral("airlockd closed the connection"));
            }
        }
    }
}

} // namespace

void registerBaseCommands(Registry &registry)
{
    registry.add({QStringLiteral("status"), {}, QStringLiteral("daemon version, libvirt, accelerator, vault, sandbox count"),
                  {}, {}, 0, 0, true, status});
    registry.add({QStringLiteral("proxy"), {}, QStringLiteral("stdio bridge to the local daemon (for ssh remotes)"),
                  {}, {}, 0, 0, true, proxy});
}

} // namespace airlock::ctl
