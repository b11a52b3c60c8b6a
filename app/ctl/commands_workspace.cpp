// Workspaces in and out: create --workspace PATH and export NAME DEST.
// The work itself lives in app/workspace/, shared with the GUI.
#include "ctl/command.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"
#include "workspace/workspaceexport.h"
#include "workspace/workspaceimport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace airlock::ctl {

namespace {

int failWith(const Context &ctx, const Error &e) { return ctx.fail(e.message()); }

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void onInterrupt(int) { g_interrupted = 1; }

// Ctrl-C or SIGTERM during create --workspace stops at the next step and removes the half-made
// sandbox; a second one ends airlockctl at once (SA_RESETHAND).
void catchInterrupts()
{
    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

int exportChanges(Context &ctx, const Args &args)
{
    const QString formatText = args.value(QStringLiteral("--format"), QStringLiteral("bundle"));
    const auto format = workspace::exportFormatFromString(formatText);
    if (!format)
        return ctx.fail(QStringLiteral("--format is bundle or patches, got \"%1\"").arg(formatText), kUsage);
    const QString sandbox = args.positional.at(0);
    auto r = workspace::exportWorkspace(ctx.client, sandbox, args.positional.at(1), *format, args.value(QStringLiteral("--base")));
    if (!r)
        return failWith(ctx, r.error());
    if (ctx.json)
        ctx.printJson(r.value());
    else
        printExported(r.value(), *format);
    return 0;
}

} // namespace

void printExported(const QJsonObject &o, workspace::ExportFormat format)
{
    const QString sandbox = o.value(QLatin1String("sandbox")).toString();
    const int commits = o.value(QLatin1String("commits")).toInt();
    const QString range = o.value(QLatin1String("base")).toString().left(12) + QStringLiteral("..") +
                          o.value(QLatin1String("head")).toString().left(12);
    const QString path = o.value(QLatin1String("path")).toString();
    std::printf("exported %d commit%s (%s) from %s to %s\n", commits, commits == 1 ? "" : "s", qPrintable(range),
                qPrintable(sandbox), qPrintable(path));
    if (format == workspace::ExportFormat::Bundle) {
        const QString branch = o.value(QLatin1String("branch")).toString();
        std::printf("review:  git -C YOUR-REPO fetch %s %s && git -C YOUR-REPO log -p HEAD..FETCH_HEAD\n", qPrintable(path),
                    qPrintable(branch.isEmpty() ? QStringLiteral("HEAD") : branch));
        std::printf("apply:   git -C YOUR-REPO merge FETCH_HEAD   (nothing was written into your repository)\n");
    } else {
        std::printf("review the files, then apply:  git -C YOUR-REPO am %s/*.patch\n", qPrintable(path));
    }
    if (const int n = o.value(QLatin1String("uncommitted")).toInt(); n > 0)
        std::fprintf(stderr, "note: %d uncommitted change%s in the sandbox's /workspace %s not exported\n", n, n == 1 ? "" : "s",
                     n == 1 ? "was" : "were");
}

std::optional<QJsonObject> createSandboxWithWorkspace(Context &ctx, const QJsonObject &createParams, const QString &repoPath)
{
    catchInterrupts();
    // A person at a terminal sees the copy advance (a big repository takes a while under TCG).
    const bool showProgress = !ctx.json && ::isatty(STDERR_FILENO);
    const workspace::Progress progress = [showProgress](const QString &message, int percent) {
        if (showProgress)
            std::fprintf(stderr, "\r\033[K%3d%% %s", percent, qPrintable(message));
    };
    auto r = workspace::createWithWorkspace(ctx.client, createParams, repoPath, progress, [] { return g_interrupted != 0; });
    if (showProgress)
        std::fputs("\r\033[K", stderr);
    if (!r) {
        failWith(ctx, r.error());
        return std::nullopt;
    }
    const QJsonObject o = r.value();
    const QJsonObject ws = o.value(QLatin1String("workspace")).toObject();
    if (const int n = ws.value(QLatin1String("uncommitted")).toInt(); n > 0)
        std::fprintf(stderr, "note: %d uncommitted change%s in %s stayed behind: only commits are copied\n", n, n == 1 ? "" : "s",
                     qPrintable(ws.value(QLatin1String("source")).toString()));
    return o;
}

int createWithWorkspace(Context &ctx, const QJsonObject &createParams, const QString &repoPath)
{
    const std::optional<QJsonObject> created = createSandboxWithWorkspace(ctx, createParams, repoPath);
    if (!created)
        return kFailed;
    const QJsonObject &o = *created;
    const QJsonObject ws = o.value(QLatin1String("workspace")).toObject();
    if (ctx.json) {
        ctx.printJson(o);
        return 0;
    }
    // The sandbox.create reply, with the workspace beside it (workspace/workspaceimport.h).
    const Result<proto::SandboxCreated> sandbox = proto::SandboxCreated::fromJson(o);
    if (!sandbox)
        return ctx.fail(Context::unreadable(proto::method::SandboxCreate, sandbox.error()));
    std::printf("%s: %s, image %s, ip %s\n", qPrintable(sandbox->name), qPrintable(proto::toString(sandbox->state)),
                qPrintable(sandbox->image), qPrintable(sandbox->ip));
    std::printf("workspace: %s at %s (from %s)\n", qPrintable(ws.value(QLatin1String("path")).toString()),
                qPrintable(ws.value(QLatin1String("base")).toString().left(12)), qPrintable(ws.value(QLatin1String("source")).toString()));
    return 0;
}

void registerWorkspaceCommands(Registry &registry)
{
    registry.add({QStringLiteral("export"), QStringLiteral("NAME DEST [--format bundle|patches] [--base COMMIT]"),
                  QStringLiteral("bring the sandbox's new commits in /workspace back as a bundle file or a patch directory"),
                  {QStringLiteral("--format"), QStringLiteral("--base")}, {}, 2, 2, true, exportChanges});
}

} // namespace airlock::ctl
