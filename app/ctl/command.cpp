#include "ctl/command.h"
#include "api/remotehosts.h"
#include "core/config.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>
#include <optional>

namespace airlock::ctl {

QStringList Args::values(const QString &name) const
{
    QStringList all = options.values(name);
    std::reverse(all.begin(), all.end()); // QMultiMap returns the newest first
    return all;
}

Status Context::connect()
{
    if (remoteName.isEmpty())
        return client.connectTo(socketPath);
    const RemoteHosts hosts;
    const RemoteHosts::Host *host = hosts.find(remoteName);
    if (!host)
        return Error{QStringLiteral("there is no remote host called %1").arg(remoteName),
                     QStringLiteral("`airlockctl remote ls` lists them, `airlockctl remote add NAME 'ssh HOST airlockctl proxy'` "
                                    "adds one, `--remote local` is this machine")};
    remoteCommand = host->command;
    return client.connect(DaemonAddress{socketPath, remoteCommand, remoteName});
}

std::optional<QJsonValue> Context::call(const QString &method, const QJsonObject &params)
{
    Result<QJsonValue> r = client.call(method, params);
    if (!r) {
        fail(r.error().why.isEmpty() ? r.error().what : r.error().why);
        return std::nullopt;
    }
    return r.value();
}

QString Context::unreadable(const QString &method, const Error &why)
{
    return QStringLiteral("cannot read the daemon's %1 reply: %2; update airlockctl to the daemon's version")
        .arg(method, why.message());
}

int Context::fail(const QString &why, int code) const
{
    std::fprintf(stderr, "airlockctl: %s : %s\n", qPrintable(commandName), qPrintable(why));
    return code;
}

void Context::printJson(const QJsonValue &value) const
{
    const QJsonDocument doc = value.isArray() ? QJsonDocument(value.toArray()) : QJsonDocument(value.toObject());
    std::fputs(doc.toJson(QJsonDocument::Indented).constData(), stdout);
    std::fflush(stdout);
}

Registry &Registry::instance()
{
    static Registry registry;
    return registry;
}

void Registry::add(Command command) { m_commands.append(std::move(command)); }

void Registry::printHelp(FILE *out) const
{
    std::fputs("usage: airlockctl [--socket PATH | --remote NAME] [--json] COMMAND [ARGS]\n\n"
               "--remote NAME (or AIRLOCK_REMOTE, or `remote use NAME`) reaches another machine's airlockd;\n"
               "`local` is this machine.\n\ncommands:\n", out);
    for (const Command &c : m_commands)
        std::fprintf(out, "  %-18s %-40s %s\n", qPrintable(c.name), qPrintable(c.usage), qPrintable(c.summary));
}

namespace {

// Takes the global options (anywhere before "--") out of `arguments` into `ctx`; the rest
// goes to `remaining`. An exit code when the run ends here (--help, --version, a bad one).
// A global option's value ("--socket PATH" or "--socket=PATH"); nullopt (after saying so) when missing.
std::optional<QString> optionValue(const QStringList &arguments, qsizetype &i, const char *what)
{
    const QString &a = arguments.at(i);
    if (a.contains(QLatin1Char('=')))
        return a.section(QLatin1Char('='), 1);
    if (i + 1 < arguments.size())
        return arguments.at(++i);
    std::fprintf(stderr, "airlockctl: %s : needs a %s\n", qPrintable(a), what);
    return std::nullopt;
}

// Which daemon the command talks to: --remote, else --socket, else AIRLOCK_REMOTE, else
// AIRLOCK_SOCKET, else the remote `remote use` chose, else this machine's socket.
std::optional<int> chooseDaemon(Context &ctx, const std::optional<QString> &remoteFlag, bool socketFlag)
{
    if (remoteFlag && socketFlag) {
        std::fputs("airlockctl: --remote and --socket name two daemons: give one\n", stderr);
        return kUsage;
    }
    ctx.remoteName = RemoteHosts().chosen(remoteFlag, socketFlag);
    return std::nullopt;
}

std::optional<int> readGlobalOptions(const QStringList &arguments, Context &ctx, QStringList &remaining, const Registry &registry)
{
    std::optional<QString> remoteFlag;
    bool socketFlag = false;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments.at(i);
        if (a == QLatin1String("--")) {
            remaining += arguments.mid(i);
            break;
        }
        if (a == QLatin1String("--json")) {
            ctx.json = true;
        } else if (a == QLatin1String("--socket") || a.startsWith(QLatin1String("--socket="))) {
            const std::optional<QString> path = optionValue(arguments, i, "path");
            if (!path)
                return kUsage;
            ctx.socketPath = *path;
            socketFlag = true;
        } else if (a == QLatin1String("--remote") || a.startsWith(QLatin1String("--remote="))) {
            remoteFlag = optionValue(arguments, i, "remote host's name");
            if (!remoteFlag)
                return kUsage;
        } else if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            registry.printHelp(stdout);
            return 0;
        } else if (a == QLatin1String("--version")) {
            std::printf("airlockctl %s\n", AIRLOCK_VERSION);
            return 0;
        } else {
            remaining.append(a);
        }
    }
    return chooseDaemon(ctx, remoteFlag, socketFlag);
}

