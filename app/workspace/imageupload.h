#pragma once
#include "core/result.h"
#include "workspace/progress.h"

#include <QFile>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <memory>

namespace airlock { class BlockingClient; }

namespace airlock::workspace {

// What `image import` (and the window's Import image) uploads, read in chunks: a docker-archive
// file as it is, or an OCI layout directory as the tar skopeo calls an oci-archive (streamed
// from tar, never staged here).
// A source may name one image of several after its last ':' (DIR:TAG, FILE:NAME:TAG).
// A Dockerfile travels with its build context, as a tar of the context directory; the
// reference is the Dockerfile's path inside it (airlockd builds it offline with buildah).
class ImageSource {
public:
    enum class Kind { OciLayout, DockerArchive, DockerfileContext };
    // The source `spec` of `kind`, checked: what was wrong and what to give instead.
    static Result<std::unique_ptr<ImageSource>> open(Kind kind, const QString &spec);
    // `dockerfile` and the directory it is built in (its own directory when `context` is empty),
    // which must hold it.
    static Result<std::unique_ptr<ImageSource>> openDockerfile(const QString &dockerfile, const QString &context = {});
    ~ImageSource();

    QString format() const
    {
        switch (m_kind) {
        case Kind::OciLayout: return QStringLiteral("oci-archive");
        case Kind::DockerArchive: return QStringLiteral("docker-archive");
        case Kind::DockerfileContext: return QStringLiteral("dockerfile");
        }
        return {};
    }
    QString reference() const { return m_reference; }
    // Up to `max` bytes; an empty chunk only at the end.
    Result<QByteArray> read(qint64 max);
    bool atEnd() const;

private:
    explicit ImageSource(Kind kind) : m_kind(kind) {}
    Status startTar();
    Kind m_kind;
    QString m_path;
    QString m_reference;
    QFile m_file;
    QProcess m_tar;
};

// Uploads `source` as the image `name` (image.import, in order), then waits for the import;
// its answer is the image's image.list row. Progress covers the upload (0-50: the size is not
// known ahead for a directory, so it climbs by steps); the daemon's own "image" events say the rest.
Result<QJsonObject> uploadImage(BlockingClient &client, const QString &name, ImageSource &source, const Progress &progress,
                                const Cancelled &cancelled = {});

} // namespace airlock::workspace
