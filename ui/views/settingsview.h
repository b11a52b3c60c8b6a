#pragma once
#include <QJsonArray>
#include <QPointer>
#include <QWidget>

class QLabel;
class QTableWidget;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class SandboxModel;

// The Settings tab: the sandbox's resources and its egress rules (add, remove, import and
// export as JSON: the objects of rule.list).
class SettingsView : public QWidget {
    Q_OBJECT
public:
    SettingsView(ApiClient *client, SandboxModel *sandboxes, QWidget *parent = nullptr);
    void setSandbox(const QString &sandbox);
    void reload();

private:
    void addRule();
    void removeRule();
    void exportRules();
    void importRules();

    QPointer<ApiClient> m_client;
    SandboxModel *m_sandboxes;
    QString m_sandbox;
    QLabel *m_resources;
    QLabel *m_message;
    QTableWidget *m_rules;
    QJsonArray m_ruleList;
};

} // namespace airlock::ui
