#include "dialogs/newsandboxdialog.h"
#include "api/apiclient.h"
#include "common/workspacejob.h"
#include "models/egresspresets.h"
#include "workspace/workspaceimport.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QFormLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <memory>

namespace airlock::ui {

namespace {
constexpr int kTemplateRole = Qt::UserRole + 1; // the template as template.list describes it
}

NewSandboxDialog::NewSandboxDialog(ApiClient *client, QWidget *parent) : QDialog(parent), m_client(client)
{
    setWindowTitle(tr("New sandbox"));
    auto *form = new QFormLayout(this);
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("e.g. agent-1"));
    m_name->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[a-z0-9][a-z0-9-]{0,62}")), m_name));
    m_template = new QComboBox(this);
    m_template->addItem(tr("None (a plain sandbox)"), QString()); // the daemon's templates follow (loadChoices)
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
    // Preset descriptions are long: sized by them, the combo squeezed the label column
    // ("Egress pres"). The popup still shows them whole.
    m_preset->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_preset->setMinimumContentsLength(24);
    m_secrets = new QListWidget(this);
    m_secrets->setMaximumHeight(90);
    m_secrets->setAccessibleName(tr("Secrets to lend"));
    m_start = new QCheckBox(tr("&Start it now"), this);
    m_start->setChecked(true);
    m_workspace = new QLineEdit(this);
    m_workspace->setPlaceholderText(tr("none: an empty sandbox"));
    m_workspace->setToolTip(tr("A git repository on this computer. Its commits are copied into the sandbox's "
                               "/workspace as a git bundle (never shared or mounted); uncommitted changes stay here."));
    m_workspace->setAccessibleName(tr("Workspace repository"));
    m_browse = new QPushButton(tr("&Browse…"), this);
    connect(m_browse, &QPushButton::clicked, this, &NewSandboxDialog::chooseWorkspace);
    // The clone needs a running guest: a workspace means "start it now".
    connect(m_workspace, &QLineEdit::textChanged, this, [this](const QString &text) {
        const bool withWorkspace = !text.trimmed().isEmpty();
        if (withWorkspace)
            m_start->setChecked(true);
        m_start->setEnabled(!withWorkspace);
    });
    auto *workspaceRow = new QHBoxLayout;
    workspaceRow->addWidget(m_workspace, 1);
    workspaceRow->addWidget(m_browse);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 100);
    m_progress->hide();
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
    auto *workspaceLabel = new QLabel(tr("&Workspace:"), this);
    workspaceLabel->setBuddy(m_workspace);
    form->addRow(workspaceLabel, workspaceRow);
    form->addRow(QString(), m_start);
    form->addRow(m_progress);
    form->addRow(m_error);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("C&reate"));
    form->addRow(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &NewSandboxDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    setMinimumWidth(480);
    loadChoices();
}

void NewSandboxDialog::loadChoices()
{
    if (!m_client)
        return;
    m_client->call(QStringLiteral("template.list"), {}, this, [this](const ApiClient::Reply &r) {
        if (!r.ok)
            return;
        for (const QJsonValue &v : r.result.toArray()) {
            const QJsonObject t = v.toObject();
            m_template->addItem(t.value(QLatin1String("name")).toString(), t.value(QLatin1String("name")).toString());
            m_template->setItemData(m_template->count() - 1, t.value(QLatin1String("description")).toString(), Qt::ToolTipRole);
            m_template->setItemData(m_template->count() - 1, t, kTemplateRole);
        }
    });
    // A template brings its own resources; they stay editable.
    connect(m_template, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QJsonObject t = m_template->itemData(index, kTemplateRole).toJsonObject();
        if (t.isEmpty())
            return;
        m_cpus->setValue(t.value(QLatin1String("cpus")).toInt(m_cpus->value()));
        m_memory->setValue(t.value(QLatin1String("memory_mib")).toInt(m_memory->value()));
        m_disk->setValue(t.value(QLatin1String("disk_gib")).toInt(m_disk->value()));
    });
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
    if (const QString repo = m_workspace->text().trimmed(); !repo.isEmpty())
        return createWithWorkspace(repo);
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
        m_created = r.result.toObject();
        if (preset.isEmpty())
            return QDialog::accept();
        applyPreset(preset, start);
    });
}

void NewSandboxDialog::reject()
{
    if (!m_cancel)
        return QDialog::reject();
    // The job stops at its next step and removes the sandbox; the dialog closes when it has.
    m_cancel->store(true);
    m_error->setText(tr("Cancelling: removing the sandbox again…"));
}

void NewSandboxDialog::chooseWorkspace()
{
    const QString start = m_workspace->text().isEmpty() ? QDir::homePath() : m_workspace->text();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Choose a git repository"), start);
    if (!dir.isEmpty())
        m_workspace->setText(QDir::toNativeSeparators(dir));
}

void NewSandboxDialog::createWithWorkspace(const QString &repoPath)
{
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false); // Cancel stays: it stops the copy
    m_workspace->setEnabled(false);
    m_browse->setEnabled(false);
    m_progress->setValue(0);
    m_progress->show();
    m_error->setText(tr("Creating the sandbox and copying %1 into it…").arg(repoPath));
    m_error->show();
    const QJsonObject params = createParams();
    auto cancel = std::make_shared<std::atomic_bool>(false);
    m_cancel = cancel;
    WorkspaceJob *job = WorkspaceJob::start(m_client->socketPath(), [params, repoPath, cancel](BlockingClient &client, const workspace::Progress &progress) {
        return workspace::createWithWorkspace(client, params, repoPath, progress, [cancel] { return cancel->load(); });
    });
    connect(job, &WorkspaceJob::progress, this, [this](const QString &message, int percent) {
        m_progress->setValue(percent);
        m_error->setText(message);
    });
    connect(job, &WorkspaceJob::finished, this, [this](bool ok, const QJsonObject &result, const QString &error) {
        const bool cancelled = m_cancel && m_cancel->load();
        m_cancel.reset();
        m_buttons->button(QDialogButtonBox::Ok)->setEnabled(true);
        m_workspace->setEnabled(true);
        m_browse->setEnabled(true);
        m_progress->hide();
        if (cancelled && !ok)
            return QDialog::reject();
        if (!ok) {
            m_error->setText(tr("Could not create the sandbox: %1").arg(error));
            return;
        }
        m_created = result;
        // The copy needs the guest running, so a preset's rules follow its start here.
        if (const QString preset = m_preset->currentData().toString(); !preset.isEmpty())
            return applyPreset(preset, false);
        QDialog::accept();
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
