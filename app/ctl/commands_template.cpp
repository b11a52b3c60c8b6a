// template ls: the agent templates `create --template` applies (resources/templates).
#include "ctl/command.h"
#include "protocol/images.h"
#include "protocol/names.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>

namespace airlock::ctl {

namespace {

QString joined(const QStringList &names) { return names.isEmpty() ? QStringLiteral("-") : names.join(QLatin1Char(',')); }

void printTemplates(const QList<proto::TemplateInfo> &templates)
{
    std::printf("%-12s %-8s %-10s %-22s %-10s %-22s %s\n", "NAME", "IMAGE", "PRESETS", "SECRET", "CONSOLE", "OPT-IN PRESETS",
                "POLICY");
    for (const proto::TemplateInfo &t : templates) {
        const QString secret = t.secret ? t.secret->name + QLatin1Char('=') + t.secret->env : QStringLiteral("-");
        std::printf("%-12s %-8s %-10s %-22s %-10s %-22s %s\n", qPrintable(t.name), qPrintable(t.image), qPrintable(joined(t.presets)),
                    qPrintable(secret), qPrintable(t.console.isEmpty() ? QStringLiteral("shell") : t.console),
                    qPrintable(joined(t.optInPresets)), qPrintable(t.policy.isEmpty() ? QStringLiteral("-") : t.policy));
    }
}

int templateLs(Context &ctx, const Args &)
{
    return ctx.show<QList<proto::TemplateInfo>>(proto::method::TemplateList, {}, printTemplates);
}

} // namespace

void registerTemplateCommands(Registry &registry)
{
    registry.add({QStringLiteral("template ls"), {}, QStringLiteral("list the agent templates (create --template T)"), {}, {},
                  0, 0, true, templateLs});
}

} // namespace airlock::ctl
