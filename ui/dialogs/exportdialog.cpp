#include "dialogs/exportdialog.h"
#include "common/workspacejob.h"
#include "workspace/workspaceexport.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>

namespace airlock::ui {

ExportDialog::ExportDialog(const DaemonAddress &daemon, const QString &sandbox, QWidget *parent)
    : QDialog(parent), m_daemon(daemon), m_sandbox(sandbox)
{
    setWindowTitle(tr("Export changes from %1").arg(sandbox));
    auto *form = new QFormLayout(this);
    auto *intro = new QLabel(tr("Brings the commits made in the sandbox's /workspace since it started back to this "
                                "computer, for you to review and apply. Your repository is not touched."), this);
    intro->setWordWrap(true);
    form->addRow(intro);
    m_format = new QComboBox(this);
    m_format->addItem(tr("Git bundle (fetch from it)"), QStringLiteral("bundle"));
    m_format->addItem(tr("Patch series (git am)"), QStringLiteral("patches"));
    m_dest = new QLineEdit(this);
    m_dest->setAccessibleName(tr("Destination"));
    m_browse = new QPushButton(tr("&Browse…"), this);
    auto *destRow = new QHBoxLayout;
    destRow->addWidget(m_dest, 1);
    destRow->addWidget(m_browse);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 100);
    m_progress->hide();
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(tr("&Format:"), m_format);
    auto *destLabel = new QLabel(tr("&Save to:"), this);
    destLabel->setBuddy(m_dest);
    form->addRow(destLabel, destRow);
    form->addRow(m_progress);
    form->addRow(m_message);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_export = m_buttons->addButton(tr("&Export"), QDialogButtonBox::AcceptRole);
    m_export->setDefault(true);
    form->addRow(m_buttons);
    connect(m_browse, &QPushButton::clicked, this, &ExportDialog::chooseDestination);
    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::suggestDestination);
    connect(m_export, &QPushButton::clicked, this, &ExportDialog::startExport);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    suggestDestination();
    resize(560, sizeHint().height());
}

void ExportDialog::suggestDestination()
{
    // Next to the user's other files, never inside a repository's .git.
    const bool bundle = m_format->currentData().toString() == QLatin1String("bundle");
    m_dest->setText(QDir::toNativeSeparators(QDir::home().filePath(bundle ? m_sandbox + QStringLiteral(".bundle")
                                                                          : m_sandbox + QStringLiteral("-patches"))));
}

void ExportDialog::chooseDestination()
{
    const bool bundle = m_format->currentData().toString() == QLatin1String("bundle");
    const QString chosen = bundle ? QFileDialog::getSaveFileName(this, tr("Save the bundle as"), m_dest->text(), tr("Git bundles (*.bundle)"))
                                  : QFileDialog::getExistingDirectory(this, tr("An empty directory for the patches"), m_dest->text());
    if (!chosen.isEmpty())
        m_dest->setText(QDir::toNativeSeparators(chosen));
}

void ExportDialog::startExport()
{
    const QString dest = QDir::fromNativeSeparators(m_dest->text().trimmed());
    if (dest.isEmpty()) {
        m_message->setText(tr("Say where to save the export."));
        return;
    }
    const auto format = workspace::exportFormatFromString(m_format->currentData().toString()).value_or(workspace::ExportFormat::Bundle);
    m_export->setEnabled(false);
    m_browse->setEnabled(false);
    m_progress->setValue(0);
    m_progress->show();
    m_message->setText(tr("Exporting…"));
    WorkspaceJob *job = WorkspaceJob::start(m_daemon, [sandbox = m_sandbox, dest, format](BlockingClient &client, const workspace::Progress &progress) {
        return workspace::exportWorkspace(client, sandbox, dest, format, {}, progress);
    });
    connect(job, &WorkspaceJob::progress, this, [this](const QString &message, int percent) {
        m_progress->setValue(percent);
        m_message->setText(message);
    });
    connect(job, &WorkspaceJob::finished, this, [this, format](bool ok, const QJsonObject &result, const QString &error) {
        m_export->setEnabled(true);
        m_browse->setEnabled(true);
        m_progress->hide();
        if (!ok) {
            m_message->setText(tr("Nothing was exported: %1").arg(error));
            Q_EMIT exportFinished(false);
            return;
        }
        m_result = result;
        const int commits = result.value(QLatin1String("commits")).toInt();
        const QString path = result.value(QLatin1String("path")).toString();
        QString how = format == workspace::ExportFormat::Bundle
                          ? tr("Review: git fetch %1 %2, then git log -p HEAD..FETCH_HEAD; apply: git merge FETCH_HEAD.")
                                .arg(path, result.value(QLatin1String("branch")).toString().isEmpty()
                                               ? QStringLiteral("HEAD") : result.value(QLatin1String("branch")).toString())
                          : tr("Review the files, then apply in your repository: git am %1/*.patch").arg(path);
        QString text = (commits == 1 ? tr("Exported 1 commit to %1.").arg(path) : tr("Exported %1 commits to %2.").arg(commits).arg(path))
                       + QLatin1Char('\n') + how;
        if (const int n = result.value(QLatin1String("uncommitted")).toInt(); n > 0)
            text += QLatin1Char('\n') + tr("Uncommitted changes in the sandbox (%1 files) were not exported: commit them there first.").arg(n);
        m_message->setText(text);
        Q_EMIT exportFinished(true);
    });
}

} // namespace airlock::ui
