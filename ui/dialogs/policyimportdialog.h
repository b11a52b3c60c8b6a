#pragma once
#include "protocol/policies.h"

#include <QDialog>
#include <QPointer>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QListWidget;

namespace airlock { class ApiClient; }

namespace airlock::ui {

// Shows what a policy file would change in a sandbox's rules, or in the global ones when
// `sandbox` is empty (policy.import as a dry run):
// each rule added, removed, already there, or in conflict. Apply sends the same import for
// real; nothing changes before. The file may have been written by the agent, so the dialog
// never applies on its own.
class PolicyImportDialog : public QDialog {
    Q_OBJECT
public:
    PolicyImportDialog(ApiClient *client, const QString &sandbox, const QString &policy, const QString &source,
                       QWidget *parent = nullptr);

    QListWidget *changes() const { return m_changes; }
    QCheckBox *replaceBox() const { return m_replace; }
    QPushButton *applyButton() const;
    QString status() const;

Q_SIGNALS:
    void applied(const QString &summary);

private:
    void ask(bool dryRun);
    void showPlan(const proto::PolicyImportResult &plan);

    QPointer<ApiClient> m_client;
    proto::PolicyImportParams m_params;
    QListWidget *m_changes;
    QCheckBox *m_replace;
    QLabel *m_status;
    QDialogButtonBox *m_buttons;
    QString m_scopeName; // "web", "the global rules"
};

} // namespace airlock::ui
