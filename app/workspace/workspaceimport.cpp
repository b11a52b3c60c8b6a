#include "workspaceimport.h"
#include "api/blockingclient.h"
#include "guestshell.h"
#include "hostrepository.h"

#include <QFileInfo>
#include <QJsonValue>
#include <QTemporaryDir>

namespace airlock::workspace {

namespace {

// Checked before the bundle travels: git present, /workspace free, a place for the bundle.
const char kPreflight[] = R"sh(
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
dir=$1 stage=$2
command -v git >/dev/null 2>&1 || { echo "this sandbox's image has no git; use an image that has it (tiny or agents)" >&2; exit 3; }
if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    echo "$dir already holds files in the sandbox; a workspace goes into a sandbox that has none" >&2; exit 3
fi
mkdir -p "$stage" || exit 3
)sh";

// Clones the bundle with every branch and tag under its own name, checks out what the host
// had checked out and records the base. HEAD comes along as refs/airlock/base, so even a
// detached HEAD arrives.
const char kClone[] = R"sh(
set -e
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=${HOME:-/root}
dir=$1 bundle=$2 base=$3 branch=$4 name=$5 email=$6
git -c init.defaultBranch=airlock-import init -q "$dir"
cd "$dir"
git fetch -q --update-head-ok "$bundle" 'refs/heads/*:refs/heads/*' 'refs/tags/*:refs/tags/*' 'HEAD:refs/airlock/base'
[ "$(git rev-parse refs/airlock/base)" = "$base" ] || { echo "the bundle's HEAD is not $base" >&2; exit 4; }
if [ -n "$branch" ]; then git symbolic-ref HEAD "refs/heads/$branch"; else git update-ref --no-deref HEAD "$base"; fi
git reset -q --hard "$base"
git config airlock.base "$base"
[ -z "$name" ] || git config user.name "$name"
[ -z "$email" ] || git config user.email "$email"
rm -f "$bundle"
# An imported image's console runs as its USER (kept in /.airlock/image/user, empty for root):
# the workspace is theirs.
user=$(cat /.airlock/image/user 2>/dev/null || true)
if [ -n "$user" ]; then
    chown -R "$user" "$dir" || { echo "cannot give $dir to the image's user $user" >&2; exit 4; }
fi
)sh";

QString hostConfig(const QString &top, const QString &key)
{
    auto r = HostRepository::git(top, {QStringLiteral("config"), QStringLiteral("--get"), key});
    return r ? QString::fromUtf8(r.value()).trimmed() : QString();
}

} // namespace

Result<QJsonObject> importWorkspace(BlockingClient &client, const QString &sandbox, const QString &repoPath, const Progress &progress,
                                    const Cancelled &cancelled)
{
    report(progress, QStringLiteral("reading %1").arg(repoPath), 0);
    auto repo = HostRepository::inspect(repoPath);
    if (!repo)
        return repo.error();
    QTemporaryDir tmp;
    if (!tmp.isValid())
        return Error{QStringLiteral("cannot make a temporary directory"), tmp.errorString()};
    const QString bundleFile = tmp.filePath(QStringLiteral("workspace.bundle"));
    report(progress, QStringLiteral("bundling %1").arg(repo->top), 5);
    if (Status s = HostRepository::bundle(repo.value(), bundleFile); !s)
        return s.error();

    GuestShell guest(client, sandbox);
    const QString dir = guestWorkspaceDir();
    const QString guestBundle = guestStagingDir() + QStringLiteral("/workspace.bundle");
    report(progress, QStringLiteral("checking the sandbox"), 10);
    auto pre = guest.run(QString::fromLatin1(kPreflight), {dir, guestStagingDir()}, 120);
    if (!pre)
        return pre.error();
    if (pre->exitCode != 0)
        return Error{QStringLiteral("cannot put a workspace into sandbox %1").arg(sandbox), describeFailure(pre.value())};

    if (Status s = guest.push(bundleFile, guestBundle, progress, 15, 80, cancelled); !s)
        return s.error();
    if (isCancelled(cancelled))
        return cancelledError(QStringLiteral("the copy into sandbox %1 stopped").arg(sandbox));
    report(progress, QStringLiteral("cloning into %1").arg(dir), 85);
    auto clone = guest.run(QString::fromLatin1(kClone), {dir, guestBundle, repo->head, repo->branch,
                                                         hostConfig(repo->top, QStringLiteral("user.name")),
                                                         hostConfig(repo->top, QStringLiteral("user.email"))});
    if (!clone)
        return clone.error();
    if (clone->exitCode != 0)
        return Error{QStringLiteral("cannot clone the workspace in sandbox %1").arg(sandbox), describeFailure(clone.value())};
    report(progress, QStringLiteral("workspace ready in %1").arg(dir), 100);
    return QJsonObject{{QStringLiteral("path"), dir},
                       {QStringLiteral("source"), repo->top},
                       {QStringLiteral("base"), repo->head},
                       {QStringLiteral("branch"), repo->branch},
                       {QStringLiteral("bytes"), QFileInfo(bundleFile).size()},
                       {QStringLiteral("uncommitted"), repo->uncommitted}};
}

Result<QJsonObject> createWithWorkspace(BlockingClient &client, QJsonObject createParams, const QString &repoPath, const Progress &progress,
                                        const Cancelled &cancelled)
{
    // Bad input is refused before anything exists.
    auto repo = HostRepository::inspect(repoPath);
    if (!repo)
        return repo.error();
    const QString name = createParams.value(QLatin1String("name")).toString();
    createParams.insert(QStringLiteral("start"), true);
    report(progress, QStringLiteral("creating and starting %1").arg(name), 0);
    Result<QJsonValue> created = client.call(QStringLiteral("sandbox.create"), createParams);
    if (!created)
        return Error{QStringLiteral("cannot create sandbox %1").arg(name), created.error().why, created.error().kind};

    auto imported = importWorkspace(client, name, repo->top, [&progress](const QString &message, int percent) {
        report(progress, message, 20 + percent * 80 / 100);
    }, cancelled);
    if (!imported) {
        // Nothing half-made: the sandbox exists only for this workspace.
        client.call(QStringLiteral("sandbox.kill"), {{QStringLiteral("name"), name}});
        Result<QJsonValue> removed = client.call(QStringLiteral("sandbox.remove"), {{QStringLiteral("name"), name}});
        Error e = imported.error();
        e.why = e.why.isEmpty() ? e.what : e.what + QStringLiteral(": ") + e.why;
        e.what = QStringLiteral("the workspace did not make it into sandbox %1").arg(name);
        e.why += removed ? QStringLiteral(" (the sandbox was removed again)")
                         : QStringLiteral(" (and removing the sandbox failed: %1; remove it with airlockctl rm %2)").arg(removed.error().why, name);
        return e;
    }
    QJsonObject result = created->toObject();
    result.insert(QStringLiteral("workspace"), imported.value());
    return result;
}

} // namespace airlock::workspace
