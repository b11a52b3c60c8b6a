#include "dialogs/policyimportdialog.h"
#include "api/apiclient.h"
#include "common/replies.h"
#include "models/decisioncolors.h"
#include "protocol/names.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace airlock::ui {

PolicyImportDialog::PolicyImportDialog(ApiClient *client, const QString &sandbox, const QString &policy, const QString &source,
                                       QWidget *parent)
    : QDialog(parent), m_client(client)
{
    if (sandbox.isEmpty()) {
        m_params.global = true;
        m_scopeName = tr("the global rules");
    } else {
        m_params.sandbox = sandbox;
        m_scopeName = tr("sandbox %1").arg(sandbox);
    }
    setWindowTitle(tr("Import a policy into %1").arg(m_scopeName));
    m_params.policy = policy;
    m_params.source = source;
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("<b>%1</b> into <b>%2</b><br>Read every change before you apply it: a policy file in a project is "
                                "something the agent could have edited.").arg(source.toHtmlEscaped(), m_scopeName.toHtmlEscaped()),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_changes = new QListWidget(this);
    m_changes->setAccessibleName(tr("Changes"));
    layout->addWidget(m_changes, 1);
    m_replace = new QCheckBox(m_params.global ? tr("&Replace: remove the lasting global rules that the file does not have")
                                              : tr("&Replace: remove the lasting rules of %1 that the file does not have").arg(m_scopeName),
                              this);
    layout->addWidget(m_replace);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Apply | QDialogButtonBox::Cancel, this);
    layout->addWidget(m_buttons);
    applyButton()->setEnabled(false);
    connect(m_replace, &QCheckBox::toggled, this, [this](bool on) {
        m_params.replace = on;
        ask(true);
    });
    connect(applyButton(), &QPushButton::clicked, this, [this] { ask(false); });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    resize(720, 420);
    ask(true);
}

QPushButton *PolicyImportDialog::applyButton() const { return m_buttons->button(QDialogButtonBox::Apply); }

QString PolicyImportDialog::status() const { return m_status->text(); }

void PolicyImportDialog::ask(bool dryRun)
{
    if (!m_client)
        return;
    applyButton()->setEnabled(false);
    m_status->setText(dryRun ? tr("Reading the file…") : tr("Applying…"));
    m_params.dryRun = dryRun;
    m_client->call(proto::method::PolicyImport, m_params.toJson(), this, [this, dryRun](const ApiClient::Reply &r) {
        const Result<proto::PolicyImportResult> plan = replyAs<proto::PolicyImportResult>(r);
        if (!plan) {
            m_changes->clear();
            m_status->setText(tr("Nothing was changed: %1").arg(plan.error().message()));
            return;
        }
        if (!dryRun) {
            const QString summary = tr("Applied: %1 added, %2 removed.").arg(plan->add.size()).arg(plan->remove.size());
            m_status->setText(summary);
            Q_EMIT applied(summary);
            accept();
            return;
        }
        showPlan(*plan);
    });
}

void PolicyImportDialog::showPlan(const proto::PolicyImportResult &plan)
{
    m_params.expectPlan = plan.plan; // Apply does what this list shows, or nothing
    m_changes->clear();
    const auto add = [this](const QString &mark, const QList<proto::PolicyChange> &changes, const QString &note, Decision colour) {
        for (const proto::PolicyChange &c : changes) {
            QString text = mark + QLatin1Char(' ') + c.text;
            if (c.rule)
                text += tr("  (rule %1)").arg(c.rule);
            if (!note.isEmpty())
                text += QStringLiteral("  ") + note;
            auto *item = new QListWidgetItem(text, m_changes);
            item->setToolTip(c.from);
            item->setForeground(decisionColor(colour));
        }
    };
    add(QStringLiteral("+"), plan.add, {}, Decision::Allowed);
    add(QStringLiteral("−"), plan.remove, {}, Decision::Denied);
    add(QStringLiteral("!"), plan.conflicts, tr("says the opposite of the file"), Decision::Pending);
    add(QStringLiteral("="), plan.keep, tr("already there"), Decision::Dropped);
    const bool changes = !plan.add.isEmpty() || !plan.remove.isEmpty();
    if (!plan.conflicts.isEmpty())
        m_status->setText(tr("%n rule(s) say the opposite of the file (!): tick Replace to make the file's rules the only lasting "
                             "ones, or remove those rules first.", nullptr, int(plan.conflicts.size())));
    else if (!changes)
        m_status->setText(tr("Nothing to change: every rule of the file is already in %1.").arg(m_scopeName));
    else
        m_status->setText(tr("%1 to add, %2 to remove, %3 already there.").arg(plan.add.size()).arg(plan.remove.size()).arg(plan.keep.size()));
    applyButton()->setEnabled(plan.conflicts.isEmpty() && changes);
}

} // namespace airlock::ui