// The command's positionals, options and the words after "--", from `words` (the command's
// name taken off); an exit code when they do not fit its usage.
std::optional<int> readArgs(const Command &command, const QStringList &words, const Context &ctx, Args &args)
{
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString &a = words.at(i);
        if (a == QLatin1String("--")) {
            args.rest = words.mid(i + 1);
            break;
        }
        if (!a.startsWith(QLatin1String("--"))) {
            args.positional.append(a);
            continue;
        }
        const QString key = a.section(QLatin1Char('='), 0, 0);
        if (command.flagOptions.contains(key)) {
            args.options.insert(key, QString());
        } else if (command.valueOptions.contains(key)) {
            QString value;
            if (a.contains(QLatin1Char('=')))
                value = a.section(QLatin1Char('='), 1);
            else if (i + 1 < words.size())
                value = words.at(++i);
            else
                return ctx.fail(QStringLiteral("%1 needs a value; usage: airlockctl %2 %3").arg(key, command.name, command.usage), kUsage);
            args.options.insert(key, value);
        } else {
            return ctx.fail(QStringLiteral("unknown option %1; usage: airlockctl %2 %3").arg(key, command.name, command.usage), kUsage);
        }
    }
    if (args.positional.size() < command.minPositional ||
        (command.maxPositional >= 0 && args.positional.size() > command.maxPositional))
        return ctx.fail(QStringLiteral("usage: airlockctl %1 %2").arg(command.name, command.usage), kUsage);
    return std::nullopt;
}

} // namespace

// The command whose name is the longest run of leading words; `used` gets its length.
const Command *Registry::find(const QStringList &words, qsizetype *used) const
{
    const Command *command = nullptr;
    *used = 0;
    for (const Command &c : m_commands) {
        const QStringList name = c.name.split(QLatin1Char(' '));
        if (name.size() > words.size() || name.size() <= *used)
            continue;
        if (words.mid(0, name.size()) == name) {
            command = &c;
            *used = name.size();
        }
    }
    return command;
}

int Registry::run(const QStringList &arguments)
{
    Context ctx;
    ctx.socketPath = defaultSocketPath();
    QStringList remaining;
    if (const std::optional<int> done = readGlobalOptions(arguments, ctx, remaining, *this))
        return *done;

    qsizetype used = 0;
    const Command *command = find(remaining, &used);
    if (!command) {
        const QString what = remaining.isEmpty() ? QStringLiteral("no command given") :
                             QStringLiteral("unknown command \"%1\"").arg(remaining.join(QLatin1Char(' ')));
        std::fprintf(stderr, "airlockctl: %s : see `airlockctl --help`\n", qPrintable(what));
        return kUsage;
    }
    ctx.commandName = command->name;

    Args args;
    if (const std::optional<int> bad = readArgs(*command, remaining.mid(used), ctx, args))
        return *bad;
    if (command->needsDaemon) {
        if (Status s = ctx.connect(); !s)
            return ctx.fail(s.error().message());
    }
    return command->run(ctx, args);
}

} // namespace airlock::ctl
