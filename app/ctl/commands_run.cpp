// run TEMPLATE [--workspace DIR] [--rm] [--name N] [--changes ...]: the short path from a
// folder to an agent at work and its commits back, built from the commands that own each step
// (create, create --workspace, console, export, image build, vault, secret set).
#include "ctl/command.h"
#include "protocol/images.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"
#include "workspace/hostrepository.h"
#include "workspace/workspaceexport.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <cstdio>
#include <unistd.h>

namespace airlock::ctl {

namespace {

// What happens to the sandbox's new commits when the session ends.
struct Changes {
    enum Kind { Ask, None, Patches, Bundle, Branch } kind = Ask;
    QString target; // the directory, the file, or the branch (empty: airlock/<sandbox>)
};

std::optional<Changes> parseChanges(const QString &text)
{
    const QString kind = text.section(QLatin1Char(':'), 0, 0);
    const QString target = text.contains(QLatin1Char(':')) ? text.section(QLatin1Char(':'), 1) : QString();
    if (kind == QLatin1String("none") && target.isEmpty())
        return Changes{Changes::None, {}};
    if (kind == QLatin1String("branch"))
        return Changes{Changes::Branch, target};
    if (target.isEmpty())
        return std::nullopt;
    if (kind == QLatin1String("patches"))
        return Changes{Changes::Patches, target};
    if (kind == QLatin1String("bundle"))
        return Changes{Changes::Bundle, target};
    return std::nullopt;
}

QString branchFor(const Changes &c, const QString &sandbox)
{
    return c.target.isEmpty() ? QStringLiteral("airlock/") + sandbox : c.target;
}

// One line typed by the person, or `fallback` when they just press Enter.
QString ask(const QString &prompt, const QString &fallback = {})
{
    std::fputs(qPrintable(prompt), stderr);
    std::fflush(stderr);
    char line[4096];
    if (!std::fgets(line, sizeof line, stdin))
        return fallback;
    const QString answer = QString::fromLocal8Bit(line).trimmed();
    return answer.isEmpty() ? fallback : answer;
}

Changes askChanges(const QString &sandbox, const QString &repoTop)
{
    std::fputs("\nTake the sandbox's new commits?\n", stderr);
    if (!repoTop.isEmpty())
        std::fprintf(stderr, "  b) into a new branch %s of %s\n", qPrintable(branchFor({}, sandbox)), qPrintable(repoTop));
    std::fputs("  p) as patches into a directory\n  f) as a bundle file\n  n) not now\n", stderr);
    for (;;) {
        const QString choice = ask(repoTop.isEmpty() ? QStringLiteral("Choice [p/f/n]: ") : QStringLiteral("Choice [b/p/f/n]: "));
        if (choice == QLatin1String("b") && !repoTop.isEmpty())
            return {Changes::Branch, {}};
        if (choice == QLatin1String("p"))
            return {Changes::Patches, ask(QStringLiteral("Directory for the patches [%1-patches]: ").arg(sandbox),
                                          sandbox + QStringLiteral("-patches"))};
        if (choice == QLatin1String("f"))
            return {Changes::Bundle, ask(QStringLiteral("Bundle file [%1.bundle]: ").arg(sandbox), sandbox + QStringLiteral(".bundle"))};
        if (choice == QLatin1String("n") || choice.isEmpty())
            return {Changes::None, {}};
    }
}

// Refuses, before anything is made, a destination the export would refuse at the end.
QString destinationProblem(const Changes &c, const QString &sandbox, const QString &repoTop)
{
    if (c.kind == Changes::Bundle && QFileInfo::exists(c.target))
        return QStringLiteral("%1 already exists; name a new file for the bundle").arg(c.target);
    if (c.kind == Changes::Patches && QFileInfo(c.target).isDir() && !QDir(c.target).isEmpty())
        return QStringLiteral("%1 is not empty; name a new or empty directory for the patches").arg(c.target);
    if (c.kind != Changes::Branch)
        return {};
    if (repoTop.isEmpty())
        return QStringLiteral("--changes branch needs the host repository: give it with --workspace DIR");
    const QString branch = branchFor(c, sandbox);
    if (!workspace::HostRepository::git(repoTop, {QStringLiteral("check-ref-format"), QStringLiteral("--branch"), branch}))
        return QStringLiteral("\"%1\" is not a valid branch name").arg(branch);
    if (workspace::HostRepository::git(repoTop, {QStringLiteral("rev-parse"), QStringLiteral("--verify"), QStringLiteral("--quiet"),
                                                QStringLiteral("refs/heads/") + branch}))
        return QStringLiteral("the branch %1 already exists in %2; name a new one with --changes branch:NAME").arg(branch, repoTop);
    return {};
}

// The commits as a bundle in a temporary directory, fetched into a new branch of the host
// repository: never the checked-out branch, never over an existing one (refs are only added).
Result<QJsonObject> exportToBranch(BlockingClient &client, const QString &sandbox, const QString &repoTop, const QString &branch)
{
    QTemporaryDir tmp;
    if (!tmp.isValid())
        return Error{QStringLiteral("cannot make a temporary directory for the bundle"), tmp.errorString()};
    Result<QJsonObject> exported = workspace::exportWorkspace(client, sandbox, tmp.filePath(QStringLiteral("changes.bundle")),
                                                              workspace::ExportFormat::Bundle);
    if (!exported)
        return exported;
    const QString guestBranch = exported->value(QLatin1String("branch")).toString();
    const QString ref = guestBranch.isEmpty() ? QStringLiteral("HEAD") : QStringLiteral("refs/heads/") + guestBranch;
    Result<QByteArray> fetched = workspace::HostRepository::git(
        repoTop, {QStringLiteral("fetch"), QStringLiteral("--quiet"), QStringLiteral("--no-tags"), tmp.filePath(QStringLiteral("changes.bundle")),
                  ref + QStringLiteral(":refs/heads/") + branch});
    if (!fetched)
        return Error{QStringLiteral("cannot fetch the sandbox's commits into the branch %1 of %2").arg(branch, repoTop), fetched.error().message()};
    QJsonObject o = *exported;
    o.insert(QStringLiteral("path"), repoTop);
    o.insert(QStringLiteral("into_branch"), branch);
    return o;
}

// Takes the changes as chosen; true when there is nothing more to keep the sandbox for.
bool takeChanges(Context &ctx, const QString &sandbox, const Changes &c, const QString &repoTop, QJsonObject *report)
{
    if (c.kind == Changes::None || c.kind == Changes::Ask)
        return true;
    Result<QJsonObject> r = c.kind == Changes::Branch
                                ? exportToBranch(ctx.client, sandbox, repoTop, branchFor(c, sandbox))
                                : workspace::exportWorkspace(ctx.client, sandbox, c.target,
                                                             c.kind == Changes::Bundle ? workspace::ExportFormat::Bundle
                                                                                       : workspace::ExportFormat::Patches);
    if (!r && r.error().what.startsWith(QLatin1String("nothing to export"))) {
        std::fprintf(stderr, "no new commits in %s's /workspace: nothing to take\n", qPrintable(sandbox));
        return true;
    }
    if (!r) {
        ctx.fail(r.error().message());
        return false;
    }
    report->insert(QStringLiteral("changes"), *r);
    if (ctx.json)
        return true;
    if (c.kind == Changes::Branch)
        std::printf("%d commit%s from %s now on the new branch %s of %s (review: git -C %s log -p HEAD..%s)\n",
                    r->value(QLatin1String("commits")).toInt(), r->value(QLatin1String("commits")).toInt() == 1 ? "" : "s",
                    qPrintable(sandbox), qPrintable(branchFor(c, sandbox)), qPrintable(repoTop), qPrintable(repoTop),
                    qPrintable(branchFor(c, sandbox)));
    else
        printExported(*r, c.kind == Changes::Bundle ? workspace::ExportFormat::Bundle : workspace::ExportFormat::Patches);
    return true;
}


std::optional<proto::SandboxRow> findSandbox(Context &ctx, const QString &name, bool *failed)
{
    const std::optional<QList<proto::SandboxRow>> rows = ctx.callFor<QList<proto::SandboxRow>>(proto::method::SandboxList);
    *failed = !rows;
    if (rows)
        for (const proto::SandboxRow &r : *rows)
            if (r.name == name)
                return r;
    return std::nullopt;
}

// Asks for what is missing (the image, the vault, the template's secret), then creates and
// starts the sandbox, with the workspace copied in when given.
std::optional<QJsonObject> createForRun(Context &ctx, const Args &args, const proto::TemplateInfo &t, const QString &name)
{
    QJsonObject params{{QStringLiteral("name"), name}, {QStringLiteral("template"), t.name}, {QStringLiteral("start"), true}};
    if (addCreateOptions(ctx, args, params) != 0)
        return std::nullopt;
    if (!ensureImage(ctx, params.value(QLatin1String("image")).toString(t.image)))
        return std::nullopt;
    bool secretNamed = false; // --secret NAME=ENV for the template's variable replaces its secret
    for (const QString &s : args.values(QStringLiteral("--secret")))
        secretNamed = secretNamed || (t.secret && s.section(QLatin1Char('='), 1) == t.secret->env);
    if (t.secret && !secretNamed && (!ensureVaultUnlocked(ctx) || !ensureSecret(ctx, *t.secret, t.login.isEmpty() ? QString() : t.name)))
        return std::nullopt;
    if (args.has(QStringLiteral("--workspace")))
        return createSandboxWithWorkspace(ctx, params, args.value(QStringLiteral("--workspace")));
    const std::optional<QJsonValue> created = ctx.call(proto::method::SandboxCreate, params);
    return created ? std::optional<QJsonObject>(created->toObject()) : std::nullopt;
}

// A sandbox of that name is used as it is: started or resumed if need be, nothing copied in.
bool reuse(Context &ctx, const proto::SandboxRow &row, const Args &args)
{
    std::fprintf(stderr, "using the existing sandbox %s (%s)%s\n", qPrintable(row.name), qPrintable(proto::toString(row.state)),
                 args.has(QStringLiteral("--workspace")) ? "; its /workspace is kept, the folder is not copied again" : "");
    if (row.state == proto::SandboxState::Running)
        return true;
    const QString method = row.state == proto::SandboxState::Paused ? QString(proto::method::SandboxResume) : QString(proto::method::SandboxStart);
    return ctx.callFor<proto::SandboxRow>(method, proto::NameParams{row.name}.toJson()).has_value();
}

// The commits come out through the guest's git: a guest that stopped during the session
// (the agent powered it off) is started again first; its disk kept everything.
bool readyForExport(Context &ctx, const QString &name, const Changes &c)
{
    if (c.kind == Changes::None || c.kind == Changes::Ask)
        return true;
    bool failed = false;
    const std::optional<proto::SandboxRow> row = findSandbox(ctx, name, &failed);
    if (failed)
        return false;
    if (!row) {
        ctx.fail(QStringLiteral("the sandbox %1 is gone; its commits cannot be taken").arg(name));
        return false;
    }
    if (row->state == proto::SandboxState::Running)
        return true;
    std::fprintf(stderr, "starting %s again to take its commits\n", qPrintable(name));
    return ctx.callFor<proto::SandboxRow>(proto::method::SandboxStart, proto::NameParams{name}.toJson()).has_value();
}

QString defaultName(const QString &templateName)
{
    return templateName.left(27) + QLatin1Char('-') + QString::number(QRandomGenerator::global()->bounded(0x10000), 16).rightJustified(4, QLatin1Char('0'));
}

// Asks again while the answer names a destination the export would refuse.
Changes askUntilUsable(const QString &name, const QString &repoTop)
{
    Changes changes = askChanges(name, repoTop);
    for (QString problem = destinationProblem(changes, name, repoTop); !problem.isEmpty();
         problem = destinationProblem(changes, name, repoTop)) {
        std::fprintf(stderr, "%s\n", qPrintable(problem));
        changes = askChanges(name, repoTop);
    }
    return changes;
}

// After the console: the commits taken as chosen, then with `remove` the sandbox removed.
int endSession(Context &ctx, const QString &name, const Changes &changes, const QString &repoTop, bool remove, QJsonObject *report)
{
    if (!readyForExport(ctx, name, changes) || !takeChanges(ctx, name, changes, repoTop, report)) {
        if (remove)
            std::fprintf(stderr, "the sandbox %s is kept so that nothing is lost: airlockctl export %s DEST, then airlockctl rm %s\n",
                         qPrintable(name), qPrintable(name), qPrintable(name));
        return kFailed;
    }
    if (remove) {
        // A stopped one answers Conflict, which is fine; an ephemeral one is gone with the kill.
        const Result<QJsonValue> killed = ctx.client.call(proto::method::SandboxKill, proto::NameParams{name}.toJson());
        const bool discarded = killed && killed->toObject().value(QLatin1String("state")).toString() == QLatin1String("removed");
        if (!discarded && !ctx.callFor<proto::NameParams>(proto::method::SandboxRemove, proto::NameParams{name}.toJson()))
            return kFailed;
        if (!ctx.json)
            std::printf("removed %s\n", qPrintable(name));
    } else if (!ctx.json) {
        std::printf("%s is kept: airlockctl console %s to go back, airlockctl export %s DEST for its commits\n",
                    qPrintable(name), qPrintable(name), qPrintable(name));
    }
    return 0;
}

int run(Context &ctx, const Args &args)
{
    Changes changes;
    if (args.has(QStringLiteral("--changes"))) {
        const std::optional<Changes> parsed = parseChanges(args.value(QStringLiteral("--changes")));
        if (!parsed)
            return ctx.fail(QStringLiteral("--changes is patches:DIR, bundle:FILE, branch[:NAME] or none, got \"%1\"")
                                .arg(args.value(QStringLiteral("--changes"))), kUsage);
        changes = *parsed;
    }
    const bool remove = args.has(QStringLiteral("--rm"));
    const bool interactive = ::isatty(STDIN_FILENO);
    if (changes.kind == Changes::Ask && !interactive && remove)
        return ctx.fail(QStringLiteral("without a terminal, say what --rm should keep: --changes patches:DIR, bundle:FILE, "
                                       "branch[:NAME] or none"), kUsage);
    const QString name = args.value(QStringLiteral("--name"), defaultName(args.positional.at(0)));
    QString repoTop;
    if (args.has(QStringLiteral("--workspace"))) {
        const Result<workspace::RepositorySnapshot> repo = workspace::HostRepository::inspect(args.value(QStringLiteral("--workspace")));
        if (!repo)
            return ctx.fail(repo.error().message());
        repoTop = repo->top;
    }
    if (const QString problem = destinationProblem(changes, name, repoTop); !problem.isEmpty())
        return ctx.fail(problem, kUsage);

    const std::optional<proto::TemplateInfo> t = findTemplate(ctx, args.positional.at(0));
    if (!t)
        return kFailed;
    bool listFailed = false;
    const std::optional<proto::SandboxRow> existing = findSandbox(ctx, name, &listFailed);
    if (listFailed)
        return kFailed;
    QJsonObject report{{QStringLiteral("sandbox"), name}, {QStringLiteral("template"), t->name}, {QStringLiteral("created"), !existing}};
    if (existing) {
        if (!reuse(ctx, *existing, args))
            return kFailed;
    } else {
        const std::optional<QJsonObject> created = createForRun(ctx, args, *t, name);
        if (!created)
            return kFailed;
        if (created->contains(QLatin1String("workspace")))
            report.insert(QStringLiteral("workspace"), created->value(QLatin1String("workspace")));
    }

    if (const int rc = attachConsole(ctx, name); rc != 0)
        return rc;
    if (changes.kind == Changes::Ask && interactive)
        changes = askUntilUsable(name, repoTop);
    if (const int rc = endSession(ctx, name, changes, repoTop, remove, &report); rc != 0)
        return rc;
    report.insert(QStringLiteral("removed"), remove);
    if (ctx.json)
        ctx.printJson(report);
    return 0;
}

} // namespace

std::optional<proto::TemplateInfo> findTemplate(Context &ctx, const QString &name)
{
    const std::optional<QList<proto::TemplateInfo>> all = ctx.callFor<QList<proto::TemplateInfo>>(proto::method::TemplateList);
    if (!all)
        return std::nullopt;
    QStringList names;
    for (const proto::TemplateInfo &t : *all) {
        if (t.name == name)
            return t;
        names << t.name;
    }
    ctx.fail(QStringLiteral("no template \"%1\"; there are: %2 (airlockctl template ls)").arg(name, names.join(QStringLiteral(", "))));
    return std::nullopt;
}

void registerRunCommands(Registry &registry)
{
    QStringList options = createValueOptions() + QStringList{QStringLiteral("--name"), QStringLiteral("--changes")};
    options.removeAll(QStringLiteral("--template")); // TEMPLATE is run's argument
    registry.add({QStringLiteral("run"),
                  QStringLiteral("TEMPLATE [--workspace DIR] [--rm] [--ephemeral] [--name N] [--changes patches:DIR|bundle:FILE|branch[:NAME]|none] "
                                 "[create options]"),
                  QStringLiteral("create (or reuse) a sandbox from a template, attach its console, then take its commits"),
                  options, {QStringLiteral("--rm"), QStringLiteral("--ephemeral")},
                  1, 1, true, run});
}

} // namespace airlock::ctl
