// image ls | build | import | cancel | rm.
#include "ctl/command.h"
#include "workspace/devcontainer.h"
#include "workspace/imageupload.h"
#include "core/isotime.h"
#include "protocol/events.h"
#include "protocol/images.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"

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
    return ctx.show<QList<proto::ImageInfo>>(proto::method::ImageList, {}, [](const QList<proto::ImageInfo> &images) {
        std::printf("%-20s %-12s %-22s %s\n", "NAME", "SIZE", "CREATED", "KERNEL");
        for (const proto::ImageInfo &i : images)
            std::printf("%-20s %-12s %-22s %s\n", qPrintable(i.name), qPrintable(humanSize(i.sizeBytes)),
                        qPrintable(i.created ? isoTimeSeconds(*i.created) : QString()), qPrintable(i.kernel));
    });
}

// Progress goes to stderr so --json output stays one document.
void showProgressOf(Context &ctx, const QString &name)
{
    if (!ctx.client.call(proto::method::Subscribe, proto::TopicsParams{{QString(proto::topic::Image)}}.toJson()).ok())
        return;
    ctx.client.onEvent = [name](const QJsonObject &event) {
        const Result<proto::ImageProgress> p = proto::ImageProgress::fromJson(event.value(QLatin1String("data")).toObject());
        if (!p || p->name != name || p->phase == QLatin1String("failed"))
            return; // another build's, or not progress: the build's own reply says what failed
        std::fprintf(stderr, "[%3d%%] %s\n", p->percent, qPrintable(p->message));
    };
}

void printBuilt(const proto::ImageInfo &i)
{
    std::printf("image %s ready (%s)%s\n", qPrintable(i.name), qPrintable(humanSize(i.sizeBytes)),
                i.cached.value_or(false) ? " [cached]" : "");
}

int imageBuild(Context &ctx, const Args &args)
{
    const QString recipe = args.positional.at(0);
    proto::ImageBuildParams params{recipe, std::nullopt};
    if (args.has(QStringLiteral("--name")))
        params.name = args.value(QStringLiteral("--name"));
    showProgressOf(ctx, params.name.value_or(recipe));
    return ctx.show<proto::ImageInfo>(proto::method::ImageBuild, params.toJson(), printBuilt);
}

// The one source the options name: an OCI layout, a docker archive, a Dockerfile with its
// context, or the Dockerfile a project's devcontainer.json builds.
Result<std::unique_ptr<workspace::ImageSource>> openImageSource(const Args &args)
{
    using workspace::ImageSource;
    const QStringList sources{QStringLiteral("--oci"), QStringLiteral("--docker-archive"), QStringLiteral("--dockerfile"),
                              QStringLiteral("--devcontainer")};
    int given = 0;
    for (const QString &s : sources)
        given += args.has(s) ? 1 : 0;
    if (given != 1)
        return Error{QStringLiteral("give one of --oci DIR, --docker-archive FILE, --dockerfile FILE or --devcontainer DIR"), {},
                     ErrorKind::InvalidParams};
    if (args.has(QStringLiteral("--context")) && !args.has(QStringLiteral("--dockerfile")))
        return Error{QStringLiteral("--context goes with --dockerfile"), {}, ErrorKind::InvalidParams};
    if (args.has(QStringLiteral("--oci")))
        return ImageSource::open(ImageSource::Kind::OciLayout, args.value(QStringLiteral("--oci")));
    if (args.has(QStringLiteral("--docker-archive")))
        return ImageSource::open(ImageSource::Kind::DockerArchive, args.value(QStringLiteral("--docker-archive")));
    if (args.has(QStringLiteral("--dockerfile")))
        return ImageSource::openDockerfile(args.value(QStringLiteral("--dockerfile")), args.value(QStringLiteral("--context")));
    return workspace::openDevcontainer(args.value(QStringLiteral("--devcontainer")));
}

