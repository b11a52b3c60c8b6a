// image.list, image.build, image.import, image.cancel, image.remove, template.list and
// preset.list: what sandboxes are made from. Builds and imports run on the builder thread
// with an engine of their own (app/THREADS.md); an import's upload is staged by ImageUploads.
#include "daemon/sandboxservice.h"
#include "daemon/callparams.h"
#include "daemon/enginerows.h"
#include "api/apiserver.h"
#include "api/jsonrpc.h"
#include "protocol/events.h"
#include "protocol/images.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"
#include "sandboxengine.h"

#include <QJsonArray>

namespace airlock {

namespace {

constexpr qint64 kMaxUploadChunk = 768 * 1024; // a request line is at most 1 MiB (rpc::kMaxLineBytes)

QString buildRunning(const QString &image)
{
    return QStringLiteral("a build of the image %1 is already running: wait for it or cancel it (image.cancel)").arg(image);
}
} // namespace

void SandboxService::registerImageMethods(ApiServer &api)
{
    api.registerMethod(proto::method::ImageList, [this](const Call &call) {
        onBuilder([call](SandboxEngine &e) {
            Result<QList<proto::ImageInfo>> images = imagesOf(e);
            images ? call.reply(proto::toJsonArray(images.value())) : call.fail(images.error());
        });
    });
    api.registerMethod(proto::method::ImageBuild, [this](const Call &call) { buildImage(call); });
    api.registerMethod(proto::method::ImageImport, [this](const Call &call) { importImage(call); });
    // Stops a queued or running build; the build's own call then fails with "cancelled" and
    // nothing of it is kept.
    api.registerMethod(proto::method::ImageCancel, [this](const Call &call) {
        const QString imageName = stringParam(call, "name");
        if (imageName.isEmpty())
            return call.fail(rpc::InvalidParams, QStringLiteral("image.cancel needs the name of the image being built"));
        if (!m_builds.cancel(imageName))
            return call.fail(rpc::NotFound, QStringLiteral("no build of the image %1 is running: nothing to cancel").arg(imageName));
        call.reply(proto::ImageCancelResult{imageName, true}.toJson());
    });
    api.registerMethod(proto::method::ImageRemove, [this](const Call &call) {
        const QString imageName = stringParam(call, "name");
        onEngine([this, call, imageName](SandboxEngine &e) {
            Status s = e.removeImage(imageName);
            if (!s)
                return call.fail(s.error());
            recordImage(imageName, std::nullopt, [call, imageName] { call.reply(proto::NameParams{imageName}.toJson()); });
        });
    });

    api.registerMethod(proto::method::TemplateList, [this](const Call &call) { listTemplates(call); });
    api.registerMethod(proto::method::PresetList, [this](const Call &call) { listPresets(call); });
}

Result<QList<proto::ImageInfo>> SandboxService::imagesOf(SandboxEngine &engine)
{
    Result<QJsonArray> rows = engine.listImages();
    if (!rows)
        return rows.error();
    return fromEngine<proto::ImageInfo>(rows.value());
}

// A fresh build's result gets the `created` its image.list row has, as a cached one does.
Result<proto::ImageInfo> SandboxService::builtImage(SandboxEngine &builder, const QJsonObject &result)
{
    Result<proto::ImageInfo> built = fromEngine<proto::ImageInfo>(result);
    if (!built || built->created)
        return built;
    if (Result<QList<proto::ImageInfo>> images = imagesOf(builder))
        for (const proto::ImageInfo &image : images.value())
            if (image.name == built->name)
                built->created = image.created;
    return built;
}

void SandboxService::buildImage(const Call &call)
{
    const QString recipe = stringParam(call, "recipe");
    if (recipe.isEmpty())
        return call.fail(rpc::InvalidParams, QStringLiteral("image.build needs a recipe, e.g. tiny"));
    const QString imageName = stringParam(call, "name").isEmpty() ? recipe : stringParam(call, "name");
    runImageJob(call, imageName, [recipe, imageName](SandboxEngine &e, const SandboxEngine::Progress &progress, const Cancelled &cancelled) {
        return e.buildImage(recipe, imageName, progress, cancelled);
    });
}

// Chunks are written on the pool (a file write each); the last one starts the import on the
// builder thread, where image builds run, and its answer is the image's row.
void SandboxService::importImage(const Call &call)
{
    Result<proto::ImageImportParams> p = proto::ImageImportParams::fromJson(call.params());
    if (!p)
        return call.fail(p.error());
    if (p->format != QLatin1String("oci-archive") && p->format != QLatin1String("docker-archive") && p->format != QLatin1String("dockerfile"))
        return call.fail(rpc::InvalidParams, QStringLiteral("image.import: \"format\" must be oci-archive, docker-archive or dockerfile"));
    if (p->format == QLatin1String("dockerfile") && p->reference.isEmpty())
        return call.fail(rpc::InvalidParams, QStringLiteral("image.import: a dockerfile import names the Dockerfile in \"reference\""));
    if (p->data.size() > kMaxUploadChunk)
        return call.fail(rpc::InvalidParams, QStringLiteral("image.import: a chunk holds at most %1 bytes").arg(kMaxUploadChunk));
    if (Status named = SandboxEngine::checkImageName(p->name); !named)
        return call.fail(named.error());
    if (m_builds.startedBy(p->name))
        return call.fail(rpc::Conflict, buildRunning(p->name));
    const uid_t uid = call.peer().uid;
    inPool([this, call, p = p.value(), uid] {
        Result<qint64> size = m_uploads.append(uid, p.name, p.offset, p.data);
        if (!size)
            return call.fail(size.error());
        if (!p.final)
            return call.reply(proto::ImageUploadResult{p.name, size.value()}.toJson());
        const QString archive = m_uploads.path(uid, p.name);
        runImageJob(call, p.name, [this, p, uid, archive](SandboxEngine &e, const SandboxEngine::Progress &progress, const Cancelled &cancelled) {
            Result<QJsonObject> r = e.importImage(archive, p.format, p.reference, p.name, progress, cancelled);
            m_uploads.remove(uid, p.name);
            return r;
        }, [this, uid, name = p.name] { m_uploads.remove(uid, name); });
    });
}

void SandboxService::runImageJob(const Call &call, const QString &imageName, ImageJob job, std::function<void()> refused)
{
    const uid_t builder = call.peer().uid;
    if (!m_builds.begin(imageName, builder)) {
        if (refused)
            refused();
        return call.fail(rpc::Conflict, buildRunning(imageName));
    }
    onBuilder([this, call, imageName, builder, job = std::move(job)](SandboxEngine &e) {
        // Build progress is for whoever started it (and the administrators).
        auto progress = [this, imageName, builder](int percent, const QString &message) {
            const proto::ImageProgress p{imageName, percent >= 100 ? QStringLiteral("done") : QStringLiteral("building"), percent, message};
            m_api.post(proto::topic::Image, p.toJson(), Audience::of(builder));
        };
        auto r = job(e, progress, [this, imageName] { return m_stopping.load() || m_builds.isCancelled(imageName); });
        m_builds.end(imageName);
        if (!r) {
            m_api.post(proto::topic::Image, proto::ImageProgress{imageName, QStringLiteral("failed"), 0, r.error().message()}.toJson(),
                       Audience::of(builder));
            return call.fail(r.error());
        }
        {
            QMutexLocker lock(&m_accelLock);
            m_accel = e.accel();
        }
        onEngine([](SandboxEngine &engine) { engine.reloadAccel(); });
        // A cached build changed nothing: the image keeps its builder. The answer waits
        // until the directory knows the image's builder.
        const Result<proto::ImageInfo> built = builtImage(e, r.value());
        if (!built)
            return call.fail(built.error());
        recordImage(imageName, built->cached.value_or(false) ? std::nullopt : std::optional<uid_t>(builder),
                    [call, reply = built->toJson()] { call.reply(reply); });
    });
}

} // namespace airlock
