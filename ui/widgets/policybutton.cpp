#include "widgets/policybutton.h"
#include "api/apiclient.h"
#include "common/replies.h"
#include "dialogs/policyimportdialog.h"
#include "protocol/names.h"
#include "workspace/policyfiles.h"

#include <QDir>
#include <QFileDialog>
#include <QMenu>

namespace airlock::ui {

namespace {
const QString kFilter = QStringLiteral("Airlock policy (*.json);;All files (*)");
}

PolicyButton::PolicyButton(ApiClient *client, QWidget *parent) : QToolButton(parent), m_client(client)
{
    setText(tr("&Policy"));
    setAccessibleName(tr("Policy files"));
    setPopupMode(QToolButton::InstantPopup);
    auto *menu = new QMenu(this);
    menu->addAction(tr("Save this session's decisions…"), this, [this] { askPath(Source::SessionDecisions); });
    menu->addAction(tr("Export this sandbox's rules…"), this, [this] { askPath(Source::Rules); });
    menu->addSeparator();
    menu->addAction(tr("Import a policy…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Import a policy into %1").arg(m_sandbox), QDir::homePath(), kFilter);
        if (!path.isEmpty())
            if (PolicyImportDialog *dialog = importFrom(path))
                dialog->open();
    });
    setMenu(menu);
    setEnabled(false); // until setSandbox names one
}

void PolicyButton::askPath(Source source)
{
    if (m_sandbox.isEmpty())
        return;
    const QString suggested = QDir::home().filePath(m_sandbox + QStringLiteral("-policy.json"));
    const QString path = QFileDialog::getSaveFileName(this, source == Source::Rules ? tr("Export the rules of %1").arg(m_sandbox)
                                                                                    : tr("Save the decisions of %1").arg(m_sandbox),
                                                      suggested, kFilter);
    if (!path.isEmpty())
        saveTo(source, path);
}

void PolicyButton::saveTo(Source source, const QString &path)
{
    if (!m_client || m_sandbox.isEmpty())
        return;
    QJsonObject params;
    if (source == Source::Rules) {
        proto::PolicyScope scope;
        scope.sandbox = m_sandbox;
        params = scope.toJson();
    } else {
        params = proto::PolicyLearnParams{m_sandbox}.toJson();
    }
    const QLatin1String method = source == Source::Rules ? proto::method::PolicyExport : proto::method::PolicyLearn;
    m_client->call(method, params, this, [this, path](const ApiClient::Reply &r) {
        const Result<proto::PolicyText> text = replyAs<proto::PolicyText>(r);
        if (!text)
            return Q_EMIT finished(tr("No policy was saved: %1").arg(text.error().message()));
        if (Status s = writeTextFile(path, text->policy.toUtf8()); !s)
            return Q_EMIT finished(tr("No policy was saved: %1").arg(s.error().message()));
        QString message = tr("Saved %n rule(s) to %1.", nullptr, text->rules).arg(QDir::cleanPath(path));
        if (text->leftOut)
            message += QLatin1Char(' ') + tr("Left out %1.").arg(text->leftOutWhy);
        Q_EMIT finished(message);
    });
}

PolicyImportDialog *PolicyButton::importFrom(const QString &path)
{
    const Result<PolicyFileText> file = readPolicyFile(path);
    if (!file) {
        Q_EMIT finished(tr("Nothing was changed: %1").arg(file.error().message()));
        return nullptr;
    }
    auto *dialog = new PolicyImportDialog(m_client, m_sandbox, file->text, file->name, window());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PolicyImportDialog::applied, this, &PolicyButton::finished);
    return dialog;
}

} // namespace airlock::ui
