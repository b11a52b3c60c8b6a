#include "workspace/devcontainer.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace airlock::workspace {

namespace {

constexpr qint64 kMaxDevcontainerBytes = 1 << 20;

QString findFile(const QString &path)
{
    const QFileInfo info(path);
    if (info.isFile())
        return info.absoluteFilePath();
    for (const QString &candidate : {QStringLiteral(".devcontainer/devcontainer.json"), QStringLiteral(".devcontainer.json")}) {
        const QFileInfo f(QDir(path).filePath(candidate));
        if (f.isFile())
            return f.absoluteFilePath();
    }
    return {};
}

} // namespace

namespace {

// Calls `keep` for each byte outside strings and copies strings whole; `keep` returns how
// many bytes it consumed (at least 1) and appends what stays.
template <typename Keep>
QByteArray outsideStrings(const QByteArray &text, Keep keep)
{
    QByteArray out;
    out.reserve(text.size());
    qsizetype i = 0;
    while (i < text.size()) {
        if (text[i] != '"') {
            i += keep(i, out);
            continue;
        }
        const qsizetype start = i++;
        while (i < text.size() && text[i] != '"')
            i += text[i] == '\\' ? 2 : 1;
        i = qMin(i + 1, text.size());
        out += text.mid(start, i - start);
    }
    return out;
}

} // namespace

QByteArray jsoncToJson(const QByteArray &text)
{
    // Comments first, so that a comma before a comment before '}' is seen as trailing.
    const QByteArray plain = outsideStrings(text, [&text](qsizetype i, QByteArray &out) -> qsizetype {
        if (text.mid(i, 2) == "//") {
            const qsizetype end = text.indexOf('\n', i);
            out += '\n';
            return (end < 0 ? text.size() : end + 1) - i;
        }
        if (text.mid(i, 2) == "/*") {
            const qsizetype end = text.indexOf("*/", i + 2);
            out += ' ';
            return (end < 0 ? text.size() : end + 2) - i;
        }
        out += text[i];
        return 1;
    });
    return outsideStrings(plain, [&plain](qsizetype i, QByteArray &out) -> qsizetype {
        if (plain[i] == ',') {
            qsizetype j = i + 1;
            while (j < plain.size() && QByteArrayView(" \t\r\n").contains(plain[j]))
                ++j;
            if (j < plain.size() && (plain[j] == '}' || plain[j] == ']'))
                return 1; // a trailing comma
        }
        out += plain[i];
        return 1;
    });
}

Result<DevcontainerBuild> readDevcontainer(const QString &path)
{
    const QString file = findFile(path);
    if (file.isEmpty())
        return Error{QStringLiteral("no devcontainer.json at %1").arg(path),
                     QStringLiteral("give the project directory holding .devcontainer/devcontainer.json, or the file itself")};
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("cannot read %1").arg(file), f.errorString()};
    if (f.size() > kMaxDevcontainerBytes)
        return Error{QStringLiteral("%1 is larger than 1 MiB").arg(file), QStringLiteral("is it really a devcontainer.json?")};
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(jsoncToJson(f.readAll()), &parseError);
    if (!doc.isObject())
        return Error{QStringLiteral("%1 is not valid JSON (with comments)").arg(file), parseError.errorString()};
    const QJsonObject o = doc.object();
    const QString dir = QFileInfo(file).absolutePath();
    const QJsonObject build = o.value(QLatin1String("build")).toObject();
    const QString dockerfile = build.value(QLatin1String("dockerfile")).toString(o.value(QLatin1String("dockerFile")).toString());
    if (!dockerfile.isEmpty()) {
        const QString context = build.value(QLatin1String("context")).toString(o.value(QLatin1String("context")).toString(QStringLiteral(".")));
        return DevcontainerBuild{file, QDir::cleanPath(QDir(dir).filePath(dockerfile)), QDir::cleanPath(QDir(dir).filePath(context))};
    }
    if (const QString image = o.value(QLatin1String("image")).toString(); !image.isEmpty())
        return Error{QStringLiteral("%1 names the image %2, which Airlock does not pull").arg(file, image),
                     QStringLiteral("copy it here first (skopeo copy docker://%1 oci:%2-oci:latest), then: airlockctl image import NAME --oci %2-oci:latest")
                         .arg(image, QFileInfo(dir).fileName())};
    if (o.contains(QLatin1String("dockerComposeFile")))
        return Error{QStringLiteral("%1 uses Docker Compose, which Airlock does not run").arg(file),
                     QStringLiteral("import the service's Dockerfile with --dockerfile FILE --context DIR")};
    return Error{QStringLiteral("%1 names neither build.dockerfile nor image").arg(file),
                 QStringLiteral("add \"build\": {\"dockerfile\": \"Dockerfile\"} or import an image with --oci / --docker-archive")};
}

Result<std::unique_ptr<ImageSource>> openDevcontainer(const QString &path)
{
    const Result<DevcontainerBuild> build = readDevcontainer(path);
    if (!build)
        return build.error();
    return ImageSource::openDockerfile(build->dockerfile, build->context);
}

} // namespace airlock::workspace
