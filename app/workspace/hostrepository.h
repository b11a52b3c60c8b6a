#pragma once
#include "core/result.h"

#include <QString>
#include <QStringList>

namespace airlock::workspace {

// What was read from the user's repository on the host.
struct RepositorySnapshot {
    QString top;        // the repository's top directory (or git dir when bare)
    QString head;       // commit id of HEAD: where the agent starts
    QString branch;     // the checked-out branch, empty when HEAD is detached
    int uncommitted = 0; // changed tracked files that the bundle does not carry
};

// Reads a repository on the host with the user's own git, as the user who runs the client:
// the daemon (maybe root) never opens the user's files.
class HostRepository {
public:
    // Checks that `path` is inside a git repository with at least one commit.
    static Result<RepositorySnapshot> inspect(const QString &path);
    // `git bundle create --all` of the repository into `bundleFile`.
    static Status bundle(const RepositorySnapshot &repo, const QString &bundleFile);

    // Runs git with `args` in `dir`; stdout on success, an Error with git's stderr otherwise.
    static Result<QByteArray> git(const QString &dir, const QStringList &args, int timeoutMs = 600000);
};

} // namespace airlock::workspace
