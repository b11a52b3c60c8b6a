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
const QString kFilter = QStringLiteral("Airlock policy (*.json *.yaml *.yml);;All files (*)");
}

PolicyButton::PolicyButton(ApiClient *client, QWidget *parent) : QToolButton(parent), m_client(client)
{
    setText(tr("&Policy"));
    setAccessibleName(tr("Policy files"));
    setPopupMode(QToolButton::InstantPopup);
    auto *menu = new QMenu(this);
    m_sandboxActions = {menu->addAction(tr("Save this session's decisions…"), this, [this] { askPath(Source::SessionDecisions); }),
                        menu->addAction(tr("Export this sandbox's rules…"), this, [this] { askPath(Source::Rules); }),
                        menu->addAction(tr("Import a policy…"), this, [this] { askImport(Into::Sandbox); })};
    menu->addSeparator();
    menu->addAction(tr("Export the global rules…"), this, [this] { askPath(Source::GlobalRules); });
    menu->addAction(tr("Import a policy into the global rules…"), this, [this] { askImport(Into::GlobalRules); });
    setMenu(menu);
    setSandbox({});
}

void PolicyButton::setSandbox(const QString &sandbox)
{
    m_sandbox = sandbox;
    for (QAction *action : std::as_const(m_sandboxActions))
        action->setEnabled(!sandbox.isEmpty());
}

void PolicyButton::askPath(Source source)
{
    const bool global = source == Source::GlobalRules;
    if (!global && m_sandbox.isEmpty())
        return;
    const QString suggested = QDir::home().filePath((global ? QStringLiteral("global") : m_sandbox) + QStringLiteral("-policy.json"));
    const QString title = global                    ? tr("Export the global rules")
                          : source == Source::Rules ? tr("Export the rules of %1").arg(m_sandbox)
                                                    : tr("Save the decisions of %1").arg(m_sandbox);
    const QString path = QFileDialog::getSaveFileName(this, title, suggested, kFilter);
    if (!path.isEmpty())
        saveTo(source, path);
}

void PolicyButton::askImport(Into into)
{
    const QString title = into == Into::GlobalRules ? tr("Import a policy into the global rules") : tr("Import a policy into %1").arg(m_sandbox);
    const QString path = QFileDialog::getOpenFileName(this, title, QDir::homePath(), kFilter);
    if (!path.isEmpty())
        if (PolicyImportDialog *dialog = importFrom(path, into))
            dialog->open();
}

void PolicyButton::saveTo(Source source, const QString &path)
{
    if (!m_client || (source != Source::GlobalRules && m_sandbox.isEmpty()))
        return;
    const PolicyFileFormat format = policyFileFormatOf(path);
    QJsonObject params;
    if (source == Source::SessionDecisions) {
        params = proto::PolicyLearnParams{m_sandbox, format}.toJson();
    } else {
        proto::PolicyScope scope;
        scope.global = source == Source::GlobalRules;
        if (!scope.global)
            scope.sandbox = m_sandbox;
        scope.format = format;
        params = scope.toJson();
    }
    const QLatin1String method = source == Source::SessionDecisions ? proto::method::PolicyLearn : proto::method::PolicyExport;
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

PolicyImportDialog *PolicyButton::importFrom(const QString &path, Into into)
{
    const Result<PolicyFileText> file = readPolicyFile(path);
    if (!file) {
        Q_EMIT finished(tr("Nothing was changed: %1").arg(file.error().message()));
        return nullptr;
    }
    auto *dialog = new PolicyImportDialog(m_client, into == Into::GlobalRules ? QString() : m_sandbox, file->text, file->name, window());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PolicyImportDialog::applied, this, &PolicyButton::finished);
    return dialog;
}

} // namespace airlock::ui
