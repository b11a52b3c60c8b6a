#pragma once
#include <QDialog>
#include <QPointer>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace airlock { class ApiClient; }

namespace airlock::ui {

// The secrets manager: names, hosts and header templates are listed, with the sign-in a
// token came from and when it expires; a value can be set (or replaced) but never read back
// (secret.set / secret.list / secret.remove). "Sign in" runs an agent template's sign-in in a
// throw-away sandbox (sandbox.create with sign_in and ephemeral), as `secret login` does.
class SecretsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SecretsDialog(ApiClient *client, QWidget *parent = nullptr);
    // The throw-away sandbox the last sign-in runs in ("" before one started).
    QString signInSandbox() const { return m_signInSandbox; }
    // For tests and screenshots.
    QComboBox *signInTemplates() const { return m_signInTemplate; }
    QPushButton *signInButton() const { return m_signIn; }
    QTableWidget *table() const { return m_table; }
    QString messageText() const;

private:
    void reload();
    void loadSignInTemplates();
    void save();
    void removeSelected();
    void signIn();

    QPointer<ApiClient> m_client;
    QTableWidget *m_table;
    QLineEdit *m_name, *m_hosts, *m_header, *m_value;
    QComboBox *m_signInTemplate;
    QPushButton *m_signIn;
    QLabel *m_message;
    QString m_signInSandbox;
};

} // namespace airlock::ui
