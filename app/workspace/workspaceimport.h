#pragma once
#include "core/result.h"
#include "progress.h"

#include <QJsonObject>
#include <QString>

namespace airlock { class BlockingClient; }

namespace airlock::workspace {

// Where a workspace lives in the guest. Its git config keeps `airlock.base`, the commit the
// sandbox started from, and the ref refs/airlock/base keeps that commit reachable.
inline QString guestWorkspaceDir() { return QStringLiteral("/workspace"); }
inline QString guestStagingDir() { return QStringLiteral("/var/lib/airlock"); }

// Copies the host repository at `repoPath` into a running sandbox: the client bundles it
// with the user's git (`git bundle create --all`), pushes the bundle with file.push and the
// guest clones it into /workspace. Never a mount. Returns {path, base, branch, bytes, uncommitted}.
Result<QJsonObject> importWorkspace(BlockingClient &client, const QString &sandbox, const QString &repoPath,
                                    const Progress &progress = {}, const Cancelled &cancelled = {});

// sandbox.create (started: the clone needs a running guest) followed by importWorkspace.
// The repository is checked before anything is created, and a sandbox whose workspace step
// fails or is cancelled is killed and removed again. Returns sandbox.create's answer plus
// {workspace: {...}}.
Result<QJsonObject> createWithWorkspace(BlockingClient &client, QJsonObject createParams, const QString &repoPath,
                                        const Progress &progress = {}, const Cancelled &cancelled = {});

} // namespace airlock::workspace
