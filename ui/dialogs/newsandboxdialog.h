#pragma once
#include <QDialog>
#include <QPointer>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace airlock { class ApiClient; }

namespace airlock::ui {

// New sandbox: name, agent template, image, resources, secrets to lend, start now.
// Sends sandbox.create and stays open with the daemon's message when it is refused.
class NewSandboxDialog : public QDialog {
    Q_OBJECT
public:
    explicit NewSandboxDialog(ApiClient *client, QWidget *parent = nullptr);
    QJsonObject createParams() const;
    QLineEdit *nameEdit() const { return m_name; }
    QComboBox *presetCombo() const { return m_preset; }
    QString errorText() const;

    void accept() override;

private:
    void loadChoices();
    // After sandbox.create: the chosen preset's allow rules, then the start (so the guest
    // never runs without them).
    void applyPreset(const QString &name, bool start);

    QPointer<ApiClient> m_client;
    QLineEdit *m_name;
    QComboBox *m_template;
    QComboBox *m_image;
    QSpinBox *m_cpus, *m_memory, *m_disk;
    QComboBox *m_preset;
    QListWidget *m_secrets;
    QCheckBox *m_start;
    QLabel *m_error;
    QDialogButtonBox *m_buttons;
};

} // namespace airlock::ui
