#include "dialogs/newsandboxdialog.h"
#include "api/apiclient.h"
#include "common/workspacejob.h"
#include "common/replies.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"
#include "protocol/vault.h"
#include "widgets/checkpointschedulefields.h"
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
constexpr int kParametersRole = Qt::UserRole + 1; // a preset's parameters: name -> what its value is
}

NewSandboxDialog::NewSandboxDialog(ApiClient *client, QWidget *parent) : QDialog(parent), m_client(client)
{
    setWindowTitle(tr("New sandbox"));
    auto *form = new QFormLayout(this);
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("e.g. agent-1"));
    m_name->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[a-z0-9][a-z0-9-]{0,62}")), m_name));
    m_template = new QComboBox(this);
    m_template->addItem(tr("None (a plain sandbox)"), QString()); // the daemon's templates follow (loadTemplates)
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
    m_preset->addItem(tr("None: ask for every host"), QString()); // the daemon's presets follow (loadPresets)
    m_preset->setAccessibleName(tr("Egress preset"));
    // Preset descriptions are long: sized by them, the combo squeezed the label column
    // ("Egress pres"). The popup still shows them whole.
    m_preset->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_preset->setMinimumContentsLength(24);
    m_presetValues = new QLineEdit(this);
    m_presetValues->setAccessibleName(tr("Preset parameters"));
    m_secrets = new QListWidget(this);
    m_secrets->setMaximumHeight(90);
    m_secrets->setAccessibleName(tr("Secrets to lend"));
    m_start = new QCheckBox(tr("&Start it now"), this);
    m_start->setChecked(true);
    m_ephemeral = new QCheckBox(tr("E&phemeral: removed, disk and all, once it stops"), this);
    m_ephemeral->setToolTip(tr("Nothing of it is kept after it stops, not even snapshots. Take its commits before you stop it "
                               "(Sandbox > Export changes…)."));
    m_schedule = new CheckpointScheduleFields(this);
    m_schedule->setToolTip(tr("While it runs, Airlock checkpoints it (memory and disk) this often and keeps the latest few: "
                              "a timeline on the Snapshots tab to go back in, with the agent still running."));
    // An ephemeral sandbox keeps no snapshots, so it has no schedule.
    connect(m_ephemeral, &QCheckBox::toggled, m_schedule, &QWidget::setDisabled);
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
    form->addRow(tr("Preset &values:"), m_presetValues);
    form->setRowVisible(m_presetValues, false);
    // A preset with parameters ("github-push-to-org") asks for their values ("org=myorg").
    connect(m_preset, &QComboBox::currentIndexChanged, this, [this, form] {
        const QVariantMap parameters = m_preset->currentData(kParametersRole).toMap();
        form->setRowVisible(m_presetValues, !parameters.isEmpty());
        QStringList placeholder, help;
        for (auto it = parameters.cbegin(); it != parameters.cend(); ++it) {
            placeholder << it.key() + QStringLiteral("=…");
            help << QStringLiteral("%1: %2").arg(it.key(), it.value().toString());
        }
        m_presetValues->setPlaceholderText(placeholder.join(QLatin1Char(',')));
        m_presetValues->setToolTip(help.join(QLatin1Char('\n')));
    });
    form->addRow(tr("S&ecrets:"), m_secrets);
    auto *workspaceLabel = new QLabel(tr("&Workspace:"), this);
    form->addRow(workspaceLabel, buildWorkspaceRow());
    workspaceLabel->setBuddy(m_workspace);
    auto *scheduleLabel = new QLabel(tr("Automatic c&heckpoints:"), this);
    scheduleLabel->setBuddy(m_schedule->everyBox());
    form->addRow(scheduleLabel, m_schedule);
    form->addRow(QString(), m_start);
    form->addRow(QString(), m_ephemeral);
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

// A host repository to copy in; the clone needs a running guest, so it means "start it now".
QWidget *NewSandboxDialog::buildWorkspaceRow()
{
    auto *row = new QWidget(this);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    m_workspace = new QLineEdit(row);
    m_workspace->setPlaceholderText(tr("none: an empty sandbox"));
    m_workspace->setToolTip(tr("A git repository on this computer. Its commits are copied into the sandbox's "
                               "/workspace as a git bundle (never shared or mounted); uncommitted changes stay here."));
    m_workspace->setAccessibleName(tr("Workspace repository"));
    m_browse = new QPushButton(tr("&Browse…"), row);
    connect(m_browse, &QPushButton::clicked, this, &NewSandboxDialog::chooseWorkspace);
    connect(m_workspace, &QLineEdit::textChanged, this, [this](const QString &text) {
        const bool withWorkspace = !text.trimmed().isEmpty();
        if (withWorkspace)
            m_start->setChecked(true);
        m_start->setEnabled(!withWorkspace);
    });
    layout->addWidget(m_workspace, 1);
    layout->addWidget(m_browse);
    return row;
}

