#pragma once
#include "api/blockingclient.h"

#include <QHash>
#include <QJsonValue>
#include <QMap>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>

namespace airlock::ctl {

// Exit codes of every command: 2 for usage, 1 for everything else.
constexpr int kUsage = 2;
constexpr int kFailed = 1;

// One command's parsed arguments: positionals plus options (repeatable ones keep all values).
struct Args {
    QStringList positional;
    QMultiMap<QString, QString> options; // "--env" -> "K=V" (insertion order kept per key)
    QStringList rest;                    // after "--"
    QString value(const QString &name, const QString &fallback = {}) const { return options.value(name, fallback); }
    QStringList values(const QString &name) const;
    bool has(const QString &name) const { return options.contains(name); }
};

struct Context;

struct Command {
    QString name;                 // "snapshot create"
    QString usage;                // "NAME [--label L]"
    QString summary;
    QStringList valueOptions;     // options that take a value: {"--label"}
    QStringList flagOptions;      // options without a value: {"--start"}
    int minPositional = 0;
    int maxPositional = 0;        // -1: unlimited
    bool needsDaemon = true;
    std::function<int(Context &, const Args &)> run;
};

// What every command gets: global options, the connection, and the output conventions.
struct Context {
    QString socketPath;
    bool json = false;
    BlockingClient client;
    QString commandName;

    Status connect();
    // Calls the daemon; on error prints `airlockctl: <command> : <why>` and returns nullopt.
    std::optional<QJsonValue> call(const QString &method, const QJsonObject &params = {});
    int fail(const QString &why, int code = kFailed) const;
    void printJson(const QJsonValue &value) const;
};

// The dispatcher every capability adds its commands to.
class Registry {
public:
    static Registry &instance();
    void add(Command command);
    int run(const QStringList &arguments);
    void printHelp(FILE *out) const;

private:
    QList<Command> m_commands;
};

// Each commands_*.cpp defines one of these; main() calls them all.
void registerBaseCommands(Registry &registry);
void registerRuleCommands(Registry &registry);
void registerImageCommands(Registry &registry);
void registerSandboxCommands(Registry &registry);
void registerSnapshotCommands(Registry &registry);
void registerEgressCommands(Registry &registry);
void registerConsoleCommands(Registry &registry);
void registerVaultCommands(Registry &registry);
void registerSecretCommands(Registry &registry);
void registerWorkspaceCommands(Registry &registry);

// `create NAME ... --workspace PATH` (commands_workspace.cpp): create, start, copy the repository in.
int createWithWorkspace(Context &ctx, const QJsonObject &createParams, const QString &repoPath);

void registerTemplateCommands(Registry &registry);

} // namespace airlock::ctl
