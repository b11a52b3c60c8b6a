#include "hostrepository.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>

namespace airlock::workspace {

Result<QByteArray> HostRepository::git(const QString &dir, const QStringList &args, int timeoutMs)
{
    const QString program = QStandardPaths::findExecutable(QStringLiteral("git"));
    if (program.isEmpty())
        return Error{QStringLiteral("git is not installed"), QStringLiteral("install it (apt install git) and try again")};
    QProcess p;
    // The user's environment may point git elsewhere (GIT_DIR in a hook or a shell); we mean `dir`.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"})
        env.remove(QString::fromLatin1(name));
    env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(dir);
    p.start(program, args);
    if (!p.waitForStarted(10000))
        return Error{QStringLiteral("cannot run git"), p.errorString()};
    p.closeWriteChannel();
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        return Error{QStringLiteral("git %1 did not finish in time").arg(args.value(0)), QStringLiteral("is the repository very large?")};
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return Error{QStringLiteral("git %1 failed").arg(args.value(0)), QString::fromLocal8Bit(p.readAllStandardError()).trimmed()};
    return p.readAllStandardOutput();
}

Result<RepositorySnapshot> HostRepository::inspect(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return Error{QStringLiteral("no such directory: %1").arg(path), QStringLiteral("give the path of a git repository on this machine")};
    if (!info.isDir())
        return Error{QStringLiteral("%1 is not a directory").arg(path), QStringLiteral("give the directory of a git repository")};
    const QString dir = info.absoluteFilePath();
    const Error notRepo{QStringLiteral("%1 is not a git repository").arg(dir),
                        QStringLiteral("give the directory of a git repository (one made with `git init` or `git clone`)")};
    auto inside = git(dir, {QStringLiteral("rev-parse"), QStringLiteral("--is-bare-repository"), QStringLiteral("--absolute-git-dir")});
    if (!inside) {
        // git says "not a git repository" for a plain directory; anything else (e.g. ownership) is worth passing on.
        if (inside.error().why.contains(QLatin1String("not a git repository")))
            return notRepo;
        return Error{notRepo.what, inside.error().why};
    }
    const QStringList lines = QString::fromUtf8(inside.value()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const bool bare = lines.value(0) == QLatin1String("true");
    RepositorySnapshot repo;
    if (bare) {
        repo.top = lines.value(1);
    } else {
        auto top = git(dir, {QStringLiteral("rev-parse"), QStringLiteral("--show-toplevel")});
        if (!top)
            return Error{notRepo.what, top.error().why};
        repo.top = QString::fromUtf8(top.value()).trimmed();
    }
    auto head = git(repo.top, {QStringLiteral("rev-parse"), QStringLiteral("--verify"), QStringLiteral("--quiet"), QStringLiteral("HEAD^{commit}")});
    if (!head)
        return Error{QStringLiteral("%1 has no commits yet").arg(repo.top), QStringLiteral("commit something first: only commits are copied into the sandbox")};
    repo.head = QString::fromLatin1(head.value()).trimmed();
    auto branch = git(repo.top, {QStringLiteral("symbolic-ref"), QStringLiteral("--quiet"), QStringLiteral("--short"), QStringLiteral("HEAD")});
    if (branch)
        repo.branch = QString::fromUtf8(branch.value()).trimmed();
    if (!bare) {
        auto status = git(repo.top, {QStringLiteral("status"), QStringLiteral("--porcelain"), QStringLiteral("--untracked-files=no")});
        if (status)
            repo.uncommitted = int(status->count('\n'));
    }
    return repo;
}

Status HostRepository::bundle(const RepositorySnapshot &repo, const QString &bundleFile)
{
    auto r = git(repo.top, {QStringLiteral("bundle"), QStringLiteral("create"), QStringLiteral("--quiet"), bundleFile, QStringLiteral("--all")});
    if (!r)
        return Error{QStringLiteral("cannot bundle %1").arg(repo.top), r.error().why};
    return ok();
}

} // namespace airlock::workspace
