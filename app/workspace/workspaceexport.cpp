#include "workspaceexport.h"
#include "api/blockingclient.h"
#include "guestshell.h"
#include "workspaceimport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QSaveFile>

namespace airlock::workspace {

namespace {

// Prints key=value lines the host reads; writes the export under $out only when there is
// something new. Exit 3: no workspace or no base; 4: git failed.
const char kExport[] = R"sh(
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=${HOME:-/root}
dir=$1 out=$2 format=$3 base=$4
# The workspace may belong to an imported image's USER (see the import's clone); git refuses a
# repository of another owner unless told. The guest is untrusted whole: its users are no boundary.
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'
command -v git >/dev/null 2>&1 || { echo "this sandbox's image has no git" >&2; exit 3; }
[ -d "$dir/.git" ] || { echo "the sandbox has no workspace at $dir; create one with airlockctl create NAME --workspace PATH" >&2; exit 3; }
cd "$dir" || exit 3
[ -n "$base" ] || base=$(git config airlock.base)
[ -n "$base" ] || { echo "no base commit is recorded in $dir; say where the work started with --base COMMIT" >&2; exit 3; }
base=$(git rev-parse -q --verify "$base^{commit}") || { echo "the base $4 is not a commit in $dir" >&2; exit 3; }
head=$(git rev-parse -q --verify "HEAD^{commit}") || { echo "$dir has no commit checked out" >&2; exit 3; }
count=$(git rev-list --count "$base..HEAD") || exit 4
echo "base=$base"
echo "head=$head"
echo "branch=$(git symbolic-ref -q --short HEAD)"
echo "commits=$count"
echo "uncommitted=$(git status --porcelain | wc -l)"
[ "$count" -gt 0 ] || exit 0
rm -rf "$out" && mkdir -p "$out" || exit 4
if [ "$format" = bundle ]; then
    ref=$(git symbolic-ref -q HEAD) || ref=HEAD
    git bundle create -q "$out/changes.bundle" "$ref" "^$base" >&2 || exit 4
    echo "file=changes.bundle"
else
    git format-patch -q -o "$out" "$base..HEAD" >&2 || exit 4
    for f in "$out"/*.patch; do echo "file=${f##*/}"; done
fi
)sh";

// Refuses a destination that would write into a repository's own files (inside a .git).
bool insideGitDir(const QString &absolutePath)
{
    for (const QString &part : QDir::cleanPath(absolutePath).split(QLatin1Char('/'), Qt::SkipEmptyParts))
        if (part == QLatin1String(".git"))
            return true;
    return false;
}

} // namespace

std::optional<ExportFormat> exportFormatFromString(const QString &text)
{
    if (text == QLatin1String("bundle"))
        return ExportFormat::Bundle;
    if (text == QLatin1String("patches"))
        return ExportFormat::Patches;
    return std::nullopt;
}

