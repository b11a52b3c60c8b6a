#include "dialogs/secretsdialog.h"
#include "api/apiclient.h"
#include "common/replies.h"
#include "protocol/images.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"
#include "protocol/vault.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace airlock::ui {

SecretsDialog::SecretsDialog(ApiClient *client, QWidget *parent) : QDialog(parent), m_client(client)
{
    setWindowTitle(tr("Secrets"));
    auto *layout = new QVBoxLayout(this);
    m_table = new QTableWidget(0, 6, this);
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("Hosts"), tr("Header"), tr("Sign-in"), tr("Expires"), tr("Used by")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_table, 1);
    auto *remove = new QPushButton(tr("&Remove selected"), this);
    layout->addWidget(remove, 0, Qt::AlignLeft);

    auto *set = new QGroupBox(tr("Set a secret (the value can never be read back)"), this);
    auto *form = new QFormLayout(set);
    m_name = new QLineEdit(set);
    m_hosts = new QLineEdit(set);
    m_hosts->setPlaceholderText(tr("api.example.com, *.example.org"));
    m_header = new QLineEdit(QStringLiteral("Authorization: Bearer {}"), set);
    m_value = new QLineEdit(set);
    m_value->setEchoMode(QLineEdit::Password);
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Hosts:"), m_hosts);
    form->addRow(tr("Hea&der:"), m_header);
    form->addRow(tr("&Value:"), m_value);
    auto *save = new QPushButton(tr("&Save secret"), set);
    form->addRow(QString(), save);
    layout->addWidget(set);

    auto *login = new QGroupBox(tr("Sign an agent in (its tokens stay in the vault; the guest gets placeholders)"), this);
    auto *loginRow = new QHBoxLayout(login);
    m_signInTemplate = new QComboBox(login);
    m_signIn = new QPushButton(tr("Sign &in…"), login);
    m_signIn->setEnabled(false);
    m_signIn->setToolTip(tr("Runs the agent's sign-in in a throw-away sandbox whose terminal opens in the main window. "
                            "Open the address it shows in your browser and do what it asks (paste the code the page gives "
                            "back, or enter the code it shows); stop the sandbox when it is done. Every later sandbox of the "
                            "template starts signed in."));
    loginRow->addWidget(m_signInTemplate, 1);
    loginRow->addWidget(m_signIn);
    layout->addWidget(login);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    layout->addWidget(m_message);
    auto *close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    layout->addWidget(close);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(save, &QPushButton::clicked, this, &SecretsDialog::save);
    connect(remove, &QPushButton::clicked, this, &SecretsDialog::removeSelected);
    connect(m_signIn, &QPushButton::clicked, this, &SecretsDialog::signIn);
    resize(760, 520);
    reload();
    loadSignInTemplates();
}

QString SecretsDialog::messageText() const
{
    return m_message->text();
}

void SecretsDialog::loadSignInTemplates()
{
    if (!m_client)
        return;
    m_client->call(proto::method::TemplateList, {}, this, [this](const ApiClient::Reply &r) {
        const Result<QList<proto::TemplateInfo>> templates = replyListAs<proto::TemplateInfo>(r);
        if (!templates)
            return;
        for (const proto::TemplateInfo &t : templates.value())
            if (!t.login.isEmpty())
                m_signInTemplate->addItem(t.name);
        m_signIn->setEnabled(m_signInTemplate->count() > 0);
    });
}

void SecretsDialog::signIn()
{
    const QString templateName = m_signInTemplate->currentText();
    if (templateName.isEmpty() || !m_client)
        return;
    const QString name = proto::signInSandboxName(templateName);
    m_signIn->setEnabled(false);
    m_message->setText(tr("Starting the sign-in sandbox %1…").arg(name));
    proto::SandboxCreateParams p;
    p.name = name;
    p.templateName = templateName;
    p.start = true;
    p.ephemeral = true;
    p.signIn = true;
    m_client->call(proto::method::SandboxCreate, p.toJson(), this, [this, name](const ApiClient::Reply &r) {
        m_signIn->setEnabled(true);
        if (!r.ok) {
            m_message->setText(tr("Could not start the sign-in: %1").arg(r.errorMessage));
            return;
        }
        m_signInSandbox = name;
        accept(); // the main window shows its terminal
    });
}

void SecretsDialog::reload()
{
    if (!m_client)
        return;
    m_client->call(proto::method::SecretList, {}, this, [this](const ApiClient::Reply &r) {
        m_table->setRowCount(0);
        const Result<QList<proto::SecretInfo>> secrets = replyListAs<proto::SecretInfo>(r);
        if (!secrets) {
            m_message->setText(isMethodMissing(r) ? tr("This airlockd has no vault yet.") : secrets.error().message());
            return;
        }
        for (const proto::SecretInfo &s : secrets.value()) {
            const int row = m_table->rowCount();
            m_table->insertRow(row);
            m_table->setItem(row, 0, new QTableWidgetItem(s.name));
            m_table->setItem(row, 1, new QTableWidgetItem(s.hosts.join(QStringLiteral(", "))));
            m_table->setItem(row, 2, new QTableWidgetItem(s.header));
            m_table->setItem(row, 3, new QTableWidgetItem(s.login));
            m_table->setItem(row, 4, new QTableWidgetItem(s.expires));
            m_table->setItem(row, 5, new QTableWidgetItem(s.usedBy.join(QStringLiteral(", "))));
        }
    });
}

void SecretsDialog::save()
{
    QJsonArray hosts;
    for (const QString &h : m_hosts->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        hosts.append(h.trimmed());
    if (m_name->text().isEmpty() || hosts.isEmpty() || m_value->text().isEmpty()) {
        m_message->setText(tr("A secret needs a name, at least one host and a value."));
        return;
    }
    if (!m_client)
        return;
    m_client->call(QStringLiteral("secret.set"),
                   {{QStringLiteral("name"), m_name->text()},
                    {QStringLiteral("hosts"), hosts},
                    {QStringLiteral("header"), m_header->text()},
                    {QStringLiteral("value"), m_value->text()}},
                   this, [this](const ApiClient::Reply &r) {
                       m_message->setText(r.ok ? tr("Saved.") : tr("Could not save: %1").arg(r.errorMessage));
                       if (r.ok)
                           m_value->clear();
                       reload();
                   });
}

void SecretsDialog::removeSelected()
{
    const int row = m_table->currentRow();
    if (row < 0 || !m_client)
        return;
    m_client->call(QStringLiteral("secret.remove"), {{QStringLiteral("name"), m_table->item(row, 0)->text()}}, this,
                   [this](const ApiClient::Reply &r) {
                       if (!r.ok)
                           m_message->setText(tr("Could not remove: %1").arg(r.errorMessage));
                       reload();
                   });
}

} // namespace airlock::ui
