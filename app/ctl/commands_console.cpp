// console NAME: the guest's serial console, interactive; Ctrl-] detaches.
#include "ctl/command.h"
#include "protocol/names.h"
#include "protocol/events.h"
#include "protocol/sandbox.h"
#include "protocol/snapshots.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <cerrno>
#include <cstdio>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

namespace airlock::ctl {

namespace {

constexpr char kDetach = 0x1d; // Ctrl-]

// Puts a terminal into raw mode for the session and restores it on every way out.
class RawTerminal {
public:
    RawTerminal()
    {
        if (!::isatty(STDIN_FILENO) || ::tcgetattr(STDIN_FILENO, &m_saved) != 0)
            return;
        termios raw = m_saved;
        ::cfmakeraw(&raw);
        m_active = ::tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
    }
    ~RawTerminal()
    {
        if (m_active)
            ::tcsetattr(STDIN_FILENO, TCSANOW, &m_saved);
    }
    RawTerminal(const RawTerminal &) = delete;
    RawTerminal &operator=(const RawTerminal &) = delete;

private:
    termios m_saved{};
    bool m_active = false;
};

void writeOut(const QByteArray &data)
{
    qsizetype done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(STDOUT_FILENO, data.constData() + done, size_t(data.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += n;
    }
}

} // namespace

int attachConsole(Context &ctx, const QString &name)
{
    // The handler below reads this frame's `ended`: it must not outlive the frame (run and
    // secret login go on calling through the same client after the console).
    const struct ForgetHandler {
        BlockingClient &client;
        ~ForgetHandler() { client.onEvent = nullptr; }
    } forget{ctx.client};
    const QString topic = proto::topic::console(name);
    bool ended = false; // the guest stopped (the agent powered it off, or someone stopped it)
    ctx.client.onEvent = [topic, name, &ended](const QJsonObject &event) {
        const QString about = event.value(QLatin1String("topic")).toString();
        const QJsonObject data = event.value(QLatin1String("data")).toObject();
        if (about == proto::topic::Sandbox) {
            const Result<proto::SandboxRow> row = proto::SandboxRow::fromJson(data);
            ended = ended || (row && row->name == name &&
                              (row->state == proto::SandboxState::Stopped || row->state == proto::SandboxState::Crashed ||
                               row->state == proto::SandboxState::Removed));
        } else if (about == topic) {
            if (const Result<proto::ConsoleOutput> out = proto::ConsoleOutput::fromJson(data))
                writeOut(out->data);
        }
    };
    if (!ctx.call(proto::method::Subscribe, proto::TopicsParams{{topic, QString(proto::topic::Sandbox)}}.toJson()))
        return kFailed;
    const auto attached = ctx.callFor<proto::ConsoleAttachResult>(proto::method::ConsoleAttach, proto::NameParams{name}.toJson());
    if (!attached)
        return kFailed;
    std::fprintf(stderr, "console of %s (%s); Ctrl-] detaches\r\n", qPrintable(name), qPrintable(proto::toString(attached->state)));
    writeOut(attached->history);

    RawTerminal raw;
    bool stdinOpen = true;
    QElapsedTimer drain; // after stdin ends, show the answers for a moment, then leave
    for (;;) {
        pollfd fds[2] = {{stdinOpen ? STDIN_FILENO : -1, POLLIN, 0}, {ctx.client.fd(), POLLIN, 0}};
        if (::poll(fds, 2, 100) < 0 && errno != EINTR)
            return ctx.fail(QStringLiteral("poll failed"));
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            for (;;) {
                auto event = ctx.client.nextEvent(1);
                if (!event) {
                    if (event.error().what.contains(QLatin1String("closed")))
                        return ctx.fail(QStringLiteral("airlockd closed the connection"));
                    break;
                }
                ctx.client.onEvent(*event);
            }
        }
        if (stdinOpen && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            char buffer[4096];
            const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (n <= 0) {
                stdinOpen = false;
                drain.start();
                continue;
            }
            QByteArray data(buffer, n);
            const qsizetype detach = data.indexOf(kDetach);
            if (detach >= 0)
                data.truncate(detach);
            if (!data.isEmpty() &&
                !ctx.callFor<proto::WrittenResult>(proto::method::ConsoleWrite, proto::ConsoleWriteParams{name, data}.toJson()))
                return kFailed;
            if (detach >= 0)
                break;
        }
        if ((!stdinOpen && drain.elapsed() > 3000) || ended)
            break;
    }
    if (ended) {
        std::fprintf(stderr, "\r\n%s stopped\r\n", qPrintable(name));
        return 0;
    }
    ctx.client.call(proto::method::ConsoleDetach, proto::NameParams{name}.toJson());
    std::fprintf(stderr, "\r\ndetached from %s\r\n", qPrintable(name));
    return 0;
}

void registerConsoleCommands(Registry &registry)
{
    registry.add({QStringLiteral("console"), QStringLiteral("NAME"),
                  QStringLiteral("the sandbox's console, interactive; Ctrl-] detaches"), {}, {}, 1, 1, true,
                  [](Context &ctx, const Args &args) { return attachConsole(ctx, args.positional.at(0)); }});
}

} // namespace airlock::ctl
