#pragma once
#include "protocol/images.h"

#include <QDialog>
#include <QJsonObject>
#include <QPointer>
#include <atomic>
#include <memory>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class CheckpointScheduleFields;

// New sandbox: name, agent template, image, resources, the connected daemon's egress
// preset (preset.list), secrets to lend, automatic checkpoints, start now, ephemeral, and a host repository to copy
// in as the workspace (File > Run agent on a folder… opens it with the folder filled in). Sends one sandbox.create with the preset in `presets`, so the daemon opens
// its rules in the same step as the create (with a workspace: the client-side copy of
// app/workspace/ on a worker thread, as airlockctl create --workspace), and stays open
// with the message when it is refused.
class NewSandboxDialog : public QDialog {
    Q_OBJECT
public:
    explicit NewSandboxDialog(ApiClient *client, QWidget *parent = nullptr);
    QJsonObject createParams() const;
    QLineEdit *nameEdit() const { return m_name; }
    QLineEdit *workspaceEdit() const { return m_workspace; }
    QPushButton *workspaceBrowseButton() const { return m_browse; }
    QLabel *messageLabel() const { return m_error; }
    // The sandbox.create (or create-with-workspace) answer once accepted.
    QJsonObject createdSandbox() const { return m_created; }
    QComboBox *presetCombo() const { return m_preset; }
    // The chosen preset's parameters ("org=myorg"), shown only for a preset that takes some.
    QLineEdit *presetValuesEdit() const { return m_presetValues; }
    QComboBox *templateCombo() const { return m_template; }
    QCheckBox *ephemeralCheck() const { return m_ephemeral; }
    CheckpointScheduleFields *scheduleFields() const { return m_schedule; }
    QString errorText() const;

    void accept() override;
    // While a workspace is being copied in: cancels, removes the sandbox, then closes.
    void reject() override;

private:
    QWidget *buildWorkspaceRow();
    void loadChoices();
    void loadTemplates();
    void loadPresets();
    void applyTemplate(int index);
    void chooseWorkspace();
    void createWithWorkspace(const QString &repoPath);

    QPointer<ApiClient> m_client;
    QLineEdit *m_name;
    QComboBox *m_template;
    QComboBox *m_image;
    QSpinBox *m_cpus, *m_memory, *m_disk;
    QComboBox *m_preset;
    QLineEdit *m_presetValues;
    QListWidget *m_secrets;
    QCheckBox *m_start;
    QCheckBox *m_ephemeral;
    CheckpointScheduleFields *m_schedule;
    QLineEdit *m_workspace;
    QPushButton *m_browse;
    QProgressBar *m_progress;
    QJsonObject m_created;
    QList<proto::TemplateInfo> m_templates; // template.list, in the combo's order after "None"
    std::shared_ptr<std::atomic_bool> m_cancel; // set while a workspace job runs
    QLabel *m_error;
    QDialogButtonBox *m_buttons;
};

} // namespace airlock::ui
