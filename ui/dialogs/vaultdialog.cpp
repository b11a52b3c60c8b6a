#include "dialogs/vaultdialog.h"
#include "api/apiclient.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace airlock::ui {

namespace {
QLineEdit *passwordField(QWidget *parent)
{
    auto *e = new QLineEdit(parent);
    e->setEchoMode(QLineEdit::Password);
    return e;
}
constexpr int kMinPassphrase = 8;
} // namespace

VaultDialog::VaultDialog(ApiClient *client, Mode mode, QWidget *parent) : QDialog(parent), m_client(client), m_mode(mode)
{
    auto *form = new QFormLayout(this);
    auto *intro = new QLabel(this);
    intro->setWordWrap(true);
    form->addRow(intro);
    if (mode == Mode::ChangePassphrase) {
        m_old = passwordField(this);
        form->addRow(tr("&Current passphrase:"), m_old);
    }
    m_passphrase = passwordField(this);
    form->addRow(mode == Mode::Unlock ? tr("&Passphrase:") : tr("&New passphrase:"), m_passphrase);
    if (mode != Mode::Unlock) {
        m_confirm = passwordField(this);
        form->addRow(tr("&Repeat it:"), m_confirm);
    }
    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    form->addRow(m_error);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    form->addRow(m_buttons);
    switch (mode) {
    case Mode::Init:
        setWindowTitle(tr("Create the vault"));
        intro->setText(tr("The vault keeps your secrets encrypted on this machine. Choose a passphrase; "
                          "without it the secrets cannot be recovered."));
        m_buttons->button(QDialogButtonBox::Ok)->setText(tr("C&reate vault"));
        break;
    case Mode::Unlock:
        setWindowTitle(tr("Unlock the vault"));
        intro->setText(tr("Sandboxes can use their secrets only while the vault is unlocked."));
        m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Unlock"));
        break;
    case Mode::ChangePassphrase:
        setWindowTitle(tr("Change the vault passphrase"));
        intro->setText(tr("The secrets stay as they are; only the passphrase that unlocks them changes."));
        break;
    }
    connect(m_buttons, &QDialogButtonBox::accepted, this, &VaultDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void VaultDialog::accept()
{
    if (m_mode != Mode::Unlock) {
        if (m_passphrase->text().size() < kMinPassphrase) {
            m_error->setText(tr("Use at least %1 characters.").arg(kMinPassphrase));
            return;
        }
        if (m_passphrase->text() != m_confirm->text()) {
            m_error->setText(tr("The two passphrases differ; type them again."));
            m_confirm->clear();
            m_confirm->setFocus();
            return;
        }
    }
    if (!m_client)
        return;
    QString method;
    QJsonObject params;
    switch (m_mode) {
    case Mode::Init:
        method = QStringLiteral("vault.init");
        params = {{QStringLiteral("passphrase"), m_passphrase->text()}};
        break;
    case Mode::Unlock:
        method = QStringLiteral("vault.unlock");
        params = {{QStringLiteral("passphrase"), m_passphrase->text()}};
        break;
    case Mode::ChangePassphrase:
        method = QStringLiteral("vault.change_passphrase");
        params = {{QStringLiteral("old"), m_old->text()}, {QStringLiteral("new"), m_passphrase->text()}};
        break;
    }
    m_buttons->setEnabled(false);
    m_error->setText(tr("Working…"));
    m_client->call(method, params, this, [this](const ApiClient::Reply &r) {
        m_buttons->setEnabled(true);
        if (!r.ok) {
            m_error->setText(r.errorCode == -32601 ? tr("This airlockd has no vault yet.") : r.errorMessage);
            m_passphrase->selectAll();
            m_passphrase->setFocus();
            return;
        }
        m_passphrase->clear();
        if (m_confirm)
            m_confirm->clear();
        QDialog::accept();
    });
}

} // namespace airlock::ui
