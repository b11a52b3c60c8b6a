#include "workspace/imageupload.h"
#include "api/blockingclient.h"
#include "protocol/images.h"
#include "protocol/jsonfields.h"
#include "protocol/names.h"

#include <QDir>
#include <QFileInfo>

namespace airlock::workspace {

namespace {

// "path[:reference]": the reference only when the whole does not name a file.
void splitReference(const QString &spec, QString *path, QString *reference)
{
    const qsizetype colon = spec.lastIndexOf(QLatin1Char(':'));
    if (QFileInfo::exists(spec) || colon <= 0) {
        *path = spec;
        return;
    }
    *path = spec.left(colon);
    *reference = spec.mid(colon + 1);
}

constexpr qint64 kUploadChunk = 512 * 1024;     // its base64 keeps a request line below 1 MiB
constexpr int kImportTimeoutMs = 2 * 3600 * 1000; // unpacking and making the disk of a large image

} // namespace

Result<std::unique_ptr<ImageSource>> ImageSource::open(Kind kind, const QString &spec)
{
    std::unique_ptr<ImageSource> source(new ImageSource(kind));
    splitReference(spec, &source->m_path, &source->m_reference);
    const QFileInfo info(source->m_path);
    if (kind == Kind::DockerArchive) {
        if (!info.isFile())
            return Error{QStringLiteral("no such file: %1").arg(source->m_path),
                         QStringLiteral("give the tar that `docker save`, `podman save` or `skopeo copy ... docker-archive:FILE` wrote")};
        source->m_file.setFileName(source->m_path);
        if (!source->m_file.open(QIODevice::ReadOnly))
            return Error{QStringLiteral("cannot read %1").arg(source->m_path), source->m_file.errorString()};
        return source;
    }
    if (!info.isDir() || !QFileInfo::exists(source->m_path + QStringLiteral("/oci-layout")))
        return Error{QStringLiteral("%1 is not an OCI layout directory (it has no oci-layout file)").arg(source->m_path),
                     QStringLiteral("give the directory `skopeo copy ... oci:DIR` or `podman save --format oci-dir` wrote, "
                                    "or a docker-archive file with --docker-archive")};
    if (Status started = source->startTar(); !started)
        return started.error();
    return source;
}

Result<std::unique_ptr<ImageSource>> ImageSource::openDockerfile(const QString &dockerfile, const QString &context)
{
    const QFileInfo file(dockerfile);
    if (!file.isFile())
        return Error{QStringLiteral("no such file: %1").arg(dockerfile), QStringLiteral("give the Dockerfile to build with --dockerfile FILE")};
    const QString dir = context.isEmpty() ? file.absolutePath() : context;
    const QFileInfo contextInfo(dir);
    if (!contextInfo.isDir())
        return Error{QStringLiteral("no such directory: %1").arg(dir), QStringLiteral("give the build context with --context DIR")};
    const QString inside = QDir(contextInfo.canonicalFilePath()).relativeFilePath(file.canonicalFilePath());
    if (inside.startsWith(QLatin1String("../")) || QDir::isAbsolutePath(inside))
        return Error{QStringLiteral("the Dockerfile %1 is outside its build context %2").arg(dockerfile, dir),
                     QStringLiteral("move it into the context, or give a --context DIR that holds it")};
    std::unique_ptr<ImageSource> source(new ImageSource(Kind::DockerfileContext));
    source->m_path = contextInfo.canonicalFilePath();
    source->m_reference = inside;
    if (Status started = source->startTar(); !started)
        return started.error();
    return source;
}

// The directory m_path as a tar on tar's stdout, read in chunks (never staged here).
Status ImageSource::startTar()
{
    m_tar.setProcessChannelMode(QProcess::SeparateChannels);
    m_tar.setStandardErrorFile(QProcess::nullDevice());
    m_tar.start(QStringLiteral("tar"), {QStringLiteral("-C"), m_path, QStringLiteral("-cf"), QStringLiteral("-"), QStringLiteral(".")});
    if (!m_tar.waitForStarted(10000))
        return Error{QStringLiteral("cannot run tar to read %1").arg(m_path), m_tar.errorString()};
    return ok();
}

ImageSource::~ImageSource()
{
    if (m_tar.state() != QProcess::NotRunning) {
        m_tar.kill();
        m_tar.waitForFinished(5000);
    }
}

bool ImageSource::atEnd() const
{
    if (m_kind == Kind::DockerArchive)
        return m_file.atEnd();
    return m_tar.state() == QProcess::NotRunning && m_tar.bytesAvailable() == 0;
}

Result<QByteArray> ImageSource::read(qint64 max)
{
    if (m_kind == Kind::DockerArchive) {
        const QByteArray chunk = m_file.read(max);
        if (chunk.isEmpty() && !m_file.atEnd())
            return Error{QStringLiteral("cannot read %1").arg(m_path), m_file.errorString()};
        return chunk;
    }
    QByteArray chunk;
    while (chunk.size() < max) {
        if (m_tar.bytesAvailable() == 0 && m_tar.state() != QProcess::NotRunning)
            m_tar.waitForReadyRead(1000);
        chunk += m_tar.read(max - chunk.size());
        if (m_tar.state() == QProcess::NotRunning && m_tar.bytesAvailable() == 0)
            break;
    }
    if (atEnd() && (m_tar.exitStatus() != QProcess::NormalExit || m_tar.exitCode() != 0))
        return Error{QStringLiteral("tar could not read all of %1 (exit %2)").arg(m_path).arg(m_tar.exitCode()),
                     QStringLiteral("check that every file in it is readable by you")};
    return chunk;
}

Result<QJsonObject> uploadImage(BlockingClient &client, const QString &name, ImageSource &source, const Progress &progress,
                                const Cancelled &cancelled)
{
    proto::ImageImportParams params{name, source.format(), source.reference(), {}, 0, false};
    qint64 shownMib = 0;
    for (;;) {
        if (isCancelled(cancelled))
            return cancelledError(QStringLiteral("the upload of %1 stopped").arg(name)); // airlockd drops it within the hour
        Result<QByteArray> chunk = source.read(kUploadChunk);
        if (!chunk)
            return chunk.error();
        params.data = chunk.value();
        params.final = source.atEnd();
        if (params.final)
            break;
        Result<QJsonValue> r = client.call(proto::method::ImageImport, params.toJson());
        if (!r)
            return r.error();
        Result<proto::ImageUploadResult> got = proto::fromReply<proto::ImageUploadResult>(r.value());
        if (!got)
            return got.error();
        params.offset = got->received;
        if (params.offset >> 26 > shownMib) { // every 64 MiB
            shownMib = params.offset >> 26;
            report(progress, QStringLiteral("uploaded %1 MiB").arg(params.offset >> 20), int(qMin<qint64>(50, shownMib * 2)));
        }
    }
    report(progress, QStringLiteral("uploaded %1 MiB; importing").arg((params.offset + params.data.size()) >> 20), 50);
    Result<QJsonValue> done = client.call(proto::method::ImageImport, params.toJson(), kImportTimeoutMs);
    if (!done)
        return done.error();
    if (!done->isObject())
        return Error{QStringLiteral("cannot read the daemon's image.import reply"), QStringLiteral("it is not an object")};
    return done->toObject();
}

} // namespace airlock::workspace
