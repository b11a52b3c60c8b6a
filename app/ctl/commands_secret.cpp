// secret set|ls|rm. A value goes in on stdin and is never printed back.
#include "ctl/command.h"
#include "ctl/secretinput.h"
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
    const QStringList hosts = args.values(QStringLiteral("--host"));
    if (hosts.isEmpty())
        return ctx.fail(QStringLiteral("name at least one --host the secret may be sent to (e.g. --host api.example.com)"),
                        kUsage);
    QByteArray value;
    readSecretValue(QStringLiteral("Value of %1: ").arg(name), &value);
    if (value.isEmpty())
        return ctx.fail(QStringLiteral("no value on standard input; pipe it in, e.g. `printf %s \"$KEY\" | airlockctl "
                                       "secret set %1 --host ...`").arg(name));
    if (args.has(QStringLiteral("--header")) && args.has(QStringLiteral("--query")))
        return ctx.fail(QStringLiteral("a secret travels in one place: give --header or --query, not both"), kUsage);
    // --query NAME is the query form of the template (broker/headertemplate.h).
    const QString header = args.has(QStringLiteral("--query")) ? QStringLiteral("?%1={}").arg(args.value(QStringLiteral("--query")))
                                                               : args.value(QStringLiteral("--header"));
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
    std::printf("%-20s %-32s %-30s %s\n", "NAME", "HOSTS", "HEADER", "USED BY");
    for (const proto::SecretInfo &s : all)
        std::printf("%-20s %-32s %-30s %s\n", qPrintable(s.name), qPrintable(s.hosts.join(QLatin1Char(','))), qPrintable(s.header),
                    qPrintable(s.usedBy.join(QLatin1Char(','))));
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

bool ensureSecret(Context &ctx, const proto::TemplateSecret &wanted)
{
    const std::optional<QList<proto::SecretInfo>> all = ctx.callFor<QList<proto::SecretInfo>>(proto::method::SecretList);
    if (!all)
        return false;
    for (const proto::SecretInfo &s : *all)
        if (s.name == wanted.name)
            return true;
    const QString how = QStringLiteral("airlockctl secret set %1 --host %2 --header '%3'")
                            .arg(wanted.name, wanted.hosts.join(QStringLiteral(" --host ")), wanted.header);
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
    registry.add({QStringLiteral("secret set"), QStringLiteral("NAME --host PATTERN [--host PATTERN]... [--header 'Authorization: Bearer {}' | --query PARAM]"),
                  QStringLiteral("store a secret (value from stdin, never printed)"),
                  {QStringLiteral("--host"), QStringLiteral("--header"), QStringLiteral("--query")}, {}, 1, 1, true, set});
    registry.add({QStringLiteral("secret ls"), {}, QStringLiteral("secrets with their hosts, header and users"),
                  {}, {}, 0, 0, true, list});
    registry.add({QStringLiteral("secret rm"), QStringLiteral("NAME"), QStringLiteral("remove an unused secret"),
                  {}, {}, 1, 1, true, remove});
}

} // namespace airlock::ctl