Result<QJsonObject> exportWorkspace(BlockingClient &client, const QString &sandbox, const QString &dest, ExportFormat format,
                                    const QString &base, const Progress &progress)
{
    const bool asBundle = format == ExportFormat::Bundle;
    // The destination is checked before the guest does any work.
    QString target = QFileInfo(dest).absoluteFilePath();
    if (insideGitDir(target))
        return Error{QStringLiteral("will not write into %1").arg(target),
                     QStringLiteral("it is inside a .git directory; an export never touches a repository: pick a path outside it")};
    if (asBundle) {
        if (QFileInfo(target).isDir())
            target = QDir(target).filePath(sandbox + QStringLiteral(".bundle"));
        if (QFileInfo::exists(target))
            return Error{QStringLiteral("%1 already exists").arg(target), QStringLiteral("pick another name or remove it first")};
        if (!QFileInfo(QFileInfo(target).absolutePath()).isDir())
            return Error{QStringLiteral("no such directory: %1").arg(QFileInfo(target).absolutePath()),
                         QStringLiteral("create it first or pick another destination")};
    } else {
        const QFileInfo info(target);
        if (info.exists() && !info.isDir())
            return Error{QStringLiteral("%1 exists and is not a directory").arg(target),
                         QStringLiteral("patches go into a directory: give a new or empty one")};
        if (info.isDir() && !QDir(target).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System))
            return Error{QStringLiteral("%1 is not empty").arg(target), QStringLiteral("give a new or empty directory for the patches")};
        if (!QFileInfo(info.absolutePath()).isDir())
            return Error{QStringLiteral("no such directory: %1").arg(info.absolutePath()), QStringLiteral("create it first or pick another destination")};
    }

    GuestShell guest(client, sandbox);
    const QString staging = guestStagingDir() + QStringLiteral("/export");
    report(progress, QStringLiteral("collecting the commits in sandbox %1").arg(sandbox), 5);
    auto r = guest.run(QString::fromLatin1(kExport), {guestWorkspaceDir(), staging,
                                                      asBundle ? QStringLiteral("bundle") : QStringLiteral("patches"), base});
    if (!r)
        return r.error();
    if (r->exitCode != 0)
        return Error{QStringLiteral("cannot export from sandbox %1").arg(sandbox), describeFailure(r.value())};

    QJsonObject result{{QStringLiteral("sandbox"), sandbox}, {QStringLiteral("format"), asBundle ? QStringLiteral("bundle") : QStringLiteral("patches")}};
    QStringList files;
    for (const QString &line : QString::fromUtf8(r->out).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QString key = line.section(QLatin1Char('='), 0, 0);
        const QString value = line.section(QLatin1Char('='), 1).trimmed();
        if (key == QLatin1String("file"))
            files << value;
        else if (key == QLatin1String("commits") || key == QLatin1String("uncommitted"))
            result.insert(key, value.toInt());
        else
            result.insert(key, value);
    }
    const int commits = result.value(QLatin1String("commits")).toInt();
    const QString baseId = result.value(QLatin1String("base")).toString();
    if (commits == 0)
        return Error{QStringLiteral("nothing to export from sandbox %1").arg(sandbox),
                     QStringLiteral("there are no commits since %1, where the sandbox started%2; commit inside the sandbox first "
                                    "(e.g. airlockctl exec %3 -- git -C %4 commit -a -m MESSAGE)")
                         .arg(baseId.left(12),
                              result.value(QLatin1String("uncommitted")).toInt() > 0 ? QStringLiteral(" (it has uncommitted changes)") : QString(),
                              sandbox, guestWorkspaceDir())};
    if (files.isEmpty())
        return Error{QStringLiteral("cannot export from sandbox %1").arg(sandbox), QStringLiteral("git made no files")};

    // Pull everything first, then write: a failure leaves no partial export behind.
    QList<QByteArray> contents;
    for (int i = 0; i < files.size(); ++i) {
        report(progress, QStringLiteral("copying %1").arg(files.at(i)), 10 + 80 * i / int(files.size()));
        auto data = guest.pull(staging + QLatin1Char('/') + files.at(i));
        if (!data)
            return data.error();
        contents << data.value();
    }
    guest.run(QStringLiteral("rm -rf \"$1\""), {staging}, 60); // best effort: the guest's scratch copy

    QJsonArray written;
    if (asBundle) {
        QSaveFile out(target);
        if (!out.open(QIODevice::WriteOnly) || out.write(contents.first()) != contents.first().size() || !out.commit())
            return Error{QStringLiteral("cannot write %1").arg(target), out.errorString()};
        written.append(target);
    } else {
        const bool made = !QFileInfo::exists(target);
        if (made && !QDir().mkpath(target))
            return Error{QStringLiteral("cannot create %1").arg(target), QStringLiteral("check the permissions of its parent")};
        QDir dir(target);
        for (int i = 0; i < files.size(); ++i) {
            QFile out(dir.filePath(files.at(i)));
            const bool opened = out.open(QIODevice::WriteOnly | QIODevice::NewOnly); // never replaces a file
            if (!opened || out.write(contents.at(i)) != contents.at(i).size()) {
                const Error e{QStringLiteral("cannot write %1").arg(out.fileName()), out.errorString()};
                out.close();
                for (const QJsonValue &w : written)
                    QFile::remove(w.toString());
                if (opened)
                    QFile::remove(out.fileName());
                if (made)
                    dir.rmdir(target);
                return e;
            }
            written.append(out.fileName());
        }
    }
    result.insert(QStringLiteral("files"), written);
    result.insert(QStringLiteral("path"), target);
    report(progress, QStringLiteral("exported %1 commits").arg(commits), 100);
    return result;
}

} // namespace airlock::workspace
