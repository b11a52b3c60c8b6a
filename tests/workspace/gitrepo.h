#pragma once
// The user's side of a workspace test: real git repositories on the host, driven with git.
#include <QByteArray>
#include <QString>
#include <QStringList>

struct GitResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QString text() const { return QString::fromUtf8(out).trimmed(); }
};

// Runs git in `dir` with a fixed identity and no user or system config.
GitResult runGit(const QString &dir, const QStringList &args);

// A repository with two commits on main (README, src/hello.txt), a tag v1 and a branch
// "feature" with one more commit; HEAD on main. Returns false with `error` on failure.
bool makeSampleRepository(const QString &dir, QString *error);

// Commits `mib` MiB of incompressible data (blob.bin) to the repository at `dir`, so copying
// it into a TCG guest takes long enough to be interrupted.
bool addBigCommit(const QString &dir, int mib, QString *error);
