// secret login TEMPLATE: a sign-in with nothing else to do. A throw-away sandbox of the
// template runs its CLI's sign-in on the console; the broker keeps the tokens in the vault as
// it does in any sandbox, so every later sandbox of the template starts signed in.
#include "ctl/command.h"
#include "protocol/images.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"
#include "protocol/vault.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>

namespace airlock::ctl {

namespace {

// The template's tokens in the vault: name -> expiry, to tell a new sign-in from an old one.
std::optional<QMap<QString, QString>> loginTokens(Context &ctx, const QString &templateName, QList<proto::SecretInfo> *rows = nullptr)
{
    const std::optional<QList<proto::SecretInfo>> all = ctx.callFor<QList<proto::SecretInfo>>(proto::method::SecretList);
    if (!all)
        return std::nullopt;
    QMap<QString, QString> out;
    for (const proto::SecretInfo &s : *all) {
        if (s.login != templateName)
            continue;
        out.insert(s.name, s.expires);
        if (rows)
            rows->append(s);
    }
    return out;
}

int signIn(Context &ctx, const Args &args)
{
    const std::optional<proto::TemplateInfo> t = findTemplate(ctx, args.positional.at(0));
    if (!t)
        return kFailed;
    if (t->login.isEmpty())
        return ctx.fail(QStringLiteral("template %1 declares no sign-in; lend it an API key instead (airlockctl secret set ...)").arg(t->name));
    const QString name = args.value(QStringLiteral("--name"), proto::signInSandboxName(t->name));
    QJsonObject params{{QStringLiteral("name"), name},          {QStringLiteral("template"), t->name},
                       {QStringLiteral("start"), true},         {QStringLiteral("ephemeral"), true},
                       {QStringLiteral("sign_in"), true}};
    if (const int rc = addCreateOptions(ctx, args, params); rc != 0)
        return rc;
    if (!ensureImage(ctx, params.value(QLatin1String("image")).toString(t->image)) || !ensureVaultUnlocked(ctx))
        return kFailed;
    const std::optional<QMap<QString, QString>> before = loginTokens(ctx, t->name);
    if (!before)
        return kFailed;
    const QString command = t->login.value(QLatin1String("command")).toString();
    std::fprintf(stderr, "signing in to %s in the throw-away sandbox %s (removed afterwards)\n", qPrintable(t->name), qPrintable(name));
    if (!ctx.call(proto::method::SandboxCreate, params))
        return kFailed;
    std::fprintf(stderr, "%s runs on its console: open the address it shows in your browser here and do what it asks "
                         "(paste the code the page gives back, or enter the code it shows); the vault keeps the real tokens, "
                         "the guest gets placeholders. Detach with Ctrl-] when it is done.\n",
                 qPrintable(command.isEmpty() ? t->console + QStringLiteral(" (sign in from inside it)") : command));
    const int attached = attachConsole(ctx, name);
    // An ephemeral sandbox is gone with the kill; one that stopped by itself is gone already.
    const Result<QJsonValue> killed = ctx.client.call(proto::method::SandboxKill, proto::NameParams{name}.toJson());
    if (!killed && killed.error().kind != ErrorKind::NotFound && killed.error().kind != ErrorKind::Conflict)
        std::fprintf(stderr, "airlockctl: could not remove %s: %s (airlockctl kill %s removes it)\n", qPrintable(name),
                     qPrintable(killed.error().message()), qPrintable(name));
    QList<proto::SecretInfo> rows;
    const std::optional<QMap<QString, QString>> after = loginTokens(ctx, t->name, &rows);
    if (!after)
        return kFailed;
    if (after->isEmpty() || *after == *before)
        return ctx.fail(after->isEmpty() ? QStringLiteral("no sign-in to %1 reached the vault; run airlockctl secret login %1 again").arg(t->name)
                                         : QStringLiteral("no new sign-in to %1 reached the vault; it keeps the earlier one").arg(t->name));
    if (ctx.json) {
        QJsonArray tokens;
        for (const proto::SecretInfo &s : rows)
            tokens.append(s.toJson());
        ctx.printJson(QJsonObject{{QStringLiteral("template"), t->name}, {QStringLiteral("sandbox"), name}, {QStringLiteral("tokens"), tokens}});
        return attached;
    }
    std::printf("signed in to %s: every new sandbox of it starts signed in\n", qPrintable(t->name));
    for (const proto::SecretInfo &s : rows)
        std::printf("  %-20s %-30s %s\n", qPrintable(s.name), qPrintable(s.hosts.join(QLatin1Char(','))),
                    qPrintable(s.expires.isEmpty() ? QStringLiteral("-") : QStringLiteral("expires ") + s.expires));
    return attached;
}

} // namespace

void registerSignInCommands(Registry &registry)
{
    QStringList options = createValueOptions() + QStringList{QStringLiteral("--name")};
    options.removeAll(QStringLiteral("--template"));
    options.removeAll(QStringLiteral("--workspace"));
    registry.add({QStringLiteral("secret login"), QStringLiteral("TEMPLATE [--name N] [create options]"),
                  QStringLiteral("sign the template's agent in, in a throw-away sandbox; later sandboxes of it start signed in"),
                  options, {}, 1, 1, true, signIn});
}

} // namespace airlock::ctl
