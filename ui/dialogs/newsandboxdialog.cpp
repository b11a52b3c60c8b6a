#include "dialogs/newsandboxdialog.h"
#include "api/apiclient.h"
#include "models/egresspresets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <memory>

namespace airlock::ui {

NewSandboxDialog::NewSandboxDialog(ApiClient *client, QWidget *parent) : QDialog(parent), m_client(client)
{
    setWindowTitle(tr("New sandbox"));
    auto *form = new QFormLayout(this);
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("e.g. agent-1"));
    m_name->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[a-z0-9][a-z0-9-]{0,62}")), m_name));
    m_template = new QComboBox(this);
    m_template->addItem(tr("Plain shell"), QString());
    m_template->addItem(QStringLiteral("Claude Code"), QStringLiteral("claude-code"));
    m_template->addItem(QStringLiteral("Codex"), QStringLiteral("codex"));
    m_template->addItem(QStringLiteral("OpenHands"), QStringLiteral("openhands"));
    m_image = new QComboBox(this);
    m_image->addItem(tr("Default image"), QString());
    m_cpus = new QSpinBox(this);
    m_cpus->setRange(1, 64);
    m_cpus->setValue(2);
    m_memory = new QSpinBox(this);
    m_memory->setRange(128, 262144);
    m_memory->setSingleStep(256);
    m_memory->setValue(2048);
    m_memory->setSuffix(tr(" MiB"));
    m_disk = new QSpinBox(this);
    m_disk->setRange(1, 4096);
    m_disk->setValue(10);
    m_disk->setSuffix(tr(" GiB"));
    m_preset = new QComboBox(this);
    m_preset->addItem(tr("None: ask for every host"), QString());
    for (const EgressPreset &preset : EgressPreset::load()) {
        QStringList hosts;
        for (const EgressPreset::Rule &r : preset.rules)
            hosts << (r.port ? QStringLiteral("%1:%2").arg(r.host).arg(r.port) : r.host);
        m_preset->addItem(QStringLiteral("%1: %2").arg(preset.name, preset.description), preset.name);
        m_preset->setItemData(m_preset->count() - 1, tr("Allows %1").arg(hosts.join(QStringLiteral(", "))), Qt::ToolTipRole);
    }
    m_preset->setAccessibleName(tr("Egress preset"));
    m_secrets = new QListWidget(this);
    m_secrets->setMaximumHeight(90);
    m_secrets->setAccessibleName(tr("Secrets to lend"));
    m_start = new QCheckBox(tr("&Start it now"), this);
    m_start->setChecked(true);
    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->hide();
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Template:"), m_template);
    form->addRow(tr("&Image:"), m_image);
    form->addRow(tr("&CPUs:"), m_cpus);
    form->addRow(tr("&Memory:"), m_memory);
    form->addRow(tr("&Disk:"), m_disk);
    form->addRow(tr("E&gress preset:"), m_preset);
    form->addRow(tr("S&ecrets:"), m_secrets);
    form->addRow(QString(), m_start);
    form->addRow(m_error);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("C&reate"));
    form->addRow(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &NewSandboxDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    loadChoices();
}

void NewSandboxDialog::loadChoices()
{
    if (!m_client)
        return;
    m_client->call(QStringLiteral("image.list"), {}, this, [this](const ApiClient::Reply &r) {
        if (!r.ok)
            return;
        for (const QJsonValue &v : r.result.toArray()) {
            const QString name = v.toObject().value(QLatin1String("name")).toString();
            m_image->addItem(name, name);
        }
    });
    m_client->call(QStringLiteral("secret.list"), {}, this, [this](const ApiClient::Reply &r) {
        if (!r.ok) {
            m_secrets->addItem(tr("(no secrets available)"));
            m_secrets->setEnabled(false);
            return;
        }
        for (const QJsonValue &v : r.result.toArray()) {
            auto *item = new QListWidgetItem(v.toObject().value(QLatin1String("name")).toString(), m_secrets);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(Qt::Unchecked);
        }
    });
}

