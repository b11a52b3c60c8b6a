#include "notify/requestnotifications.h"

#include <QDateTime>
#include <QDBusConnection>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QVariantMap>

#include <algorithm>
#include <limits>

namespace airlock::ui {

namespace {
const QString kService = QStringLiteral("org.freedesktop.Notifications");
const QString kPath = QStringLiteral("/org/freedesktop/Notifications");
const QString kInterface = QStringLiteral("org.freedesktop.Notifications");

QDBusMessage callOf(const QString &method, const QVariantList &arguments = {})
{
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kInterface, method);
    call.setArguments(arguments);
    return call;
}
} // namespace

RequestNotifications::RequestNotifications(QObject *parent) : QObject(parent)
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) {
        QMetaObject::invokeMethod(this, &RequestNotifications::ready, Qt::QueuedConnection);
        return;
    }
    bus.connect(kService, kPath, kInterface, QStringLiteral("ActionInvoked"), this, SLOT(onActionInvoked(uint, QString)));
    bus.connect(kService, kPath, kInterface, QStringLiteral("NotificationClosed"), this, SLOT(onClosed(uint, uint)));
    auto *watcher = new QDBusPendingCallWatcher(bus.asyncCall(callOf(QStringLiteral("GetCapabilities"))), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *w) {
        const QDBusPendingReply<QStringList> reply = *w;
        w->deleteLater();
        m_available = reply.isValid();
        if (m_available)
            m_capabilities = reply.value();
        Q_EMIT ready();
    });
}

void RequestNotifications::notify(const PendingModel::Entry &entry, const QString &summary, const QString &body)
{
    if (!m_available)
        return;
    uint replaces = 0;
    for (auto it = m_shown.cbegin(); it != m_shown.cend(); ++it)
        if (it->key == entry.key)
            replaces = it.key();
    QStringList actions{QStringLiteral("default"), tr("Show")};
    if (hasActions())
        actions << QStringLiteral("allow") << tr("Allow once") << QStringLiteral("deny") << tr("Deny once");
    QVariantMap hints{{QStringLiteral("urgency"), QVariant::fromValue(uchar(1))},
                      {QStringLiteral("category"), QStringLiteral("network")},
                      {QStringLiteral("desktop-entry"), QStringLiteral("airlock")}};
    // A request the broker holds until answered stays until answered; others go when the
    // broker denies them.
    const int timeoutMs = entry.deadlineMs == std::numeric_limits<qint64>::max()
                              ? 0
                              : int(std::clamp<qint64>(entry.deadlineMs - QDateTime::currentMSecsSinceEpoch(), 1000, 3600 * 1000));
    const QDBusMessage call = callOf(QStringLiteral("Notify"), {QStringLiteral("Airlock"), replaces, QString(), summary, body, actions,
                                                                hints, timeoutMs});
    auto *watcher = new QDBusPendingCallWatcher(QDBusConnection::sessionBus().asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, key = entry.key, id = entry.latestId](QDBusPendingCallWatcher *w) {
        const QDBusPendingReply<uint> reply = *w;
        w->deleteLater();
        if (reply.isValid())
            m_shown.insert(reply.value(), {key, id});
    });
}

void RequestNotifications::withdraw(const QString &key)
{
    for (auto it = m_shown.begin(); it != m_shown.end();) {
        if (it->key != key) {
            ++it;
            continue;
        }
        QDBusConnection::sessionBus().asyncCall(callOf(QStringLiteral("CloseNotification"), {it.key()}));
        it = m_shown.erase(it);
    }
}

void RequestNotifications::onActionInvoked(uint notification, const QString &action)
{
    const auto it = m_shown.constFind(notification);
    if (it == m_shown.cend()) // another program's notification, or one already answered
        return;
    const Shown shown = *it;
    if (action == QLatin1String("allow") || action == QLatin1String("deny")) {
        m_shown.erase(it);
        QDBusConnection::sessionBus().asyncCall(callOf(QStringLiteral("CloseNotification"), {notification}));
        Q_EMIT answered(shown.id, action);
    } else if (action == QLatin1String("default")) {
        Q_EMIT showRequested();
    }
}

void RequestNotifications::onClosed(uint notification, uint) { m_shown.remove(notification); }

} // namespace airlock::ui
