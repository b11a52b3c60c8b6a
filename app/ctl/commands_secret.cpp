// secret set|ls|rm. A value goes in on stdin and is never printed back.
#include "ctl/command.h"
#include "ctl/secretinput.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>
#include <openssl/crypto.h>

namespace airlock::ctl {

namespace {

QStringList strings(const QJsonValue &v)
{
    QStringList out;
    const QJsonArray a = v.toArray();
    for (const QJsonValue &x : a)
        out.append(x.toString());
    return out;
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
    QJsonObject params{{QStringLiteral("name"), name},
                       {QStringLiteral("hosts"), QJsonArray::fromStringList(hosts)},
                       {QStringLiteral("value"), QString::fromUtf8(value)}};
    OPENSSL_cleanse(value.data(), size_t(value.size()));
    if (args.has(QStringLiteral("--header")))
        params.insert(QStringLiteral("header"), args.value(QStringLiteral("--header")));
    const auto result = ctx.call(QStringLiteral("secret.set"), params);
    if (!result)
        return kFailed;
    if (ctx.json) {
        ctx.printJson(*result);
        return 0;
    }
    const QJsonObject s = result->toObject();
    std::printf("secret %s set: sent only to %s as \"%s\"\n", qPrintable(name),
                qPrintable(strings(s.value(QLatin1String("hosts"))).join(QStringLiteral(", "))),
                qPrintable(s.value(QLatin1String("header")).toString()));
    return 0;
}

int list(Context &ctx, const Args &)
{
    const auto result = ctx.call(QStringLiteral("secret.list"));
    if (!result)
        return kFailed;
    if (ctx.json) {
        ctx.printJson(*result);
        return 0;
    }
    const QJsonArray all = result->toArray();
    if (all.isEmpty()) {
        std::printf("no secrets (add one with `airlockctl secret set NAME --host HOST`)\n");
        return 0;
    }
    std::printf("%-20s %-32s %-30s %s\n", "NAME", "HOSTS", "HEADER", "USED BY");
    for (const QJsonValue &v : all) {
        const QJsonObject s = v.toObject();
        std::printf("%-20s %-32s %-30s %s\n", qPrintable(s.value(QLatin1String("name")).toString()),
                    qPrintable(strings(s.value(QLatin1String("hosts"))).join(QLatin1Char(','))),
                    qPrintable(s.value(QLatin1String("header")).toString()),
                    qPrintable(strings(s.value(QLatin1String("used_by"))).join(QLatin1Char(','))));
    }
    return 0;
}

int remove(Context &ctx, const Args &args)
{
    const auto result = ctx.call(QStringLiteral("secret.remove"), {{QStringLiteral("name"), args.positional.at(0)}});
    if (!result)
        return kFailed;
    if (ctx.json)
        ctx.printJson(*result);
    else
        std::printf("secret %s removed\n", qPrintable(args.positional.at(0)));
    return 0;
}

} // namespace

void registerSecretCommands(Registry &registry)
{
    registry.add({QStringLiteral("secret set"), QStringLiteral("NAME --host PATTERN [--host PATTERN]... [--header 'Authorization: Bearer {}']"),
                  QStringLiteral("store a secret (value from stdin, never printed)"),
                  {QStringLiteral("--host"), QStringLiteral("--header")}, {}, 1, 1, true, set});
    registry.add({QStringLiteral("secret ls"), {}, QStringLiteral("secrets with their hosts, header and users"),
                  {}, {}, 0, 0, true, list});
    registry.add({QStringLiteral("secret rm"), QStringLiteral("NAME"), QStringLiteral("remove an unused secret"),
                  {}, {}, 1, 1, true, remove});
}

} // namespace airlock::ctl
