// secret set|ls|rm. A value goes in on stdin and is never printed back.
#include "ctl/command.h"
#include "ctl/secretinput.h"
#include "ctl/secretkinds.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"
#include "protocol/images.h"
#include "protocol/vault.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>
#include <openssl/crypto.h>
#include <unistd.h>

namespace airlock::ctl {

namespace {

// secret.set's params; the value is wiped from `value` once copied (an empty header: the daemon's default).
QJsonObject secretSetParams(const QString &name, const QStringList &hosts, const QString &header, QByteArray &value)
{
    QJsonObject params{{QStringLiteral("name"), name},
                       {QStringLiteral("hosts"), QJsonArray::fromStringList(hosts)},
                       {QStringLiteral("value"), QString::fromUtf8(value)}};
    OPENSSL_cleanse(value.data(), size_t(value.size()));
    if (!header.isEmpty())
        params.insert(QStringLiteral("header"), header);
    return params;
}

int set(Context &ctx, const Args &args)
{
    const QString name = args.positional.at(0);
    QStringList hosts = args.values(QStringLiteral("--host"));
    QString kindHeader;
    if (args.has(QStringLiteral("--kind"))) {
        QString error;
        const std::optional<SecretKind> kind = findSecretKind(args.value(QStringLiteral("--kind")), &error);
        if (!kind)
            return ctx.fail(error, kUsage);
        if (hosts.isEmpty()) // --host narrows or widens a kind's hosts (a self-hosted forge)
            hosts = kind->shape.hosts;
        kindHeader = kind->shape.header;
    }
    if (hosts.isEmpty())
        return ctx.fail(QStringLiteral("name at least one --host the secret may be sent to (e.g. --host api.example.com), "
                                       "or give --kind (airlockctl secret kinds)"),
                        kUsage);
    QByteArray value;
    readSecretValue(QStringLiteral("Value of %1: ").arg(name), &value);
    if (value.isEmpty())
        return ctx.fail(QStringLiteral("no value on standard input; pipe it in, e.g. `printf %s \"$KEY\" | airlockctl "
                                       "secret set %1 --host ...`").arg(name));
    if (args.has(QStringLiteral("--header")) && args.has(QStringLiteral("--query")))
        return ctx.fail(QStringLiteral("a secret travels in one place: give --header or --query, not both"), kUsage);
    // --query NAME is the query form of the template (broker/headertemplate.h).
    const QString header = args.has(QStringLiteral("--query"))    ? QStringLiteral("?%1={}").arg(args.value(QStringLiteral("--query")))
                           : args.has(QStringLiteral("--header")) ? args.value(QStringLiteral("--header"))
                                                                  : kindHeader;
    const QJsonObject params = secretSetParams(name, hosts, header, value);
    return ctx.show<proto::SecretInfo>(proto::method::SecretSet, params, [&name](const proto::SecretInfo &s) {
        std::printf("secret %s set: sent only to %s as \"%s\"\n", qPrintable(name), qPrintable(s.hosts.join(QStringLiteral(", "))),
                    qPrintable(s.header));
    });
}

void printSecrets(const QList<proto::SecretInfo> &all)
{
    if (all.isEmpty()) {
        std::printf("no secrets (add one with `airlockctl secret set NAME --host HOST`)\n");
        return;
    }
    std::printf("%-20s %-32s %-30s %-22s %s\n", "NAME", "HOSTS", "HEADER", "EXPIRES", "USED BY");
    for (const proto::SecretInfo &s : all) {
        // A sign-in's token sent only back to its token endpoint has no header: say where it goes.
        const QString header = s.header.isEmpty() && !s.login.isEmpty() ? QStringLiteral("(sign-in %1, body)").arg(s.login) : s.header;
        std::printf("%-20s %-32s %-30s %-22s %s\n", qPrintable(s.name), qPrintable(s.hosts.join(QLatin1Char(','))), qPrintable(header),
                    qPrintable(s.expires.isEmpty() ? QStringLiteral("-") : s.expires), qPrintable(s.usedBy.join(QLatin1Char(','))));
    }
}

int kinds(Context &ctx, const Args &)
{
    QString error;
    const QList<SecretKind> all = secretKinds(&error);
    if (all.isEmpty())
        return ctx.fail(error);
    if (ctx.json) {
        QJsonArray rows;
        for (const SecretKind &k : all) {
            QJsonObject row = k.shape.toJson();
            row.insert(QStringLiteral("description"), k.description);
            rows.append(row);
        }
        ctx.printJson(rows);
        return 0;
    }
    std::printf("%-10s %-24s %-26s %-14s %s\n", "KIND", "HOSTS", "HEADER", "LEND AS", "WHAT");
    for (const SecretKind &k : all)
        std::printf("%-10s %-24s %-26s %-14s %s\n", qPrintable(k.shape.name), qPrintable(k.shape.hosts.join(QLatin1Char(','))),
                    qPrintable(k.shape.header), qPrintable(k.shape.env), qPrintable(k.description));
    if (!error.isEmpty())
        std::fprintf(stderr, "airlockctl: %s\n", qPrintable(error));
    return 0;
}

int list(Context &ctx, const Args &)
{
    return ctx.show<QList<proto::SecretInfo>>(proto::method::SecretList, {}, printSecrets);
}

int remove(Context &ctx, const Args &args)
{
    const QString name = args.positional.at(0);
    return ctx.show<proto::NameParams>(proto::method::SecretRemove, proto::NameParams{name}.toJson(),
                                       [](const proto::NameParams &removed) { std::printf("secret %s removed\n", qPrintable(removed.name)); });
}

} // namespace

bool ensureSecret(Context &ctx, const proto::TemplateSecret &wanted, const QString &signInTemplate)
{
    const std::optional<QList<proto::SecretInfo>> all = ctx.callFor<QList<proto::SecretInfo>>(proto::method::SecretList);
    if (!all)
        return false;
    for (const proto::SecretInfo &s : *all)
        if (s.name == wanted.name || (!signInTemplate.isEmpty() && s.login == signInTemplate))
            return true; // the key, or a sign-in the sandbox will borrow
    const QString how = QStringLiteral("airlockctl secret set %1 --host %2 --header '%3'")
                            .arg(wanted.name, wanted.hosts.join(QStringLiteral(" --host ")), wanted.header);
    if (!signInTemplate.isEmpty()) {
        if (!::isatty(0))
            return true; // the agent signs in on its console
        std::fprintf(stderr, "the agent needs the secret %s (sent only to %s; the guest sees a placeholder), or a sign-in\n",
                     qPrintable(wanted.name), qPrintable(wanted.hosts.join(QStringLiteral(", "))));
        QByteArray value;
        readSecretValue(QStringLiteral("Value of %1 (Enter: sign in from the agent's console instead): ").arg(wanted.name), &value);
        if (value.isEmpty()) {
            std::fprintf(stderr, "no key: sign in on the console; the vault keeps the tokens and later sandboxes of %s start "
                                 "signed in\n", qPrintable(signInTemplate));
            return true;
        }
        return ctx.callFor<proto::SecretInfo>(proto::method::SecretSet, secretSetParams(wanted.name, wanted.hosts, wanted.header, value))
            .has_value();
    }
    if (!::isatty(0)) {
        ctx.fail(QStringLiteral("the template needs the secret %1, which the vault does not hold; store it first: %2").arg(wanted.name, how));
        return false;
    }
    std::fprintf(stderr, "the agent needs the secret %s (sent only to %s; the guest sees a placeholder)\n", qPrintable(wanted.name),
                 qPrintable(wanted.hosts.join(QStringLiteral(", "))));
    QByteArray value;
    readSecretValue(QStringLiteral("Value of %1: ").arg(wanted.name), &value);
    if (value.isEmpty()) {
        ctx.fail(QStringLiteral("no value given for %1; store it with: %2").arg(wanted.name, how));
        return false;
    }
    return ctx.callFor<proto::SecretInfo>(proto::method::SecretSet, secretSetParams(wanted.name, wanted.hosts, wanted.header, value))
        .has_value();
}

void registerSecretCommands(Registry &registry)
{
    registry.add({QStringLiteral("secret set"),
                  QStringLiteral("NAME (--kind KIND | --host PATTERN [--host PATTERN]...) [--header 'Authorization: Bearer {}' | --query PARAM]"),
                  QStringLiteral("store a secret (value from stdin, never printed)"),
                  {QStringLiteral("--host"), QStringLiteral("--header"), QStringLiteral("--query"), QStringLiteral("--kind")}, {}, 1, 1, true,
                  set});
    registry.add({QStringLiteral("secret kinds"), {}, QStringLiteral("the shapes --kind knows (forge and registry tokens)"), {}, {}, 0, 0,
                  false, kinds});
    registry.add({QStringLiteral("secret ls"), {}, QStringLiteral("secrets with their hosts, header and users"),
                  {}, {}, 0, 0, true, list});
    registry.add({QStringLiteral("secret rm"), QStringLiteral("NAME"), QStringLiteral("remove an unused secret"),
                  {}, {}, 1, 1, true, remove});
}

} // namespace airlock::ctl