void NewSandboxDialog::loadChoices()
{
    if (!m_client)
        return;
    loadTemplates();
    loadPresets();
    m_client->call(proto::method::ImageList, {}, this, [this](const ApiClient::Reply &r) {
        const Result<QList<proto::ImageInfo>> images = replyListAs<proto::ImageInfo>(r);
        if (!images)
            return;
        for (const proto::ImageInfo &image : images.value())
            m_image->addItem(image.name, image.name);
    });
    m_client->call(proto::method::SecretList, {}, this, [this](const ApiClient::Reply &r) {
        const Result<QList<proto::SecretInfo>> secrets = replyListAs<proto::SecretInfo>(r);
        if (!secrets) {
            m_secrets->addItem(tr("(no secrets available)"));
            m_secrets->setEnabled(false);
            return;
        }
        for (const proto::SecretInfo &secret : secrets.value()) {
            auto *item = new QListWidgetItem(secret.name, m_secrets);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(Qt::Unchecked);
        }
    });
}

void NewSandboxDialog::loadTemplates()
{
    m_client->call(proto::method::TemplateList, {}, this, [this](const ApiClient::Reply &r) {
        const Result<QList<proto::TemplateInfo>> templates = replyListAs<proto::TemplateInfo>(r);
        if (!templates)
            return;
        m_templates = templates.value();
        for (const proto::TemplateInfo &t : m_templates) {
            m_template->addItem(t.name, t.name);
            m_template->setItemData(m_template->count() - 1, t.description, Qt::ToolTipRole);
        }
    });
    connect(m_template, &QComboBox::currentIndexChanged, this, &NewSandboxDialog::applyTemplate);
}

// A template brings its own resources; they stay editable.
void NewSandboxDialog::applyTemplate(int index)
{
    if (index < 1 || index > m_templates.size())
        return;
    const proto::TemplateInfo &t = m_templates.at(index - 1);
    m_cpus->setValue(t.cpus > 0 ? t.cpus : m_cpus->value());
    m_memory->setValue(t.memoryMib > 0 ? t.memoryMib : m_memory->value());
    m_disk->setValue(t.diskGib > 0 ? t.diskGib : m_disk->value());
}

// The presets of the daemon this dialog talks to (a remote host's are that host's).
void NewSandboxDialog::loadPresets()
{
    m_client->call(proto::method::PresetList, {}, this, [this](const ApiClient::Reply &r) {
        const Result<QList<proto::PresetInfo>> presets = replyListAs<proto::PresetInfo>(r);
        if (!presets) {
            m_preset->setItemData(0, tr("This airlockd offers no presets: %1").arg(presets.error().message()), Qt::ToolTipRole);
            return;
        }
        for (const proto::PresetInfo &preset : presets.value()) {
            QStringList hosts;
            for (const proto::PresetRuleInfo &rule : preset.rules)
                hosts << (rule.port ? QStringLiteral("%1:%2").arg(rule.host).arg(rule.port) : rule.host) +
                             (rule.request.isEmpty() ? QString() : QLatin1Char(' ') + rule.request);
            m_preset->addItem(QStringLiteral("%1: %2").arg(preset.name, preset.description), preset.name);
            m_preset->setItemData(m_preset->count() - 1, tr("Allows %1").arg(hosts.join(QStringLiteral(", "))), Qt::ToolTipRole);
            QVariantMap parameters;
            for (auto it = preset.parameters.cbegin(); it != preset.parameters.cend(); ++it)
                parameters.insert(it.key(), it.value());
            m_preset->setItemData(m_preset->count() - 1, parameters, kParametersRole);
        }
    });
}

QJsonObject NewSandboxDialog::createParams() const
{
    proto::SandboxCreateParams p;
    p.name = m_name->text();
    p.cpus = m_cpus->value();
    p.memoryMib = m_memory->value();
    p.diskGib = m_disk->value();
    p.start = m_start->isChecked();
    p.ephemeral = m_ephemeral->isChecked();
    if (const int every = m_schedule->everySeconds(); every && !p.ephemeral) {
        p.checkpointEverySeconds = every;
        p.checkpointKeep = m_schedule->keep();
    }
    if (const QString t = m_template->currentData().toString(); !t.isEmpty())
        p.templateName = t;
    if (const QString image = m_image->currentData().toString(); !image.isEmpty())
        p.image = image;
    if (const QString preset = m_preset->currentData().toString(); !preset.isEmpty()) {
        const QString values = m_presetValues->text().trimmed();
        p.presets = {values.isEmpty() || m_preset->currentData(kParametersRole).toMap().isEmpty() ? preset : preset + QLatin1Char(':') + values};
    }
    for (int i = 0; i < m_secrets->count(); ++i)
        if (m_secrets->item(i)->checkState() == Qt::Checked)
            p.secrets.append(proto::SecretLoan{m_secrets->item(i)->text(), std::nullopt});
    return p.toJson();
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
    m_client->call(proto::method::SandboxCreate, createParams(), this, [this](const ApiClient::Reply &r) {
        if (!r.ok) {
            m_buttons->setEnabled(true);
            m_error->setText(tr("Could not create the sandbox: %1").arg(r.errorMessage));
            return;
        }
        m_created = r.result.toObject();
        QDialog::accept();
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
    WorkspaceJob *job = WorkspaceJob::start(m_client->address(), [params, repoPath, cancel](BlockingClient &client, const workspace::Progress &progress) {
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
        QDialog::accept();
    });
}

QString NewSandboxDialog::errorText() const
{
    return m_error->text();
}

} // namespace airlock::ui
