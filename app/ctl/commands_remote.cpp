// remote add / ls / use / rm: the other machines' airlockd instances, one list shared with
// the desktop app's Hosts menu (RemoteHosts). Nothing here talks to a daemon.
#include "api/remotehosts.h"
#include "ctl/command.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <cstdio>

namespace airlock::ctl {

namespace {

// Empty message from RemoteHosts: done; else the failure, as a usage error.
int finish(Context &ctx, const QString &error, const QString &done)
{
    if (!error.isEmpty())
        return ctx.fail(error, kUsage);
    if (!ctx.json)
        std::printf("%s\n", qPrintable(done));
    return 0;
}

int add(Context &ctx, const Args &args)
{
    const QString name = args.positional.at(0);
    QStringList command;
    if (args.has(QStringLiteral("--ssh"))) {
        if (args.positional.size() > 1)
            return ctx.fail(QStringLiteral("give either --ssh DESTINATION or the command, not both"), kUsage);
        command = RemoteHosts::sshCommand(args.value(QStringLiteral("--ssh")));
    } else if (args.positional.size() == 2) {
        command = QProcess::splitCommand(args.positional.at(1)); // 'ssh devbox airlockctl proxy', quoted as a shell would
    } else {
        command = args.positional.mid(1) + args.rest; // remote add NAME -- ssh -J jump devbox airlockctl proxy
    }
    RemoteHosts hosts;
    return finish(ctx, hosts.add(name, command),
                  QStringLiteral("%1 added: `airlockctl --remote %1 status` tries it, `airlockctl remote use %1` makes it the default")
                      .arg(name.trimmed()));
}

int list(Context &ctx, const Args &)
{
    const RemoteHosts hosts;
    const QString current = hosts.current().isEmpty() ? RemoteHosts::localName() : hosts.current();
    QJsonArray rows;
    rows.append(QJsonObject{{QStringLiteral("name"), RemoteHosts::localName()}, {QStringLiteral("command"), QJsonArray()},
                            {QStringLiteral("current"), current == RemoteHosts::localName()}});
    for (const RemoteHosts::Host &h : hosts.hosts())
        rows.append(QJsonObject{{QStringLiteral("name"), h.name}, {QStringLiteral("command"), QJsonArray::fromStringList(h.command)},
                                {QStringLiteral("current"), current == h.name}});
    if (ctx.json) {
        ctx.printJson(rows);
        return 0;
    }
    std::printf("  %-20s %s\n", "NAME", "COMMAND");
    for (const QJsonValue &v : rows) {
        const QJsonObject row = v.toObject();
        QStringList command;
        for (const QJsonValue &word : row.value(QStringLiteral("command")).toArray())
            command.append(word.toString());
        std::printf("%s %-20s %s\n", row.value(QStringLiteral("current")).toBool() ? "*" : " ",
                    qPrintable(row.value(QStringLiteral("name")).toString()),
                    command.isEmpty() ? "(this machine)" : qPrintable(command.join(QLatin1Char(' '))));
    }
    return 0;
}

int use(Context &ctx, const Args &args)
{
    const QString name = args.positional.at(0);
    RemoteHosts hosts;
    return finish(ctx, hosts.setCurrent(name),
                  name == RemoteHosts::localName() ? QStringLiteral("commands now reach this machine's airlockd")
                                                   : QStringLiteral("commands now reach %1's airlockd (--remote local for this machine)").arg(name));
}

int remove(Context &ctx, const Args &args)
{
    RemoteHosts hosts;
    return finish(ctx, hosts.remove(args.positional.at(0)), QStringLiteral("%1 removed").arg(args.positional.at(0)));
}

} // namespace

void registerRemoteCommands(Registry &registry)
{
    registry.add({QStringLiteral("remote add"), QStringLiteral("NAME ('COMMAND' | --ssh DEST | -- COMMAND...)"),
                  QStringLiteral("keep another machine's airlockd, reached by a command such as ssh HOST airlockctl proxy"),
                  {QStringLiteral("--ssh")}, {}, 1, -1, false, add});
    registry.add({QStringLiteral("remote ls"), {}, QStringLiteral("the remote hosts kept, * marks the one commands reach"),
                  {}, {}, 0, 0, false, list});
    registry.add({QStringLiteral("remote use"), QStringLiteral("NAME|local"), QStringLiteral("the daemon commands reach when --remote does not say"),
                  {}, {}, 1, 1, false, use});
    registry.add({QStringLiteral("remote rm"), QStringLiteral("NAME"), QStringLiteral("forget a remote host"), {}, {}, 1, 1, false, remove});
}

} // namespace airlock::ctl