// Uploads the archive, then waits for the import; the upload's progress and the daemon's go to stderr.
int imageImport(Context &ctx, const Args &args)
{
    using workspace::ImageSource;
    const QString name = args.positional.at(0);
    Result<std::unique_ptr<ImageSource>> source = openImageSource(args);
    if (!source)
        return ctx.fail(source.error().message(), source.error().kind == ErrorKind::InvalidParams ? kUsage : kFailed);
    if (source.value()->format() == QLatin1String("dockerfile") && !ctx.json)
        std::fprintf(stderr, "building %s from %s (offline, in a container with no network)\n", qPrintable(name),
                     qPrintable(source.value()->reference()));
    showProgressOf(ctx, name);
    const Result<QJsonObject> reply = workspace::uploadImage(ctx.client, name, *source.value(), [](const QString &message, int) {
        std::fprintf(stderr, "%s\n", qPrintable(message));
    });
    if (!reply)
        return ctx.fail(reply.error().message());
    const Result<proto::ImageInfo> image = proto::ImageInfo::fromJson(reply.value());
    if (!image)
        return ctx.fail(Context::unreadable(proto::method::ImageImport, image.error()));
    if (ctx.json)
        ctx.printJson(reply.value());
    else
        printBuilt(image.value());
    return 0;
}

} // namespace

bool ensureImage(Context &ctx, const QString &name)
{
    const std::optional<QList<proto::ImageInfo>> images = ctx.callFor<QList<proto::ImageInfo>>(proto::method::ImageList);
    if (!images)
        return false;
    for (const proto::ImageInfo &i : *images)
        if (i.name == name)
            return true;
    std::fprintf(stderr, "image %s is not built yet: building it from its recipe (this takes a while)\n", qPrintable(name));
    showProgressOf(ctx, name);
    const std::optional<proto::ImageInfo> built =
        ctx.callFor<proto::ImageInfo>(proto::method::ImageBuild, proto::ImageBuildParams{name, std::nullopt}.toJson());
    ctx.client.onEvent = nullptr;
    if (built && !ctx.json)
        printBuilt(*built);
    return built.has_value();
}

namespace {

// Stops a build or import that is queued or running (only its starter or root may); the
// build's own command then fails with "cancelled" and nothing of it is kept.
int imageCancel(Context &ctx, const Args &args)
{
    const QString name = args.positional.at(0);
    return ctx.show<proto::ImageCancelResult>(proto::method::ImageCancel, proto::NameParams{name}.toJson(), [](const proto::ImageCancelResult &r) {
        std::printf("the build of image %s is cancelled\n", qPrintable(r.name));
    });
}

int imageRm(Context &ctx, const Args &args)
{
    return ctx.showJsonOnly<proto::NameParams>(proto::method::ImageRemove, proto::NameParams{args.positional.at(0)}.toJson());
}

} // namespace

void registerImageCommands(Registry &registry)
{
    registry.add({QStringLiteral("image ls"), {}, QStringLiteral("list guest images"), {}, {}, 0, 0, true, imageLs});
    registry.add({QStringLiteral("image build"), QStringLiteral("RECIPE [--name N]"),
                  QStringLiteral("build a guest image from a recipe in resources/images"),
                  {QStringLiteral("--name")}, {}, 1, 1, true, imageBuild});
    registry.add({QStringLiteral("image import"),
                  QStringLiteral("NAME (--oci DIR[:REF] | --docker-archive FILE[:REF] | --dockerfile FILE [--context DIR] | --devcontainer DIR)"),
                  QStringLiteral("make a guest image of your own OCI image or Dockerfile (its ENV, WORKDIR and USER kept)"),
                  {QStringLiteral("--oci"), QStringLiteral("--docker-archive"), QStringLiteral("--dockerfile"), QStringLiteral("--context"),
                   QStringLiteral("--devcontainer")},
                  {}, 1, 1, true, imageImport});
    registry.add({QStringLiteral("image cancel"), QStringLiteral("NAME"), QStringLiteral("stop a build or import of NAME that is running"),
                  {}, {}, 1, 1, true, imageCancel});
    registry.add({QStringLiteral("image rm"), QStringLiteral("NAME"), QStringLiteral("remove an image no sandbox uses"),
                  {}, {}, 1, 1, true, imageRm});
}

} // namespace airlock::ctl
