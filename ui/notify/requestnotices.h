#pragma once
#include "models/pendingmodel.h"

#include <QObject>
#include <QPointer>

class QSystemTrayIcon;
class QWidget;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class RequestNotifications;

// Tells the person of a new pending request while the window is not in front: a desktop
// notification with Allow once / Deny once where the desktop's server shows actions, else
// the tray's message. A notification goes when its request is answered anywhere; its
// buttons send egress.decide for that one attempt (a lasting rule is the decision bar's).
class RequestNotices : public QObject {
    Q_OBJECT
public:
    RequestNotices(ApiClient *client, PendingModel *pending, QWidget *window, QSystemTrayIcon *tray);

    RequestNotifications *notifications() const { return m_notifications; }

Q_SIGNALS:
    // The person clicked a notice: show the pending requests.
    void showRequested();
    // What a notification's button did, for the status bar.
    void decided(const QString &message);

private:
    void onNewRequest(const PendingModel::Entry &entry);
    void decideOnce(qint64 id, const QString &action);

    QPointer<ApiClient> m_client;
    PendingModel *m_pending;
    QWidget *m_window;
    QSystemTrayIcon *m_tray;
    RequestNotifications *m_notifications;
};

} // namespace airlock::ui
