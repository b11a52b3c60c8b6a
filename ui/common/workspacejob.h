#pragma once
#include "api/daemonaddress.h"
#include "core/result.h"
#include "workspace/progress.h"

#include <QJsonObject>
#include <QObject>
#include <QString>
#include <functional>

namespace airlock { class BlockingClient; }

namespace airlock::ui {

// Runs a workspace transfer (app/workspace/, the code airlockctl runs) on a thread of its
// own with its own connection to airlockd, so the GUI thread never waits on git or on the
// guest. Signals arrive on the GUI thread; the job deletes itself after `finished`.
class WorkspaceJob : public QObject {
    Q_OBJECT
public:
    using Work = std::function<Result<QJsonObject>(BlockingClient &client, const workspace::Progress &progress)>;

    // Starts `work` against the daemon at `address` (the GUI connection's own, so a remote
    // host's copy goes to that host). Connect to the signals right away.
    static WorkspaceJob *start(const DaemonAddress &address, Work work);

Q_SIGNALS:
    void progress(const QString &message, int percent);
    void finished(bool ok, const QJsonObject &result, const QString &error);

private:
    WorkspaceJob() = default;
};

} // namespace airlock::ui
