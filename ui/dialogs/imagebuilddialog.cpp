#include "dialogs/imagebuilddialog.h"
#include "api/apiclient.h"
#include "connection/daemonconnection.h"
#include "widgets/jobstatus.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QJsonObject>
#include <QLineEdit>
#include <QPushButton>

namespace airlock::ui {

ImageBuildDialog::ImageBuildDialog(DaemonConnection *connection, QWidget *parent) : QDialog(parent), m_client(connection->client())
{
    setWindowTitle(tr("Build image"));
    auto *form = new QFormLayout(this);
    m_recipe = new QLineEdit(QStringLiteral("tiny"), this);
    m_recipe->setToolTip(tr("A recipe in resources/images, e.g. tiny or agents"));
    form->addRow(tr("&Recipe:"), m_recipe);
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("same as the recipe"));
    form->addRow(tr("Image &name:"), m_name);
    m_status = new JobStatus(this);
    form->addRow(m_status);
    auto *buttons = new QDialogButtonBox(this);
    m_build = buttons->addButton(tr("&Build"), QDialogButtonBox::AcceptRole);
    m_cancel = buttons->addButton(tr("&Cancel build"), QDialogButtonBox::ActionRole);
    m_close = buttons->addButton(QDialogButtonBox::Close);
    form->addRow(buttons);
    connect(m_build, &QPushButton::clicked, this, &ImageBuildDialog::build);
    connect(m_cancel, &QPushButton::clicked, this, &ImageBuildDialog::cancelBuild);
    connect(m_close, &QPushButton::clicked, this, &ImageBuildDialog::reject);
    connect(connection, &DaemonConnection::imageProgress, this, &ImageBuildDialog::onProgress);
    setBuilding({});
}

QString ImageBuildDialog::message() const
{
    return m_status->message();
}

QProgressBar *ImageBuildDialog::progressBar() const
{
    return m_status->progressBar();
}

void ImageBuildDialog::setBuilding(const QString &name)
{
    m_building = name;
    m_build->setEnabled(name.isEmpty());
    m_recipe->setEnabled(name.isEmpty());
    m_name->setEnabled(name.isEmpty());
    m_cancel->setEnabled(!name.isEmpty());
    m_close->setEnabled(name.isEmpty());
}

void ImageBuildDialog::build()
{
    const QString recipe = m_recipe->text().trimmed();
    if (recipe.isEmpty()) {
        m_status->setMessage(tr("Name a recipe to build, e.g. tiny."));
        return;
    }
    if (!m_client)
        return;
    const QString name = m_name->text().trimmed().isEmpty() ? recipe : m_name->text().trimmed();
    QJsonObject params{{QStringLiteral("recipe"), recipe}};
    if (!m_name->text().trimmed().isEmpty())
        params.insert(QStringLiteral("name"), name);
    setBuilding(name);
    m_status->started(tr("starting %p%"), tr("Building %1…").arg(name));
    m_client->call(QStringLiteral("image.build"), params, this, [this, name](const ApiClient::Reply &r) {
        setBuilding({});
        if (r.ok)
            m_status->succeeded(tr("Image %1 is ready.").arg(name));
        else
            m_status->failed(tr("Image %1 was not built: %2").arg(name, r.errorMessage));
    });
}

void ImageBuildDialog::cancelBuild()
{
    if (m_building.isEmpty() || !m_client)
        return;
    m_cancel->setEnabled(false);
    m_status->setMessage(tr("Cancelling the build of %1…").arg(m_building));
    m_client->call(QStringLiteral("image.cancel"), {{QStringLiteral("name"), m_building}}, this, [this](const ApiClient::Reply &r) {
        if (!r.ok) // e.g. it had just finished; the build's own reply says how it ended
            m_status->setMessage(tr("Could not cancel: %1").arg(r.errorMessage));
    });
}

void ImageBuildDialog::onProgress(const proto::ImageProgress &progress)
{
    if (progress.name != m_building)
        return;
    m_status->step(progress.percent, progress.message);
}

void ImageBuildDialog::reject()
{
    if (!m_building.isEmpty()) // closing would leave a build running unseen: cancel it or wait
        return cancelBuild();
    QDialog::reject();
}

} // namespace airlock::ui
