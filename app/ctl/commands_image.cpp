// image ls | build | rm.
#include "ctl/command.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>

namespace airlock::ctl {

namespace {

QString humanSize(qint64 bytes)
{
    if (bytes >= (qint64(1) << 30)) return QString::number(double(bytes) / (1 << 30), 'f', 1) + QStringLiteral(" GiB");
    if (bytes >= (1 << 20)) return QString::number(double(bytes) / (1 << 20), 'f', 1) + QStringLiteral(" MiB");
    return QString::number(bytes / 1024) + QStringLiteral(" KiB");
}

int imageLs(Context &ctx, const Args &)
{
    const auto result = ctx.call(QStringLiteral("image.list"));
    if (!result)
        return kFailed;
    if (ctx.json) {
        ctx.printJson(*result);
        return 0;
    }
    std::printf("%-20s %-12s %-22s %s\n", "NAME", "SIZE", "CREATED", "KERNEL");
    for (const QJsonValue &v : result->toArray()) {
        const QJsonObject o = v.toObject();
        std::printf("%-20s %-12s %-22s %s\n", qPrintable(o.value(QLatin1String("name")).toString()),
                    qPrintable(humanSize(o.value(QLatin1String("size_bytes")).toInteger())),
                    qPrintable(o.value(QLatin1String("created")).toString()),
                    qPrintable(o.value(QLatin1String("kernel")).toString()));
    }
    return 0;
}

int imageBuild(Context &ctx, const Args &args)
{
    const QString recipe = args.positional.at(0);
    QJsonObject params{{QStringLiteral("recipe"), recipe}};
    if (args.has(QStringLiteral("--name")))
        params.insert(QStringLiteral("name"), args.value(QStringLiteral("--name")));
    const QString name = args.value(QStringLiteral("--name"), recipe);
    // Progress goes to stderr so --json output stays one document.
    if (ctx.client.call(QStringLiteral("subscribe"), {{QStringLiteral("topics"), QJsonArray{QStringLiteral("image")}}}).ok()) {
        ctx.client.onEvent = [name](const QJsonObject &event) {
            const QJsonObject data = event.value(QLatin1String("data")).toObject();
            if (data.value(QLatin1String("name")).toString() != name ||
                data.value(QLatin1String("phase")).toString() == QLatin1String("failed"))
                return;
            std::fprintf(stderr, "[%3d%%] %s\n", data.value(QLatin1String("percent")).toInt(),
                         qPrintable(data.value(QLatin1String("message")).toString()));
        };
    }
    const auto result = ctx.call(QStringLiteral("image.build"), params);
    if (!result)
        return kFailed;
    if (ctx.json) {
        ctx.printJson(*result);
        return 0;
    }
    const QJsonObject o = result->toObject();
    std::printf("image %s ready (%s)%s\n", qPrintable(o.value(QLatin1String("name")).toString()),
                qPrintable(humanSize(o.value(QLatin1String("size_bytes")).toInteger())),
                o.value(QLatin1String("cached")).toBool() ? " [cached]" : "");
    return 0;
}

int imageRm(Context &ctx, const Args &args)
{
    const auto result = ctx.call(QStringLiteral("image.remove"), {{QStringLiteral("name"), args.positional.at(0)}});
    if (!result)
        return kFailed;
    if (ctx.json)
        ctx.printJson(*result);
    return 0;
}

} // namespace

void registerImageCommands(Registry &registry)
{
    registry.add({QStringLiteral("image ls"), {}, QStringLiteral("list guest images"), {}, {}, 0, 0, true, imageLs});
    registry.add({QStringLiteral("image build"), QStringLiteral("RECIPE [--name N]"),
                  QStringLiteral("build a guest image from a recipe in resources/images"),
                  {QStringLiteral("--name")}, {}, 1, 1, true, imageBuild});
    registry.add({QStringLiteral("image rm"), QStringLiteral("NAME"), QStringLiteral("remove an image no sandbox uses"),
                  {}, {}, 1, 1, true, imageRm});
}

} // namespace airlock::ctl
