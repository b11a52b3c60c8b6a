// template ls: the agent templates `create --template` applies (resources/templates).
#include "ctl/command.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>

namespace airlock::ctl {

namespace {

QString joined(const QJsonValue &array)
{
    QStringList out;
    for (const QJsonValue &v : array.toArray())
        out << v.toString();
    return out.isEmpty() ? QStringLiteral("-") : out.join(QLatin1Char(','));
}

int templateLs(Context &ctx, const Args &)
{
    const auto result = ctx.call(QStringLiteral("template.list"));
    if (!result)
        return kFailed;
    if (ctx.json) {
        ctx.printJson(*result);
        return 0;
    }
    std::printf("%-12s %-8s %-10s %-22s %-10s %s\n", "NAME", "IMAGE", "PRESETS", "SECRET", "CONSOLE", "OPT-IN PRESETS");
    for (const QJsonValue &v : result->toArray()) {
        const QJsonObject o = v.toObject();
        const QJsonObject secret = o.value(QLatin1String("secret")).toObject();
        const QString secretText = secret.isEmpty() ? QStringLiteral("-")
                                                    : secret.value(QLatin1String("name")).toString() + QLatin1Char('=') +
                                                          secret.value(QLatin1String("env")).toString();
        const QString console = o.value(QLatin1String("console")).toString();
        std::printf("%-12s %-8s %-10s %-22s %-10s %s\n", qPrintable(o.value(QLatin1String("name")).toString()),
                    qPrintable(o.value(QLatin1String("image")).toString()), qPrintable(joined(o.value(QLatin1String("presets")))),
                    qPrintable(secretText), qPrintable(console.isEmpty() ? QStringLiteral("shell") : console),
                    qPrintable(joined(o.value(QLatin1String("opt_in_presets")))));
    }
    return 0;
}

} // namespace

void registerTemplateCommands(Registry &registry)
{
    registry.add({QStringLiteral("template ls"), {}, QStringLiteral("list the agent templates (create --template T)"), {}, {},
                  0, 0, true, templateLs});
}

} // namespace airlock::ctl
