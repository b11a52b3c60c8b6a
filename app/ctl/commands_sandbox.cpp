// create, ls, start/stop/kill/pause/resume/rm, exec, cp.
#include "ctl/command.h"
#include "ctl/duration.h"
#include "workspace/policyfiles.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <cstdio>
#include <unistd.h>

namespace airlock::ctl {

namespace {

constexpr qint64 kChunk = 512 * 1024; // stays well below the 1 MiB request line limit

// A created sandbox, or one a lifecycle command changed (a removed one has no image or ip).
template <typename Sandbox>
void printSandbox(const Sandbox &s)
{
    if (s.state == proto::SandboxState::Removed)
        return;
    std::printf("%s: %s, image %s, ip %s\n", qPrintable(s.name), qPrintable(proto::toString(s.state)), qPrintable(s.image),
                qPrintable(s.ip));
    if constexpr (requires { s.pausedReason; })
        if (s.pausedReason)
            std::printf("  %s\n", qPrintable(*s.pausedReason));
}

} // namespace

int addCreateOptions(const Context &ctx, const Args &args, QJsonObject &params)
{
    if (args.has(QStringLiteral("--image")))
        params.insert(QStringLiteral("image"), args.value(QStringLiteral("--image")));
    if (args.has(QStringLiteral("--template")))
        params.insert(QStringLiteral("template"), args.value(QStringLiteral("--template")));
    if (args.has(QStringLiteral("--policy"))) {
        Result<PolicyFileText> file = readPolicyFile(args.value(QStringLiteral("--policy")));
        if (!file)
            return ctx.fail(file.error().message(), kUsage);
        params.insert(QStringLiteral("policy"), file->text);
        params.insert(QStringLiteral("policy_source"), file->name);
    }
    for (const auto &[option, key] : {std::pair{"--cpus", "cpus"}, std::pair{"--memory", "memory_mib"}, std::pair{"--disk", "disk_gib"},
                                 std::pair{"--boot-timeout", "boot_timeout_s"}}) {
        const QString opt = QString::fromLatin1(option);
        if (!args.has(opt))
            continue;
        bool okNumber = false;
        const int n = args.value(opt).toInt(&okNumber);
        if (!okNumber)
            return ctx.fail(QStringLiteral("%1 needs a whole number, got \"%2\"").arg(opt, args.value(opt)), kUsage);
        params.insert(QString::fromLatin1(key), n);
    }
    QJsonObject env;
    for (const QString &kv : args.values(QStringLiteral("--env"))) {
        const qsizetype eq = kv.indexOf(QLatin1Char('='));
        if (eq <= 0)
            return ctx.fail(QStringLiteral("--env needs NAME=VALUE, got \"%1\"").arg(kv), kUsage);
        env.insert(kv.left(eq), kv.mid(eq + 1));
    }
    if (!env.isEmpty())
        params.insert(QStringLiteral("env"), env);
    QJsonArray secrets;
    for (const QString &s : args.values(QStringLiteral("--secret"))) {
        const QString secret = s.section(QLatin1Char('='), 0, 0);
        const QString var = s.contains(QLatin1Char('=')) ? s.section(QLatin1Char('='), 1) : secret.toUpper();
        secrets.append(QJsonObject{{QStringLiteral("secret"), secret}, {QStringLiteral("env"), var}});
    }
    if (!secrets.isEmpty())
        params.insert(QStringLiteral("secrets"), secrets);
    const QStringList presets = args.values(QStringLiteral("--preset"));
    if (!presets.isEmpty())
        params.insert(QStringLiteral("presets"), QJsonArray::fromStringList(presets));
    if (args.has(QStringLiteral("--ephemeral")))
        params.insert(QStringLiteral("ephemeral"), true);
    if (args.has(QStringLiteral("--checkpoint-every"))) {
        QString why;
        const std::optional<qint64> every = parseDuration(args.value(QStringLiteral("--checkpoint-every")), &why);
        if (!every)
            return ctx.fail(QStringLiteral("--checkpoint-every: %1").arg(why), kUsage);
        params.insert(QStringLiteral("checkpoint_every_s"), *every);
    }
    if (args.has(QStringLiteral("--keep"))) {
        bool okNumber = false;
        const int keep = args.value(QStringLiteral("--keep")).toInt(&okNumber);
        if (!okNumber || !args.has(QStringLiteral("--checkpoint-every")))
            return ctx.fail(QStringLiteral("--keep needs a number and --checkpoint-every"), kUsage);
        params.insert(QStringLiteral("checkpoint_keep"), keep);
    }
    return 0;
}

QStringList createValueOptions()
{
    return {QStringLiteral("--image"), QStringLiteral("--template"), QStringLiteral("--cpus"), QStringLiteral("--memory"),
            QStringLiteral("--disk"), QStringLiteral("--env"), QStringLiteral("--secret"), QStringLiteral("--preset"),
            QStringLiteral("--workspace"), QStringLiteral("--boot-timeout"), QStringLiteral("--policy"),
            QStringLiteral("--checkpoint-every"), QStringLiteral("--keep")};
}

namespace {

int create(Context &ctx, const Args &args)
{
    QJsonObject params{{QStringLiteral("name"), args.positional.at(0)}};
    if (const int bad = addCreateOptions(ctx, args, params))
        return bad;
    if (args.has(QStringLiteral("--start")))
        params.insert(QStringLiteral("start"), true);
    if (args.has(QStringLiteral("--workspace")))
        return createWithWorkspace(ctx, params, args.value(QStringLiteral("--workspace")));
    return ctx.show<proto::SandboxCreated>(proto::method::SandboxCreate, params, printSandbox<proto::SandboxCreated>);
}

int ls(Context &ctx, const Args &)
{
    return ctx.show<QList<proto::SandboxRow>>(proto::method::SandboxList, {}, [](const QList<proto::SandboxRow> &rows) {
        std::printf("%-24s %-9s %-12s %-16s %s\n", "NAME", "STATE", "IMAGE", "IP", "PENDING");
        for (const proto::SandboxRow &r : rows)
            std::printf("%-24s %-9s %-12s %-16s %lld\n", qPrintable(r.name), qPrintable(proto::toString(r.state)),
                        qPrintable(r.image), qPrintable(r.ip), static_cast<long long>(r.pending));
        for (const proto::SandboxRow &r : rows) // why a guest stopped on its own, after the table
            if (r.pausedReason)
                std::printf("%s: %s\n", qPrintable(r.name), qPrintable(*r.pausedReason));
    });
}

std::function<int(Context &, const Args &)> simple(const QString &method)
{
    return [method](Context &ctx, const Args &args) {
        QJsonObject params{{QStringLiteral("name"), args.positional.at(0)}};
        if (args.has(QStringLiteral("--boot-timeout"))) { // start: how long to wait for the guest agent
            bool okNumber = false;
            const int seconds = args.value(QStringLiteral("--boot-timeout")).toInt(&okNumber);
            if (!okNumber || seconds < 1)
                return ctx.fail(QStringLiteral("--boot-timeout needs a number of seconds, got \"%1\"")
                                    .arg(args.value(QStringLiteral("--boot-timeout"))), kUsage);
            params.insert(QStringLiteral("boot_timeout_s"), seconds);
        }
        return ctx.show<proto::SandboxRow>(method, params, printSandbox<proto::SandboxRow>);
    };
}

bool writeAll(FILE *out, const QByteArray &data)
{
    const bool done = data.isEmpty() || std::fwrite(data.constData(), 1, size_t(data.size()), out) == size_t(data.size());
    std::fflush(out);
    return done;
}

int exec(Context &ctx, const Args &args)
{
    if (args.rest.isEmpty())
        return ctx.fail(QStringLiteral("usage: airlockctl exec NAME -- CMD [ARG...]"), kUsage);
    QJsonObject params{{QStringLiteral("name"), args.positional.at(0)},
                       {QStringLiteral("argv"), QJsonArray::fromStringList(args.rest)}};
    if (args.has(QStringLiteral("--stdin"))) {
        QFile in;
        if (!in.open(stdin, QIODevice::ReadOnly))
            return ctx.fail(QStringLiteral("cannot read stdin"));
        params.insert(QStringLiteral("stdin_b64"), QString::fromLatin1(in.readAll().toBase64()));
    }
    if (args.has(QStringLiteral("--timeout")))
        params.insert(QStringLiteral("timeout_s"), args.value(QStringLiteral("--timeout")).toInt());
    QJsonValue reply;
    const std::optional<proto::ExecResult> r = ctx.callFor<proto::ExecResult>(proto::method::SandboxExec, params, &reply);
    if (!r)
        return kFailed;
    if (ctx.json) {
        ctx.printJson(reply);
    } else {
        writeAll(stdout, r->stdoutData);
        writeAll(stderr, r->stderrData);
        if (r->timedOut)
            ctx.fail(QStringLiteral("the command did not finish in time and was killed"));
    }
    return r->exitCode;
}

// "NAME:/path" -> {NAME, /path}; anything else is a local path.
bool splitGuestPath(const QString &text, QString *sandbox, QString *path)
{
    static const QRegularExpression re(QStringLiteral("^([a-z0-9][a-z0-9-]{0,31}):(.+)$"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return false;
    *sandbox = m.captured(1);
    *path = m.captured(2);
    return true;
}

// The file's bytes into the sandbox, kChunk at a time.
int copyIn(Context &ctx, const QString &localPath, const QString &sandbox, QString guestPath)
{
    QFile in(localPath);
    if (!in.open(QIODevice::ReadOnly))
        return ctx.fail(QStringLiteral("cannot read %1: %2").arg(in.fileName(), in.errorString()));
    if (guestPath.endsWith(QLatin1Char('/')))
        guestPath += QFileInfo(in.fileName()).fileName();
    qint64 offset = 0;
    do {
        const proto::FilePushParams chunk{sandbox, guestPath, in.read(kChunk), offset};
        if (!ctx.callFor<proto::WrittenResult>(proto::method::FilePush, chunk.toJson()))
            return kFailed;
        offset += chunk.data.size();
    } while (!in.atEnd());
    if (ctx.json)
        ctx.printJson(QJsonObject{{QStringLiteral("bytes"), offset}});
    return 0;
}

// The guest file out to a local path (or into a local directory), whole or not at all.
int copyOut(Context &ctx, const QString &sandbox, const QString &guestPath, QString local)
{
    if (QFileInfo(local).isDir())
        local = QDir(local).filePath(QFileInfo(guestPath).fileName());
    QSaveFile out(local); // a failed copy leaves no partial file
    if (!out.open(QIODevice::WriteOnly))
        return ctx.fail(QStringLiteral("cannot write %1: %2").arg(local, out.errorString()));
    qint64 offset = 0;
    for (;;) {
        const auto r = ctx.callFor<proto::FilePullResult>(proto::method::FilePull,
                                                          proto::FilePullParams{sandbox, guestPath, offset, kChunk * 4}.toJson());
        if (!r)
            return kFailed;
        if (out.write(r->data) != r->data.size())
            return ctx.fail(QStringLiteral("cannot write %1: %2").arg(local, out.errorString()));
        offset += r->data.size();
        if (r->eof || r->data.isEmpty())
            break;
    }
    if (!out.commit())
        return ctx.fail(QStringLiteral("cannot write %1: %2").arg(local, out.errorString()));
    if (ctx.json)
        ctx.printJson(QJsonObject{{QStringLiteral("bytes"), offset}});
    return 0;
}

int cp(Context &ctx, const Args &args)
{
    QString srcBox, srcPath, dstBox, dstPath;
    const bool srcGuest = splitGuestPath(args.positional.at(0), &srcBox, &srcPath);
    const bool dstGuest = splitGuestPath(args.positional.at(1), &dstBox, &dstPath);
    if (srcGuest == dstGuest)
        return ctx.fail(QStringLiteral("exactly one side must be in a sandbox, written NAME:/path"), kUsage);
    if (!(srcGuest ? srcPath : dstPath).startsWith(QLatin1Char('/')))
        return ctx.fail(QStringLiteral("the path in the sandbox must be absolute (NAME:/path)"), kUsage);
    return dstGuest ? copyIn(ctx, args.positional.at(0), dstBox, dstPath) : copyOut(ctx, srcBox, srcPath, args.positional.at(1));
}

} // namespace

void registerSandboxCommands(Registry &registry)
{
    registry.add({QStringLiteral("create"),
                  QStringLiteral("NAME [--image N] [--template T] [--cpus N] [--memory MIB] [--disk GIB] [--env K=V]... "
                                 "[--secret SECRET[=ENVVAR]]... [--preset P[:KEY=VALUE,...]]... [--policy FILE] [--start] [--ephemeral] [--workspace PATH] [--boot-timeout S] "
                                 "[--checkpoint-every DURATION [--keep N]]"),
                  QStringLiteral("create a sandbox"),
                  createValueOptions(), {QStringLiteral("--start"), QStringLiteral("--ephemeral")}, 1, 1, true, create});
    registry.add({QStringLiteral("ls"), {}, QStringLiteral("list sandboxes"), {}, {}, 0, 0, true, ls});
    const QList<std::pair<const char *, const char *>> simpleOnes = {
        {"start", "boot a sandbox and wait for its guest agent"}, {"stop", "shut a sandbox down (destroyed after a timeout)"},
        {"kill", "power a sandbox off at once"}, {"pause", "freeze a sandbox's CPUs"}, {"resume", "continue a paused sandbox"},
        {"rm", "remove a stopped sandbox and everything it owns"}};
    for (const auto &[name, summary] : simpleOnes) {
        const QString command = QString::fromLatin1(name);
        const QString method = command == QLatin1String("rm") ? QStringLiteral("sandbox.remove") : QStringLiteral("sandbox.") + command;
        const bool isStart = command == QLatin1String("start");
        registry.add({command, isStart ? QStringLiteral("NAME [--boot-timeout S]") : QStringLiteral("NAME"), QString::fromLatin1(summary),
                      isStart ? QStringList{QStringLiteral("--boot-timeout")} : QStringList{}, {}, 1, 1, true, simple(method)});
    }
    registry.add({QStringLiteral("exec"), QStringLiteral("NAME [--stdin] [--timeout S] -- CMD [ARG...]"),
                  QStringLiteral("run a command in a sandbox; exits with its exit code"),
                  {QStringLiteral("--timeout")}, {QStringLiteral("--stdin")}, 1, 1, true, exec});
    registry.add({QStringLiteral("cp"), QStringLiteral("SRC DST"), QStringLiteral("copy a file in or out (NAME:/path)"),
                  {}, {}, 2, 2, true, cp});
}

} // namespace airlock::ctl
