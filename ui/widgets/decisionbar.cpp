#include "widgets/decisionbar.h"
#include "widgets/elidedlabel.h"
#include "widgets/flowlayout.h"
#include "api/apiclient.h"
#include "common/replies.h"
#include "protocol/egress.h"
#include "protocol/names.h"

#include <QCheckBox>
#include <QComboBox>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>

namespace airlock::ui {

namespace {
constexpr int kUntilStop = -2; // m_lifetime's data: seconds, 0 = once, -1 = forever, or this
}

DecisionBar::DecisionBar(ApiClient *client, QWidget *parent) : QWidget(parent), m_client(client)
{
    // Flows onto a second line in a narrow pane (the watch layout's attempts beside the terminal).
    auto *layout = new FlowLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_target = new QLabel(this);
    m_target->setTextFormat(Qt::PlainText);
    m_requestText = new ElidedLabel(this); // guest bytes: plain text, never rich text
    m_requestText->setAccessibleName(tr("Request"));
    m_requestText->setMaximumWidth(360);
    m_process = new ElidedLabel(this); // guest bytes: plain text, never rich text
    m_process->setAccessibleName(tr("Process (reported by the guest)"));
    m_process->setToolTip(tr("What the guest's helper reports: the guest could lie, so no rule uses it"));
    m_process->setMaximumWidth(420);
    m_allow = new QPushButton(tr("&Allow"), this);
    m_deny = new QPushButton(tr("&Deny"), this);
    m_allow->setToolTip(tr("Let this connection through (Alt+A)"));
    m_deny->setToolTip(tr("Refuse this connection; the agent sees who blocked it (Alt+D)"));
    m_lifetime = new QComboBox(this);
    m_lifetime->addItem(tr("just once"), 0);
    m_lifetime->addItem(tr("until the sandbox stops"), kUntilStop);
    m_lifetime->addItem(tr("for 10 minutes"), 600);
    m_lifetime->addItem(tr("for 1 hour"), 3600);
    m_lifetime->addItem(tr("forever"), -1);
    m_lifetime->setCurrentIndex(m_lifetime->findData(-1)); // forever
    m_match = new QComboBox(this);
    m_match->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_scope = new QComboBox(this);
    m_scope->addItem(tr("in this sandbox"), QStringLiteral("sandbox"));
    m_scope->addItem(tr("in all sandboxes"), QStringLiteral("global"));
    m_rawTcp = new QCheckBox(tr("raw TCP"), this);
    m_rawTcp->setAccessibleName(tr("Raw TCP"));
    m_rawTcp->setToolTip(tr("Let this host and port carry bytes that are neither TLS nor HTTP for it (only for a "
                            "lasting rule on the host or IP)"));
    m_lifetime->setAccessibleName(tr("Lifetime"));
    m_match->setAccessibleName(tr("Match"));
    m_scope->setAccessibleName(tr("Scope"));
    // The choices keep their whole text; the process report beside them is what gives way (ElidedLabel).
    for (QComboBox *c : {m_match, m_lifetime, m_scope})
        c->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Fixed);

    m_message = new QLabel(this);
    m_message->setWordWrap(true);

    m_requestText->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_process->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_message->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    layout->addWidget(m_target);
    layout->addWidget(m_requestText);
    layout->addWidget(m_process);
    layout->addWidget(m_allow);
    layout->addWidget(m_deny);
    layout->addWidget(m_match);
    layout->addWidget(m_lifetime);
    layout->addWidget(m_scope);
    layout->addWidget(m_rawTcp);
    layout->addWidget(m_message);

    connect(m_allow, &QPushButton::clicked, this, [this] { decide(QStringLiteral("allow")); });
    connect(m_deny, &QPushButton::clicked, this, [this] { decide(QStringLiteral("deny")); });
    connect(m_lifetime, &QComboBox::currentIndexChanged, this, &DecisionBar::updateEnabled);
    connect(m_match, &QComboBox::currentIndexChanged, this, &DecisionBar::updateEnabled);
    clearTarget();
}

