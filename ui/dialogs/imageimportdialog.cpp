#include "dialogs/imageimportdialog.h"
#include "api/apiclient.h"
#include "common/workspacejob.h"
#include "connection/daemonconnection.h"
#include "widgets/jobstatus.h"
#include "workspace/devcontainer.h"
#include "workspace/imageupload.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace airlock::ui {

namespace {
enum Kind { OciLayout, DockerArchive, Dockerfile, Devcontainer }; // the rows of the kind box
}

ImageImportDialog::ImageImportDialog(DaemonConnection *connection, QWidget *parent) : QDialog(parent), m_client(connection->client())
{
    setWindowTitle(tr("Import image"));
    setMinimumWidth(640);
    auto *form = new QFormLayout(this);
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("e.g. mynode"));
    form->addRow(tr("Image &name:"), m_name);
    m_kind = new QComboBox(this);
    m_kind->addItem(tr("OCI layout directory (skopeo copy … oci:DIR, podman save --format oci-dir)"));
    m_kind->addItem(tr("Docker archive file (docker save, podman save)"));
    m_kind->addItem(tr("Dockerfile (built offline; its folder is the build context)"));
    m_kind->addItem(tr("Dev container (a project folder with .devcontainer/devcontainer.json)"));
    form->addRow(tr("&From:"), m_kind);
    auto *pathRow = new QHBoxLayout;
    m_path = new QLineEdit(this);
    m_path->setPlaceholderText(tr("DIR or FILE; add :TAG to pick one image of several"));
    m_browse = new QPushButton(tr("&Browse…"), this);
    pathRow->addWidget(m_path);
    pathRow->addWidget(m_browse);
    auto *pathLabel = new QLabel(tr("&Path:"), this);
    pathLabel->setBuddy(m_path); // a row of a layout has no buddy of its own
    form->addRow(pathLabel, pathRow);
    auto *note = new QLabel(tr("Its ENV and WORKDIR hold in the sandbox; the console runs its ENTRYPOINT and CMD as its USER. "
                               "Airlock's guest side is added in /.airlock; nothing of an image runs on this computer, except a Dockerfile's "
                               "RUN steps, in containers without network."),
                            this);
    note->setWordWrap(true);
    form->addRow(note);
    m_status = new JobStatus(this);
    form->addRow(m_status);
    auto *buttons = new QDialogButtonBox(this);
    m_import = buttons->addButton(tr("&Import"), QDialogButtonBox::AcceptRole);
    m_close = buttons->addButton(QDialogButtonBox::Close);
    form->addRow(buttons);
    connect(m_browse, &QPushButton::clicked, this, &ImageImportDialog::browse);
    connect(m_import, &QPushButton::clicked, this, &ImageImportDialog::startImport);
    connect(m_close, &QPushButton::clicked, this, &ImageImportDialog::reject);
    connect(connection, &DaemonConnection::imageProgress, this, &ImageImportDialog::onProgress);
    setImporting({});
}

QString ImageImportDialog::message() const
{
    return m_status->message();
}

QProgressBar *ImageImportDialog::progressBar() const
{
    return m_status->progressBar();
}

void ImageImportDialog::setImporting(const QString &name)
{
    m_importing = name;
    for (QWidget *w : {static_cast<QWidget *>(m_name), static_cast<QWidget *>(m_kind), static_cast<QWidget *>(m_path),
                       static_cast<QWidget *>(m_browse), static_cast<QWidget *>(m_import), static_cast<QWidget *>(m_close)})
        w->setEnabled(name.isEmpty());
}

void ImageImportDialog::browse()
{
    QString picked;
    switch (m_kind->currentIndex()) {
    case OciLayout: picked = QFileDialog::getExistingDirectory(this, tr("OCI layout directory"), m_path->text()); break;
    case DockerArchive:
        picked = QFileDialog::getOpenFileName(this, tr("Docker archive"), m_path->text(), tr("Archives (*.tar);;All files (*)"));
        break;
    case Dockerfile: picked = QFileDialog::getOpenFileName(this, tr("Dockerfile"), m_path->text()); break;
    case Devcontainer: picked = QFileDialog::getExistingDirectory(this, tr("Project folder"), m_path->text()); break;
    }
    if (!picked.isEmpty())
        m_path->setText(picked);
}

void ImageImportDialog::startImport()
{
    const QString name = m_name->text().trimmed();
    const QString path = m_path->text().trimmed();
    if (name.isEmpty() || path.isEmpty()) {
        m_status->setMessage(tr("Give the image a name and say where it is."));
        return;
    }
    if (!m_client)
        return;
    using workspace::ImageSource;
    const int kind = m_kind->currentIndex();
    setImporting(name);
    m_status->started(tr("uploading %p%"), tr("Importing %1…").arg(name));
    // Opened on the job's thread: reading an OCI directory runs tar (a QProcess of that thread).
    WorkspaceJob *job = WorkspaceJob::start(m_client->address(), [name, kind, path](BlockingClient &client, const workspace::Progress &progress)
                                                                     -> Result<QJsonObject> {
        Result<std::unique_ptr<ImageSource>> source = kind == OciLayout       ? ImageSource::open(ImageSource::Kind::OciLayout, path)
                                                      : kind == DockerArchive ? ImageSource::open(ImageSource::Kind::DockerArchive, path)
                                                      : kind == Dockerfile    ? ImageSource::openDockerfile(path)
                                                                              : workspace::openDevcontainer(path);
        if (!source)
            return source.error();
        return workspace::uploadImage(client, name, *source.value(), progress);
    });
    connect(job, &WorkspaceJob::progress, this, [this](const QString &message, int percent) { m_status->step(percent, message); });
    connect(job, &WorkspaceJob::finished, this, [this, name](bool ok, const QJsonObject &, const QString &error) {
        setImporting({});
        if (ok)
            m_status->succeeded(tr("Image %1 is ready: choose it in New sandbox.").arg(name));
        else
            m_status->failed(tr("Image %1 was not imported: %2").arg(name, error));
    });
}

// The import's own steps (after the upload) fill the second half of the bar.
void ImageImportDialog::onProgress(const proto::ImageProgress &progress)
{
    if (progress.name != m_importing || progress.phase == QLatin1String("failed"))
        return;
    m_status->step(50 + progress.percent / 2, progress.message);
}

void ImageImportDialog::reject()
{
    if (!m_importing.isEmpty()) // the upload's job would post into a closed dialog: wait for it
        return;
    QDialog::reject();
}

} // namespace airlock::ui
