#pragma once
#include "protocol/events.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QListWidget;
class QTableWidget;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class AvailabilityStack;

// The Secrets tab: the secrets lent to this sandbox (names and hosts; values are never
// shown or fetched) and the exfiltration alerts raised for it.
class SecretsView : public QWidget {
    Q_OBJECT
public:
    explicit SecretsView(ApiClient *client, QWidget *parent = nullptr);
    void setSandbox(const QString &sandbox);
    void reload();
    // An `alert` (exfiltration, vault locked, ...): kept per sandbox, listed for this one.
    void onAlert(const proto::Alert &alert);

Q_SIGNALS:
    void manageSecretsRequested();

private:
    QPointer<ApiClient> m_client;
    QString m_sandbox;
    AvailabilityStack *m_stack;
    QTableWidget *m_table;
    QListWidget *m_alerts;
    QHash<QString, QStringList> m_alertsBySandbox;
};

} // namespace airlock::ui
