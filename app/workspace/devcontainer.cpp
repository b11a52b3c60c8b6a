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

QByteArray jsoncToJson(const QByteArray &text)
{
    QByteArray out;
    out.reserve(text.size());
    bool inString = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
            out += c;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            while (i < text.size() && text[i] != '\n')
                ++i;
            out += '\n';
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            const qsizetype end = text.indexOf("*/", i + 2);
            i = end < 0 ? text.size() : end + 1;
            out += ' ';
        } else if (c == ',') {
            // A comma whose next token closes an object or array is dropped.
            qsizetype j = i + 1;
            while (j < text.size() && QByteArrayView(" \t\r\n").contains(text[j]))
                ++j;
            if (j >= text.size() || (text[j] != '}' && text[j] != ']'))
                out += c;
        } else {
            out += c;
        }
    }
    return out;
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
