#pragma once
#include <QDialog>
#include <QPointer>

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace airlock { class ApiClient; }

namespace airlock::ui {

// Vault passphrase dialogs: create the vault, unlock it, or change its passphrase.
// The passphrase goes straight to airlockd (vault.*) and is not kept.
class VaultDialog : public QDialog {
    Q_OBJECT
public:
    enum class Mode { Init, Unlock, ChangePassphrase };
    VaultDialog(ApiClient *client, Mode mode, QWidget *parent = nullptr);
    QLineEdit *passphraseEdit() const { return m_passphrase; }
    QLineEdit *confirmEdit() const { return m_confirm; }
    QLabel *errorLabel() const { return m_error; }
    void accept() override;

private:
    QPointer<ApiClient> m_client;
    Mode m_mode;
    QLineEdit *m_old = nullptr;
    QLineEdit *m_passphrase;
    QLineEdit *m_confirm = nullptr;
    QLabel *m_error;
    QDialogButtonBox *m_buttons;
};

} // namespace airlock::ui