QJsonObject NewSandboxDialog::createParams() const
{
    QJsonObject p{{QStringLiteral("name"), m_name->text()},
                  {QStringLiteral("cpus"), m_cpus->value()},
                  {QStringLiteral("memory_mib"), m_memory->value()},
                  {QStringLiteral("disk_gib"), m_disk->value()},
                  {QStringLiteral("start"), m_start->isChecked()}};
    if (!m_template->currentData().toString().isEmpty())
        p.insert(QStringLiteral("template"), m_template->currentData().toString());
    if (!m_image->currentData().toString().isEmpty())
        p.insert(QStringLiteral("image"), m_image->currentData().toString());
    QJsonArray secrets;
    for (int i = 0; i < m_secrets->count(); ++i)
        if (m_secrets->item(i)->checkState() == Qt::Checked)
            secrets.append(QJsonObject{{QStringLiteral("secret"), m_secrets->item(i)->text()}});
    if (!secrets.isEmpty())
        p.insert(QStringLiteral("secrets"), secrets);
    return p;
}

void NewSandboxDialog::accept()
{
    if (m_name->text().isEmpty()) {
        m_error->setText(tr("Give the sandbox a name: lower-case letters, digits and '-'."));
        m_error->show();
        m_name->setFocus();
        return;
    }
    if (!m_client)
        return;
    m_buttons->setEnabled(false);
    m_error->setText(tr("Creating…"));
    m_error->show();
    QJsonObject params = createParams();
    const QString preset = m_preset->currentData().toString();
    const bool start = m_start->isChecked();
    if (!preset.isEmpty())
        params.insert(QStringLiteral("start"), false); // started once its rules are in
    m_client->call(QStringLiteral("sandbox.create"), params, this, [this, preset, start](const ApiClient::Reply &r) {
        if (!r.ok) {
            m_buttons->setEnabled(true);
            m_error->setText(tr("Could not create the sandbox: %1").arg(r.errorMessage));
            return;
        }
        if (preset.isEmpty())
            return QDialog::accept();
        applyPreset(preset, start);
    });
}

QString NewSandboxDialog::errorText() const
{
    return m_error->text();
}

void NewSandboxDialog::applyPreset(const QString &name, bool start)
{
    QList<EgressPreset::Rule> rules;
    for (const EgressPreset &p : EgressPreset::load())
        if (p.name == name)
            rules = p.rules;
    const QString sandbox = m_name->text();
    m_error->setText(tr("Adding the rules of %1…").arg(name));
    auto remaining = std::make_shared<int>(int(rules.size()));
    auto failures = std::make_shared<QStringList>();
    auto finish = [this, sandbox, start, failures] {
        if (!failures->isEmpty()) {
            m_buttons->setEnabled(true);
            m_error->setText(tr("%1 was created but not started: some rules of the preset were refused (%2). "
                                "Add them in its Settings tab, then start it.").arg(sandbox, failures->join(QStringLiteral("; "))));
            return;
        }
        if (!start)
            return QDialog::accept();
        m_error->setText(tr("Starting %1…").arg(sandbox));
        m_client->call(QStringLiteral("sandbox.start"), {{QStringLiteral("name"), sandbox}}, this, [this, sandbox](const ApiClient::Reply &r) {
            m_buttons->setEnabled(true);
            if (!r.ok) {
                m_error->setText(tr("%1 was created with its rules but did not start: %2").arg(sandbox, r.errorMessage));
                return;
            }
            QDialog::accept();
        });
    };
    for (const EgressPreset::Rule &rule : rules) {
        QJsonObject params{{QStringLiteral("sandbox"), sandbox}, {QStringLiteral("action"), QStringLiteral("allow")},
                           {QStringLiteral("host"), rule.host}};
        if (rule.port > 0)
            params.insert(QStringLiteral("port"), rule.port);
        m_client->call(QStringLiteral("rule.add"), params, this, [rule, remaining, failures, finish](const ApiClient::Reply &r) {
            if (!r.ok)
                failures->append(QStringLiteral("%1: %2").arg(rule.host, r.errorMessage));
            if (--*remaining == 0)
                finish();
        });
    }
    if (rules.isEmpty())
        finish();
}

} // namespace airlock::ui
