// create, ls, start/stop/kill/pause/resume/rm, exec, cp.
#include "ctl/command.h"

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

void printSandbox(const QJsonObject &o)
{
    std::printf("%s: %s, image %s, ip %s\n", qPrintable(o.value(QLatin1String("name")).toString()),
                qPrintable(o.value(QLatin1String("state")).toString()),
                qPrintable(o.value(QLatin1String("image")).toString()),
                qPrintable(o.value(QLatin1String("ip")).toString()));
}

int create(Context &ctx, const Args &args)
{
    QJsonObject params{{QStringLiteral("name"), args.positional.at(0)}};
    if (args.has(QStringLiteral("--image")))
        params.insert(QStringLiteral("image"), args.value(QStringLiteral("--image")));
    if (args.has(QStringLiteral("--template")))
        params.insert(QStringLiteral("template"), args.value(QStringLiteral("--template")));
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
    if (args.has(QStringLiteral("--start")))
        params.insert(QStringLiteral("start"), true);
    if (args.has(QStringLiteral("--workspace")))
        return createWithWorkspace(ctx, params, args.value(QStringLiteral("--workspace")));
    const auto result = ctx.call(QStringLiteral("sandbox.create"), params);
    if (!result)
        return kFailed;
    if (ctx.json)
        ctx.printJson(*result);
    else
        printSandbox(result->toObject());
    return 0;
}

int ls(Context &ctx, const Args &)
{
    const auto result = ctx.call(QStringLiteral("sandbox.list"));
    if (!result)
        return kFailed;
    if (ctx.json) {
        ctx.printJson(*result);
        return 0;
    }
    std::printf("%-24s %-9s %-12s %-16s %s\n", "NAME", "STATE", "IMAGE", "IP", "PENDING");
    for (const QJsonValue &v : result->toArray()) {
        const QJsonObject o = v.toObject();
        std::printf("%-24s %-9s %-12s %-16s %d\n", qPrintable(o.value(QLatin1String("name")).toString()),
                    qPrintable(o.value(QLatin1String("state")).toString()),
                    qPrintable(o.value(QLatin1String("image")).toString()),
                    qPrintable(o.value(QLatin1String("ip")).toString()), o.value(QLatin1String("pending")).toInt());
    }
    return 0;
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
        const auto result = ctx.call(method, params);
        if (!result)
            return kFailed;
        if (ctx.json)
            ctx.printJson(*result);
        else if (result->toObject().contains(QLatin1String("ip")))
            printSandbox(result->toObject());
        return 0;
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
    const auto result = ctx.call(QStringLiteral("sandbox.exec"), params);
    if (!result)
        return kFailed;
    const QJsonObject o = result->toObject();
    if (ctx.json) {
        ctx.printJson(o);
    } else {
        writeAll(stdout, QByteArray::fromBase64(o.value(QLatin1String("stdout_b64")).toString().toLatin1()));
        writeAll(stderr, QByteArray::fromBase64(o.value(QLatin1String("stderr_b64")).toString().toLatin1()));
        if (o.value(QLatin1String("timed_out")).toBool())
            ctx.fail(QStringLiteral("the command did not finish in time and was killed"));
    }
    return o.value(QLatin1String("exit_code")).toInt();
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

int cp(Context &ctx, const Args &args)
{
    QString srcBox, srcPath, dstBox, dstPath;
    const bool srcGuest = splitGuestPath(args.positional.at(0), &srcBox, &srcPath);
    const bool dstGuest = splitGuestPath(args.positional.at(1), &dstBox, &dstPath);
    if (srcGuest == dstGuest)
        return ctx.fail(QStringLiteral("exactly one side must be in a sandbox, written NAME:/path"), kUsage);
    if (!(srcGuest ? srcPath : dstPath).startsWith(QLatin1Char('/')))
        return ctx.fail(QStringLiteral("the path in the sandbox must be absolute (NAME:/path)"), kUsage);

    if (dstGuest) {
        QFile in(args.positional.at(0));
        if (!in.open(QIODevice::ReadOnly))
            return ctx.fail(QStringLiteral("cannot read %1: %2").arg(in.fileName(), in.errorString()));
        if (dstPath.endsWith(QLatin1Char('/')))
            dstPath += QFileInfo(in.fileName()).fileName();
        qint64 offset = 0;
        do {
            const QByteArray chunk = in.read(kChunk);
            const auto r = ctx.call(QStringLiteral("file.push"),
                                    {{QStringLiteral("name"), dstBox}, {QStringLiteral("path"), dstPath},
                                     {QStringLiteral("offset"), offset}, {QStringLiteral("data_b64"), QString::fromLatin1(chunk.toBase64())},
                                     {QStringLiteral("final"), in.atEnd()}});
            if (!r)
                return kFailed;
            offset += chunk.size();
        } while (!in.atEnd());
        if (ctx.json)
            ctx.printJson(QJsonObject{{QStringLiteral("bytes"), offset}});
        return 0;
    }

    QString local = args.positional.at(1);
    if (QFileInfo(local).isDir())
        local = QDir(local).filePath(QFileInfo(srcPath).fileName());
    QSaveFile out(local); // a failed copy leaves no partial file
    if (!out.open(QIODevice::WriteOnly))
        return ctx.fail(QStringLiteral("cannot write %1: %2").arg(local, out.errorString()));
    qint64 offset = 0;
    for (;;) {
        const auto r = ctx.call(QStringLiteral("file.pull"), {{QStringLiteral("name"), srcBox}, {QStringLiteral("path"), srcPath},
                                                               {QStringLiteral("offset"), offset}, {QStringLiteral("length"), kChunk * 4}});
        if (!r)
            return kFailed;
        const QByteArray data = QByteArray::fromBase64(r->toObject().value(QLatin1String("data_b64")).toString().toLatin1());
        if (out.write(data) != data.size())
            return ctx.fail(QStringLiteral("cannot write %1: %2").arg(local, out.errorString()));
        offset += data.size();
        if (r->toObject().value(QLatin1String("eof")).toBool() || data.isEmpty())
            break;
    }
    if (!out.commit())
        return ctx.fail(QStringLiteral("cannot write %1: %2").arg(local, out.errorString()));
    if (ctx.json)
        ctx.printJson(QJsonObject{{QStringLiteral("bytes"), offset}});
    return 0;
}

} // namespace

void registerSandboxCommands(Registry &registry)
{
    registry.add({QStringLiteral("create"),
                  QStringLiteral("NAME [--image N] [--template T] [--cpus N] [--memory MIB] [--disk GIB] [--env K=V]... "
                                 "[--secret SECRET[=ENVVAR]]... [--preset P]... [--start] [--workspace PATH] [--boot-timeout S]"),
                  QStringLiteral("create a sandbox"),
                  {QStringLiteral("--image"), QStringLiteral("--template"), QStringLiteral("--cpus"), QStringLiteral("--memory"),
                   QStringLiteral("--disk"), QStringLiteral("--env"), QStringLiteral("--secret"), QStringLiteral("--preset"),
                   QStringLiteral("--workspace"), QStringLiteral("--boot-timeout")},
                  {QStringLiteral("--start")}, 1, 1, true, create});
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
