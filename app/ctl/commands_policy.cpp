// policy export | learn | import: egress rules as files kept with a project.
#include "ctl/command.h"
#include "workspace/policyfiles.h"
#include "protocol/names.h"
#include "protocol/policies.h"

#include <cstdio>
#include <unistd.h>

namespace airlock::ctl {

namespace {

// --format, or else what --output's name says (*.yaml, *.yml), or else JSON.
Result<PolicyFileFormat> formatOf(const Args &args)
{
    if (args.has(QStringLiteral("--format")))
        return proto::policyFileFormatFromString(args.value(QStringLiteral("--format")), QStringLiteral("--format"));
    return policyFileFormatOf(args.value(QStringLiteral("--output")));
}

// Writes the file (or stdout without --output); what was left out goes to stderr.
int writePolicy(Context &ctx, const Args &args, const QString &method, const QJsonObject &params)
{
    QJsonValue reply;
    const std::optional<proto::PolicyText> text = ctx.callFor<proto::PolicyText>(method, params, &reply);
    if (!text)
        return kFailed;
    const QString output = args.value(QStringLiteral("--output"));
    if (!output.isEmpty()) {
        if (Status s = writeTextFile(output, text->policy.toUtf8()); !s)
            return ctx.fail(s.error().message());
    }
    if (ctx.json)
        ctx.printJson(reply);
    else if (output.isEmpty())
        std::fputs(text->policy.toUtf8().constData(), stdout);
    else
        std::printf("wrote %d rules to %s\n", text->rules, qPrintable(output));
    if (text->leftOut && !ctx.json)
        std::fprintf(stderr, "airlockctl: left out %s\n", qPrintable(text->leftOutWhy));
    return 0;
}

int policyExport(Context &ctx, const Args &args)
{
    const bool global = args.has(QStringLiteral("--global"));
    if (global == !args.positional.isEmpty())
        return ctx.fail(QStringLiteral("give a sandbox NAME or --global; usage: airlockctl policy export (NAME | --global) [--output FILE] "
                                       "[--format json|yaml]"), kUsage);
    const Result<PolicyFileFormat> format = formatOf(args);
    if (!format)
        return ctx.fail(format.error().message(), kUsage);
    proto::PolicyScope scope;
    scope.format = *format;
    if (global)
        scope.global = true;
    else
        scope.sandbox = args.positional.first();
    return writePolicy(ctx, args, proto::method::PolicyExport, scope.toJson());
}

int policyLearn(Context &ctx, const Args &args)
{
    const Result<PolicyFileFormat> format = formatOf(args);
    if (!format)
        return ctx.fail(format.error().message(), kUsage);
    return writePolicy(ctx, args, proto::method::PolicyLearn, proto::PolicyLearnParams{args.positional.first(), *format}.toJson());
}

void printChanges(const char *mark, const QList<proto::PolicyChange> &changes, const char *note)
{
    for (const proto::PolicyChange &c : changes) {
        std::printf("%s %-40s", mark, qPrintable(c.text));
        if (c.rule)
            std::printf(" rule %lld", static_cast<long long>(c.rule));
        if (*note)
            std::printf(" %s", note);
        if (!c.from.isEmpty())
            std::printf("  (%s)", qPrintable(c.from));
        std::printf("\n");
    }
}

void printPlan(const proto::PolicyImportResult &r)
{
    printChanges("+", r.add, "");
    printChanges("-", r.remove, "");
    printChanges("!", r.conflicts, "says the opposite of the file");
    printChanges("=", r.keep, "already there");
    std::printf("%lld to add, %lld to remove, %lld already there, %lld in conflict\n", static_cast<long long>(r.add.size()),
                static_cast<long long>(r.remove.size()), static_cast<long long>(r.keep.size()), static_cast<long long>(r.conflicts.size()));
}

// Asks on a terminal; elsewhere only --yes applies.
bool confirmed(const Args &args)
{
    if (args.has(QStringLiteral("--yes")))
        return true;
    if (!isatty(STDIN_FILENO))
        return false;
    std::printf("apply these changes? [y/N] ");
    std::fflush(stdout);
    char line[16] = {};
    return std::fgets(line, sizeof line, stdin) && (line[0] == 'y' || line[0] == 'Y');
}

int policyImport(Context &ctx, const Args &args)
{
    const QString usage = QStringLiteral("usage: airlockctl policy import FILE (--sandbox NAME | --global) [--dry-run] [--replace] [--yes]");
    const bool global = args.has(QStringLiteral("--global"));
    if (global == args.has(QStringLiteral("--sandbox")))
        return ctx.fail(QStringLiteral("give exactly one of --sandbox NAME or --global; ") + usage, kUsage);
    Result<PolicyFileText> file = readPolicyFile(args.positional.first());
    if (!file)
        return ctx.fail(file.error().message());
    proto::PolicyImportParams params;
    if (global)
        params.global = true;
    else
        params.sandbox = args.value(QStringLiteral("--sandbox"));
    params.policy = file->text;
    params.source = file->name;
    params.replace = args.has(QStringLiteral("--replace"));
    params.dryRun = true;
    QJsonValue reply;
    const std::optional<proto::PolicyImportResult> plan = ctx.callFor<proto::PolicyImportResult>(proto::method::PolicyImport, params.toJson(), &reply);
    if (!plan)
        return kFailed;
    if (args.has(QStringLiteral("--dry-run"))) {
        if (ctx.json)
            ctx.printJson(reply);
        else
            printPlan(*plan);
        return 0;
    }
    if (!ctx.json)
        printPlan(*plan);
    if (!plan->conflicts.isEmpty())
        return ctx.fail(QStringLiteral("the file says the opposite of %1 rule(s) above (!): import with --replace to make the file's rules "
                                       "the only lasting ones, or remove those rules (airlockctl rule rm ID)").arg(plan->conflicts.size()));
    if (plan->add.isEmpty() && plan->remove.isEmpty()) {
        if (ctx.json)
            ctx.printJson(reply);
        else
            std::printf("nothing to change\n");
        return 0;
    }
    if (!confirmed(args))
        return ctx.fail(QStringLiteral("not applied: give --yes to apply without asking (stdin is not a terminal)"));
    params.dryRun = false;
    params.expectPlan = plan->plan; // what was printed above, or nothing
    return ctx.show<proto::PolicyImportResult>(proto::method::PolicyImport, params.toJson(), [](const proto::PolicyImportResult &r) {
        std::printf("applied: %lld added, %lld removed\n", static_cast<long long>(r.add.size()), static_cast<long long>(r.remove.size()));
    });
}

} // namespace

void registerPolicyCommands(Registry &registry)
{
    registry.add({QStringLiteral("policy export"), QStringLiteral("(NAME | --global) [--output FILE] [--format json|yaml]"),
                  QStringLiteral("write the lasting egress rules of a sandbox (or the global ones) as a policy file"),
                  {QStringLiteral("--output"), QStringLiteral("--format")}, {QStringLiteral("--global")}, 0, 1, true, policyExport});
    registry.add({QStringLiteral("policy learn"), QStringLiteral("NAME [--output FILE] [--format json|yaml]"),
                  QStringLiteral("write what a sandbox's attempts were allowed and denied as a policy file to review"),
                  {QStringLiteral("--output"), QStringLiteral("--format")}, {}, 1, 1, true, policyLearn});
    registry.add({QStringLiteral("policy import"), QStringLiteral("FILE (--sandbox NAME | --global) [--dry-run] [--replace] [--yes]"),
                  QStringLiteral("show what a policy file changes, then apply it (--replace: the file's rules become the only lasting ones)"),
                  {QStringLiteral("--sandbox")}, {QStringLiteral("--global"), QStringLiteral("--dry-run"), QStringLiteral("--replace"), QStringLiteral("--yes")},
                  1, 1, true, policyImport});
}

} // namespace airlock::ctl
