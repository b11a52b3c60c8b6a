#include "dialogs/remotehostdialog.h"
#include "api/remotehosts.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>

namespace airlock::ui {

RemoteHostDialog::RemoteHostDialog(RemoteHosts *hosts, QWidget *parent) : QDialog(parent), m_hosts(hosts)
{
    setWindowTitle(tr("Add remote host"));
    auto *form = new QFormLayout(this);
    auto *intro = new QLabel(tr("Airlock talks to the airlockd of another machine over ssh. That machine needs airlockd "
                                "running and airlockctl installed; your ssh user must be allowed to use it."),
                             this);
    intro->setWordWrap(true);
    form->addRow(intro);
    m_name = new QLineEdit(this);
    form->addRow(tr("&Name:"), m_name);
    m_destination = new QLineEdit(this);
    m_destination->setPlaceholderText(tr("user@devbox"));
    form->addRow(tr("&SSH destination:"), m_destination);
    m_command = new QLineEdit(this);
    m_command->setMinimumWidth(420); // the whole command stays readable
    form->addRow(tr("&Command:"), m_command);
    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    form->addRow(m_error);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Add host"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &RemoteHostDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &RemoteHostDialog::reject);
    connect(m_destination, &QLineEdit::textEdited, this, [this](const QString &destination) {
        if (!m_commandEdited)
            m_command->setText(RemoteHosts::sshCommand(destination.trimmed()).join(QLatin1Char(' ')));
        if (m_name->text().isEmpty() || m_name->property("auto").toBool()) {
            m_name->setText(destination.trimmed().section(QLatin1Char('@'), -1));
            m_name->setProperty("auto", true);
        }
    });
    connect(m_name, &QLineEdit::textEdited, this, [this] { m_name->setProperty("auto", false); });
    connect(m_command, &QLineEdit::textEdited, this, [this] { m_commandEdited = true; });
}

QString RemoteHostDialog::errorText() const
{
    return m_error->text();
}

void RemoteHostDialog::accept()
{
    const QStringList command = QProcess::splitCommand(m_command->text());
    const QString error = m_hosts->add(m_name->text(), command);
    if (!error.isEmpty()) {
        m_error->setText(error);
        return;
    }
    QDialog::accept();
}

} // namespace airlock::ui