void DecisionBar::setTarget(qint64 id, const QString &sandbox, const QString &host, const QString &ip, int port,
                            const QString &process, const QString &request)
{
    m_id = id;
    m_isRequest = !request.isEmpty();
    m_target->setText(tr("%1 → %2:%3").arg(sandbox, host.isEmpty() ? ip : host).arg(port));
    m_requestText->setFullText(request);
    m_requestText->setVisible(m_isRequest);
    setProcess(process);
    const int keep = m_match->currentIndex();
    m_match->clear();
    if (m_isRequest) {
        // A held request: its rule names it (method and path, or git service and repository).
        m_match->addItem(tr("only this request"), QStringLiteral("request"));
        m_match->setItemData(0, tr("%1 on %2, as a rule of requests").arg(request, host), Qt::ToolTipRole);
        m_match->addItem(tr("the whole host"), QStringLiteral("whole_host"));
        m_match->setItemData(1, tr("Exactly %1, whatever the method and path").arg(host), Qt::ToolTipRole);
    } else if (!host.isEmpty()) {
        // Short choices: the target beside them names the host, and a long name must not
        // squeeze the bar (the host goes in the tooltip).
        m_match->addItem(tr("only this host"), QStringLiteral("host"));
        m_match->setItemData(0, tr("Exactly %1").arg(host), Qt::ToolTipRole);
        // The daemon turns "domain" into patterns by the Public Suffix List it has
        // (egress.decide); its answer names them, so the GUI never guesses.
        m_match->addItem(tr("its whole domain"), QStringLiteral("domain"));
        m_match->setItemData(1,
                             tr("The registrable domain of %1 and every name below it (e.g. *.bbc.co.uk for www.bbc.co.uk), "
                                "as airlockd reads the Public Suffix List").arg(host),
                             Qt::ToolTipRole);
    }
    // Only a raw IP's address is real: for a name the guest dialled a synthetic address, and the
    // real one is looked up only after the flow is allowed (so the choice would be meaningless).
    if (host.isEmpty() && !ip.isEmpty())
        m_match->addItem(tr("only this IP"), QStringLiteral("ip"));
    m_match->setCurrentIndex(m_isRequest ? 0 : keep >= 0 && keep < m_match->count() ? keep : 0);
    m_match->updateGeometry(); // other choices, another width: the layout asks again
    m_message->clear();
    updateEnabled();
}

void DecisionBar::setProcess(const QString &process)
{
    m_process->setFullText(process);
    m_process->setVisible(!process.isEmpty());
}

QString DecisionBar::processText() const { return m_process->fullText(); }

void DecisionBar::clearTarget()
{
    m_id = 0;
    m_isRequest = false;
    m_requestText->setFullText({});
    m_requestText->hide();
    m_target->setText(tr("Select a pending or denied attempt"));
    m_process->setFullText({});
    m_process->hide();
    m_match->clear();
    m_message->clear();
    updateEnabled();
}

void DecisionBar::updateEnabled()
{
    const bool has = m_id != 0;
    m_allow->setEnabled(has);
    m_deny->setEnabled(has);
    m_match->setEnabled(has);
    m_lifetime->setEnabled(has);
    const int lifetime = m_lifetime->currentData().toInt();
    // A session is one sandbox's: "until it stops" is a rule of this sandbox.
    if (lifetime == kUntilStop)
        m_scope->setCurrentIndex(m_scope->findData(QStringLiteral("sandbox")));
    m_scope->setEnabled(has && lifetime != 0 && lifetime != kUntilStop);
    // Raw TCP is a property of a stored rule on one host or IP (Policy::validate).
    const bool rawPossible = has && !m_isRequest && m_lifetime->currentData().toInt() != 0 &&
                             m_match->currentData().toString() != QLatin1String("domain");
    m_rawTcp->setEnabled(rawPossible);
    if (!rawPossible)
        m_rawTcp->setChecked(false);
}

QJsonObject DecisionBar::decideParams(const QString &action) const
{
    const int lifetime = m_lifetime->currentData().toInt();
    proto::EgressDecideParams params;
    params.id = m_id;
    params.action = action;
    params.scope = lifetime == 0 ? QStringLiteral("once") : m_scope->currentData().toString();
    params.match = m_match->currentData().toString();
    if (m_isRequest) {
        params.wholeHost = params.match == QLatin1String("whole_host");
        params.match = QStringLiteral("host");
    }
    if (lifetime > 0)
        params.forS = lifetime;
    params.untilStop = lifetime == kUntilStop;
    params.rawTcp = m_rawTcp->isChecked();
    return params.toJson();
}

void DecisionBar::decide(const QString &action)
{
    if (!m_id || !m_client)
        return;
    const qint64 id = m_id;
    m_allow->setEnabled(false);
    m_deny->setEnabled(false);
    m_client->call(proto::method::EgressDecide, decideParams(action), this, [this, id, action](const ApiClient::Reply &r) {
        updateEnabled();
        const Result<proto::EgressEvent> answer = replyAs<proto::EgressEvent>(r);
        if (!answer) {
            m_message->setText(tr("Could not decide: %1").arg(answer.error().message()));
            return;
        }
        // The daemon's reason names the rule it made ("rule 12: allow *.bbc.co.uk (sandbox)").
        const QString done = answer->decision == Decision::Allowed ? tr("Allowed") : tr("Denied");
        m_message->setText(answer->reason.isEmpty() ? done + QLatin1Char('.') : tr("%1: %2").arg(done, answer->reason));
        Q_EMIT decided(id, action);
    });
}

} // namespace airlock::ui
