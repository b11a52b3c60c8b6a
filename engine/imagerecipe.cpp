#include "imagerecipe.h"
#include "core/diskspace.h"
#include "core/logging.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <csignal>
#include <unistd.h>

namespace airlock {

QStringList ImageRecipe::searchPath()
{
    QStringList dirs;
    const QString fromEnv = qEnvironmentVariable("AIRLOCK_RECIPES");
    if (!fromEnv.isEmpty())
        dirs << fromEnv;
    dirs << QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/images") << QStringLiteral("/usr/share/airlock/images")
         << QStringLiteral("/usr/local/share/airlock/images");
    return dirs;
}

namespace {

// The files of `dirs` (below `base`), sorted, by relative name and content.
void hashFiles(QCryptographicHash &hash, const QString &base, const QStringList &dirs)
{
    for (const QString &part : dirs) {
        QStringList files;
        QDirIterator it(part, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            files << it.next();
        files.sort();
        for (const QString &f : files) {
            QFile file(f);
            if (!file.open(QIODevice::ReadOnly))
                continue;
            hash.addData(QDir(base).relativeFilePath(f).toUtf8());
            hash.addData(file.readAll());
        }
    }
}

} // namespace

Result<ImageRecipe> ImageRecipe::find(const QString &name)
{
    static const QRegularExpression valid(QStringLiteral("^[a-z0-9][a-z0-9-]{0,31}$"));
    if (!valid.match(name).hasMatch())
        return Error{QStringLiteral("invalid recipe name \"%1\"").arg(name),
                     QStringLiteral("recipes are named like tiny or agents"), ErrorKind::InvalidParams};
    for (const QString &base : searchPath()) {
        const QString dir = base + QLatin1Char('/') + name;
        if (!QFileInfo(dir + QStringLiteral("/build.sh")).isExecutable())
            continue;
        // The recipe's files and the shared ones beside it (common/): a change to either
        // is a new image.
        QCryptographicHash hash(QCryptographicHash::Sha256);
        hashFiles(hash, base, {dir, base + QStringLiteral("/common")});
        return ImageRecipe{name, dir, QString::fromLatin1(hash.result().toHex())};
    }
    return Error{QStringLiteral("no image recipe named \"%1\"").arg(name),
                 QStringLiteral("recipes live in %1; try `airlockctl image build tiny`").arg(searchPath().join(QStringLiteral(", "))),
                 ErrorKind::NotFound};
}

Result<ImageRecipe> ImageRecipe::importer(const QString &archive, const QString &format, const QString &reference)
{
    for (const QString &base : searchPath()) {
        const QString dir = base + QStringLiteral("/import");
        if (!QFileInfo(dir + QStringLiteral("/import.sh")).isExecutable())
            continue;
        QCryptographicHash hash(QCryptographicHash::Sha256);
        hashFiles(hash, base, {dir, base + QStringLiteral("/common")});
        QFile in(archive);
        if (!in.open(QIODevice::ReadOnly) || !hash.addData(&in))
            return Error{QStringLiteral("cannot read the uploaded image"), in.errorString()};
        hash.addData(QByteArray(format.toUtf8() + '\0' + reference.toUtf8()));
        ImageRecipe r{QStringLiteral("import"), dir, QString::fromLatin1(hash.result().toHex())};
        r.script = QStringLiteral("import.sh");
        r.inputs = {archive, format};
        if (!reference.isEmpty())
            r.inputs << reference;
        return r;
    }
    return Error{QStringLiteral("Airlock's image importer is not installed"),
                 QStringLiteral("import/import.sh was not found in %1; reinstall Airlock").arg(searchPath().join(QStringLiteral(", "))),
                 ErrorKind::NotFound};
}

Status ImageRecipe::run(const QString &outDir, const Progress &progress, const std::function<bool()> &cancelled) const
{
    QProcess build;
    build.setProcessChannelMode(QProcess::SeparateChannels);
    // Its own process group: a cancel reaches what the recipe started (mmdebstrap, apt, dpkg).
    build.setChildProcessModifier([] { ::setpgid(0, 0); });
    build.start(dir + QLatin1Char('/') + script, QStringList{outDir} + inputs);
    if (!build.waitForStarted(10000))
        return Error{QStringLiteral("cannot run the recipe %1").arg(name), build.errorString()};
    QByteArray errors;
    QByteArray pending;
    static const QRegularExpression progressRe(QStringLiteral("^PROGRESS (\\d+) (.*)$"));
    while (build.state() != QProcess::NotRunning) {
        build.waitForReadyRead(200);
        pending += build.readAllStandardOutput();
        errors += build.readAllStandardError();
        if (errors.size() > 16384)
            errors = errors.right(16384);
        qsizetype nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
            const QString line = QString::fromUtf8(pending.left(nl));
            pending.remove(0, nl + 1);
            const auto m = progressRe.match(line);
            if (m.hasMatch())
                progress(m.captured(1).toInt(), m.captured(2));
        }
        if (cancelled()) {
            // TERM first: mmdebstrap unmounts what it mounted in the new root before it exits.
            const pid_t group = pid_t(build.processId());
            ::kill(-group, SIGTERM);
            if (!build.waitForFinished(30000))
                build.kill();
            ::kill(-group, SIGKILL);
            build.waitForFinished(5000);
            return Error{isImport() ? QStringLiteral("the import was cancelled") : QStringLiteral("the build of %1 was cancelled").arg(name),
                         QStringLiteral("nothing was kept")};
        }
    }
    errors += build.readAllStandardError();
    if (build.exitStatus() != QProcess::NormalExit || build.exitCode() != 0) {
        const QString output = QString::fromUtf8(errors);
        // Out of room is no network failure: say which disk, not "the mirror must be reachable".
        if (diskIsFull(outDir, output))
            return diskFullError(QStringLiteral("the recipe %1 ran out of disk space").arg(name), outDir);
        const QStringList lines = output.trimmed().split(QLatin1Char('\n'));
        // The importer's last line says what was wrong with the image and what to do.
        if (isImport())
            return Error{QStringLiteral("the image cannot be imported"), lines.constLast(), ErrorKind::InvalidParams};
        return Error{QStringLiteral("the recipe %1 failed (exit %2)").arg(name).arg(build.exitCode()),
                     lines.mid(qMax(0, int(lines.size()) - 3)).join(QStringLiteral(" | ")) +
                         QStringLiteral("; the Debian mirror must be reachable and apt-get update done")};
    }
    return ok();
}

} // namespace airlock
