#include "common/workspacejob.h"
#include "api/blockingclient.h"

#include <QThread>

namespace airlock::ui {

WorkspaceJob *WorkspaceJob::start(const DaemonAddress &address, Work work)
{
    auto *job = new WorkspaceJob;
    // The job lives until its thread has finished, so the worker may post to it.
    QThread *thread = QThread::create([job, address, work = std::move(work)] {
        const workspace::Progress progress = [job](const QString &message, int percent) {
            QMetaObject::invokeMethod(job, [job, message, percent] { Q_EMIT job->progress(message, percent); }, Qt::QueuedConnection);
        };
        BlockingClient client;
        Result<QJsonObject> r = Error{};
        if (Status s = client.connect(address); !s)
            r = s.error();
        else
            r = work(client, progress);
        const bool ok = r.ok();
        const QJsonObject result = ok ? r.value() : QJsonObject{};
        const QString error = ok ? QString() : r.error().message();
        QMetaObject::invokeMethod(job, [job, ok, result, error] { Q_EMIT job->finished(ok, result, error); }, Qt::QueuedConnection);
    });
    QObject::connect(thread, &QThread::finished, job, &QObject::deleteLater);
    QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
    return job;
}

} // namespace airlock::ui
