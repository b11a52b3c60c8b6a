#pragma once
#include "core/result.h"
#include "progress.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace airlock { class BlockingClient; }

namespace airlock::workspace {

struct ShellResult {
    int exitCode = 0;
    QByteArray out;
    QByteArray err;
};

// The guest side of workspace transfers, through the daemon's ordinary API only:
// sandbox.exec runs a shell script, file.push / file.pull move files.
class GuestShell {
public:
    GuestShell(BlockingClient &client, const QString &sandbox) : m_client(client), m_sandbox(sandbox) {}

    // Runs `/bin/sh -c script airlock ARGS...` in the guest; an Error only when it could not run
    // (not running, no agent); a non-zero exit is the caller's to read.
    Result<ShellResult> run(const QString &script, const QStringList &args = {}, int timeoutS = 600);
    // Copies a local file to `guestPath` (replacing it), reporting percent `from`..`to`.
    Status push(const QString &localFile, const QString &guestPath, const Progress &progress = {}, int from = 0, int to = 100,
                const Cancelled &cancelled = {});
    // Reads a guest file whole (workspace exports are small next to a request line limit per chunk).
    Result<QByteArray> pull(const QString &guestPath);

    const QString &sandbox() const { return m_sandbox; }

private:
    BlockingClient &m_client;
    QString m_sandbox;
};

// The script's own message (its stderr), or git's, for an Error a person reads.
QString describeFailure(const ShellResult &r);

} // namespace airlock::workspace
