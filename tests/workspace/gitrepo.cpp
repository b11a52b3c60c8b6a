#include "gitrepo.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRandomGenerator>

GitResult runGit(const QString &dir, const QStringList &args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("GIT_CONFIG_NOSYSTEM"), QStringLiteral("1"));
    env.insert(QStringLiteral("GIT_CONFIG_GLOBAL"), QStringLiteral("/dev/null"));
    env.insert(QStringLiteral("GIT_AUTHOR_DATE"), QStringLiteral("2026-01-02T03:04:05Z"));
    env.insert(QStringLiteral("GIT_COMMITTER_DATE"), QStringLiteral("2026-01-02T03:04:05Z"));
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(dir);
    p.start(QStringLiteral("git"), QStringList{QStringLiteral("-c"), QStringLiteral("user.name=Host User"), QStringLiteral("-c"),
                                               QStringLiteral("user.email=host@example.invalid"), QStringLiteral("-c"),
                                               QStringLiteral("init.defaultBranch=main")} + args);
    GitResult r;
    if (!p.waitForStarted(5000) || !p.waitForFinished(120000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

namespace {
bool writeFile(const QString &path, const QByteArray &data)
{
    QDir().mkpath(path.section(QLatin1Char('/'), 0, -2));
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}
} // namespace

bool makeSampleRepository(const QString &dir, QString *error)
{
    const QList<QStringList> steps = {
        {QStringLiteral("init"), QStringLiteral("-q")},
        {QStringLiteral("config"), QStringLiteral("user.name"), QStringLiteral("Host User")},
        {QStringLiteral("config"), QStringLiteral("user.email"), QStringLiteral("host@example.invalid")},
    };
    for (const QStringList &s : steps)
        if (GitResult r = runGit(dir, s); r.exitCode != 0)
            return *error = QString::fromUtf8(r.err), false;
    auto commit = [&](const QString &file, const QByteArray &data, const QString &message) {
        if (!writeFile(dir + QLatin1Char('/') + file, data))
            return *error = QStringLiteral("cannot write ") + file, false;
        for (const QStringList &s : {QStringList{QStringLiteral("add"), file}, QStringList{QStringLiteral("commit"), QStringLiteral("-qm"), message}})
            if (GitResult r = runGit(dir, s); r.exitCode != 0)
                return *error = QString::fromUtf8(r.err), false;
        return true;
    };
    if (!commit(QStringLiteral("README"), "A sample project.\n", QStringLiteral("first")))
        return false;
    if (!commit(QStringLiteral("src/hello.txt"), "hello from the host\n", QStringLiteral("second")))
        return false;
    for (const QStringList &s : {QStringList{QStringLiteral("tag"), QStringLiteral("v1")},
                                 QStringList{QStringLiteral("checkout"), QStringLiteral("-qb"), QStringLiteral("feature")}})
        if (GitResult r = runGit(dir, s); r.exitCode != 0)
            return *error = QString::fromUtf8(r.err), false;
    if (!commit(QStringLiteral("feature.txt"), "on a branch\n", QStringLiteral("feature work")))
        return false;
    if (GitResult r = runGit(dir, {QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("main")}); r.exitCode != 0)
        return *error = QString::fromUtf8(r.err), false;
    return true;
}

bool addBigCommit(const QString &dir, int mib, QString *error)
{
    QByteArray noise(qsizetype(mib) * 1024 * 1024, Qt::Uninitialized);
    QRandomGenerator gen(7);
    gen.fillRange(reinterpret_cast<quint32 *>(noise.data()), noise.size() / 4);
    if (!writeFile(dir + QStringLiteral("/blob.bin"), noise))
        return *error = QStringLiteral("cannot write blob.bin"), false;
    for (const QStringList &s : {QStringList{QStringLiteral("add"), QStringLiteral("blob.bin")},
                                 QStringList{QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("blob")}})
        if (GitResult r = runGit(dir, s); r.exitCode != 0)
            return *error = QString::fromUtf8(r.err), false;
    return true;
}
