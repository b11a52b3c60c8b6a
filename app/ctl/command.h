#pragma once
#include "api/blockingclient.h"
#include "protocol/jsonfields.h"

#include <QHash>
#include <QJsonValue>
#include <QMap>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>

namespace airlock::proto { struct TemplateSecret; struct TemplateInfo; }
namespace airlock::workspace { enum class ExportFormat; }

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

// How a reply is read: an object as T, an array as QList<E> (proto::fromReply, listFromJson).
template <typename T>
struct ReplyOf {
    static Result<T> read(const QJsonValue &reply) { return proto::fromReply<T>(reply); }
};
template <typename E>
struct ReplyOf<QList<E>> {
    static Result<QList<E>> read(const QJsonValue &reply) { return proto::listFromJson<E>(reply); }
};

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
    // Set when the daemon is another machine's (--remote, AIRLOCK_REMOTE, `remote use`);
    // connect() reaches it through its command from RemoteHosts.
    QString remoteName;
    QStringList remoteCommand;
    bool json = false;
    BlockingClient client;
    QString commandName;

    Status connect();
    // Calls the daemon; on error prints `airlockctl: <command> : <why>` and returns nullopt.
    std::optional<QJsonValue> call(const QString &method, const QJsonObject &params = {});
    int fail(const QString &why, int code = kFailed) const;
    void printJson(const QJsonValue &value) const;

    // Calls the daemon and reads its reply as the protocol payload T; a reply that is not T
    // is an error like a failed call. `reply` (when given) gets the reply as sent: --json
    // prints that, so the output is the documented reply field for field.
    template <typename T>
    std::optional<T> callFor(const QString &method, const QJsonObject &params = {}, QJsonValue *reply = nullptr)
    {
        const std::optional<QJsonValue> raw = call(method, params);
        if (!raw)
            return std::nullopt;
        Result<T> read = ReplyOf<T>::read(*raw);
        if (!read) {
            fail(unreadable(method, read.error()));
            return std::nullopt;
        }
        if (reply)
            *reply = *raw;
        return std::move(read.value());
    }

    // The shape of most commands: call, read the reply as T, then print it: with --json as
    // sent, else through `print(const T &)`.
    template <typename T, typename Print>
    int show(const QString &method, const QJsonObject &params, Print print)
    {
        QJsonValue reply;
        const std::optional<T> value = callFor<T>(method, params, &reply);
        if (!value)
            return kFailed;
        if (json)
            printJson(reply);
        else
            print(*value);
        return 0;
    }
    // A reply only --json prints (rm and the like: success says enough).
    template <typename T>
    int showJsonOnly(const QString &method, const QJsonObject &params)
    {
        return show<T>(method, params, [](const T &) {});
    }

    // "cannot read the daemon's METHOD reply: WHY; ..."
    static QString unreadable(const QString &method, const Error &why);
};

// The dispatcher every capability adds its commands to.
class Registry {
public:
    static Registry &instance();
    void add(Command command);
    int run(const QStringList &arguments);
    void printHelp(FILE *out) const;

private:
    const Command *find(const QStringList &words, qsizetype *used) const;
    QList<Command> m_commands;
};

// Each commands_*.cpp defines one of these; main() calls them all.
void registerBaseCommands(Registry &registry);
void registerRuleCommands(Registry &registry);
void registerPolicyCommands(Registry &registry);
void registerImageCommands(Registry &registry);
void registerSandboxCommands(Registry &registry);
void registerSnapshotCommands(Registry &registry);
void registerPortCommands(Registry &registry);
void registerEgressCommands(Registry &registry);
void registerConsoleCommands(Registry &registry);
void registerVaultCommands(Registry &registry);
void registerSecretCommands(Registry &registry);
void registerWorkspaceCommands(Registry &registry);
void registerRemoteCommands(Registry &registry);

// `create NAME ... --workspace PATH` (commands_workspace.cpp): create, start, copy the repository in.
int createWithWorkspace(Context &ctx, const QJsonObject &createParams, const QString &repoPath);

void registerTemplateCommands(Registry &registry);

// The pieces `run` (commands_run.cpp) shares with the commands that own them.
// create's options (--image, --cpus, --env, ...) into sandbox.create params: 0, or the exit code of a bad one.
int addCreateOptions(const Context &ctx, const Args &args, QJsonObject &params);
QStringList createValueOptions();
// create --workspace without the printing: sandbox.create's reply plus {workspace}, or nullopt (said why).
std::optional<QJsonObject> createSandboxWithWorkspace(Context &ctx, const QJsonObject &createParams, const QString &repoPath);
// The interactive console until Ctrl-], the end of stdin or the guest stopping.
int attachConsole(Context &ctx, const QString &name);
// Builds the image from its recipe, with progress, unless it exists; false once said why.
bool ensureImage(Context &ctx, const QString &name);
// Unlocks (or creates) the vault, asking for the passphrase on a terminal; false once said why.
bool ensureVaultUnlocked(Context &ctx);
// Stores the template's secret unless the vault has it, asking for its value (hidden) on a terminal.
// With `signInTemplate` (a template that signs in) a sign-in the vault holds will do, and so
// does no answer: the agent signs in on its console.
bool ensureSecret(Context &ctx, const proto::TemplateSecret &wanted, const QString &signInTemplate = {});
// template.list's row of `name`, or nullopt once said which templates there are.
std::optional<proto::TemplateInfo> findTemplate(Context &ctx, const QString &name);
// export's text for people.
void printExported(const QJsonObject &exported, workspace::ExportFormat format);
void registerRunCommands(Registry &registry);
void registerSignInCommands(Registry &registry);

} // namespace airlock::ctl
