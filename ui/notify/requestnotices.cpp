#include "notify/requestnotices.h"
#include "api/apiclient.h"
#include "common/replies.h"
#include "notify/requestnotifications.h"
#include "protocol/egress.h"
#include "protocol/names.h"

#include <QDateTime>
#include <QSystemTrayIcon>
#include <QWidget>

namespace airlock::ui {

RequestNotices::RequestNotices(ApiClient *client, PendingModel *pending, QWidget *window, QSystemTrayIcon *tray)
    : QObject(window), m_client(client), m_pending(pending), m_window(window), m_tray(tray),
      m_notifications(new RequestNotifications(this))
{
    connect(m_pending, &PendingModel::newRequest, this, &RequestNotices::onNewRequest);
    connect(m_pending, &QAbstractItemModel::rowsAboutToBeRemoved, this, [this](const QModelIndex &, int first, int last) {
        for (int row = first; row <= last; ++row)
            m_notifications->withdraw(m_pending->entry(row).key);
    });
    connect(m_pending, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        for (int row = 0; row < m_pending->rowCount(); ++row)
            m_notifications->withdraw(m_pending->entry(row).key);
    });
    connect(m_notifications, &RequestNotifications::answered, this, &RequestNotices::decideOnce);
    connect(m_notifications, &RequestNotifications::showRequested, this, &RequestNotices::showRequested);
    if (m_tray)
        connect(m_tray, &QSystemTrayIcon::messageClicked, this, &RequestNotices::showRequested);
}

void RequestNotices::onNewRequest(const PendingModel::Entry &e)
{
    if (m_window->isActiveWindow()) // the person is looking at the pending panel already
        return;
    const QString target = e.host.isEmpty() ? e.ip : e.host;
    const QString summary = tr("%1 wants to connect").arg(e.sandbox);
    QString body = e.heldRequest ? tr("%1 on %2 port %3.").arg(e.request, target).arg(e.port)
                                 : tr("%1 port %2 (%3).").arg(target).arg(e.port).arg(e.proto);
    if (!e.process.isEmpty())
        body += QLatin1Char(' ') + tr("The guest says: %1.").arg(e.process);
    body += QLatin1Char(' ') + (m_pending->holdsUntilAnswered() ? tr("It waits until you answer.")
                                                                : tr("Denied in %1 s unless you allow it.").arg(m_pending->secondsLeft(e)));
    if (m_notifications->available())
        m_notifications->notify(e, summary, body);
    else if (m_tray)
        m_tray->showMessage(summary, body, QSystemTrayIcon::Warning, 10000);
}

void RequestNotices::decideOnce(qint64 id, const QString &action)
{
    if (!m_client)
        return;
    proto::EgressDecideParams params;
    params.id = id;
    params.action = action;
    params.scope = QStringLiteral("once");
    m_client->call(proto::method::EgressDecide, params.toJson(), this, [this, action](const ApiClient::Reply &r) {
        const Result<proto::EgressEvent> answer = replyAs<proto::EgressEvent>(r);
        if (!answer)
            return Q_EMIT decided(tr("Could not decide: %1").arg(answer.error().message()));
        const QString target = answer->host.isEmpty() ? answer->ip : answer->host;
        Q_EMIT decided(action == QLatin1String("allow") ? tr("Allowed %1 once, from the notification.").arg(target)
                                                        : tr("Denied %1 once, from the notification.").arg(target));
    });
}

} // namespace airlock::ui
