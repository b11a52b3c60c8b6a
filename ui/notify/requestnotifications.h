#pragma once
#include "models/pendingmodel.h"

#include <QHash>
#include <QObject>
#include <QStringList>

namespace airlock::ui {

// Desktop notifications for pending requests, through the desktop's notification server
// (org.freedesktop.Notifications on the session bus). Where the server shows actions, each
// notification has Allow once / Deny once buttons; clicking its body asks for the window.
// Every D-Bus call is asynchronous: the GUI thread never waits for the server.
class RequestNotifications : public QObject {
    Q_OBJECT
public:
    explicit RequestNotifications(QObject *parent = nullptr);

    // Known once the server answered GetCapabilities; false without a server.
    bool available() const { return m_available; }
    bool hasActions() const { return m_capabilities.contains(QLatin1String("actions")); }

    // Shows `entry` (a later call for the same key replaces its notification).
    void notify(const PendingModel::Entry &entry, const QString &summary, const QString &body);
    // The request was answered or expired elsewhere: its notification goes.
    void withdraw(const QString &key);
    int shownCount() const { return int(m_shown.size()); }

Q_SIGNALS:
    // Ready: available() and hasActions() are known.
    void ready();
    // A button of the notification of attempt `id` was pressed: "allow" or "deny".
    void answered(qint64 id, const QString &action);
    void showRequested();

private Q_SLOTS: // QDBusConnection::connect takes slots by signature
    void onActionInvoked(uint notification, const QString &action);
    void onClosed(uint notification, uint reason);

private:
    struct Shown {
        QString key;
        qint64 id = 0;
    };
    bool m_available = false;
    QStringList m_capabilities;
    QHash<uint, Shown> m_shown; // notification id -> what it shows
};

} // namespace airlock::ui
