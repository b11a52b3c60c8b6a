#include "views/terminalview.h"
#include "api/apiclient.h"
#include "common/replies.h"
#include "protocol/events.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"
#include "protocol/snapshots.h"
#include "widgets/terminalwidget.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace airlock::ui {

TerminalView::TerminalView(ApiClient *client, QWidget *parent) : QWidget(parent), m_client(client)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->hide();
    m_stack = new QStackedWidget(this);
    layout->addWidget(m_message);
    layout->addWidget(m_stack, 1);
}

void TerminalView::setSandbox(const QString &sandbox)
{
    m_sandbox = sandbox;
    if (sandbox.isEmpty())
        return;
    if (TerminalWidget *t = m_terminals.value(sandbox)) {
        m_stack->setCurrentWidget(t);
        return;
    }
    auto *t = new TerminalWidget(m_stack);
    t->setAccessibleName(tr("Console of %1").arg(sandbox));
    m_terminals.insert(sandbox, t);
    m_stack->addWidget(t);
    m_stack->setCurrentWidget(t);
    connect(t, &TerminalWidget::sendBytes, this, [this, sandbox](const QByteArray &bytes) {
        if (!m_client)
            return;
        m_client->call(QStringLiteral("console.write"),
                       {{QStringLiteral("name"), sandbox}, {QStringLiteral("data_b64"), QString::fromLatin1(bytes.toBase64())}},
                       this, [this](const ApiClient::Reply &r) {
                           if (!r.ok) {
                               m_message->setText(tr("Typing did not reach the console: %1").arg(r.errorMessage));
                               m_message->show();
                           }
                       });
    });
    // The guest learns the size once the widget settles, not on every step of a drag.
    auto *settle = new QTimer(t);
    settle->setSingleShot(true);
    settle->setInterval(200);
    connect(t, &TerminalWidget::terminalSizeChanged, settle, qOverload<>(&QTimer::start));
    connect(settle, &QTimer::timeout, this, [this, t, sandbox] {
        if (m_client)
            m_client->call(QStringLiteral("console.resize"),
                           {{QStringLiteral("name"), sandbox}, {QStringLiteral("rows"), t->rows()}, {QStringLiteral("cols"), t->columns()}},
                           this, {}); // best effort: a guest without stty keeps its old size
    });
    attach(sandbox);
}

void TerminalView::attach(const QString &sandbox)
{
    if (!m_client)
        return;
    // Live bytes come as "console:<name>" events; subscribing before attaching loses none.
    m_client->call(proto::method::Subscribe, proto::TopicsParams{{proto::topic::console(sandbox)}}.toJson(), this, {});
    m_client->call(proto::method::ConsoleAttach, proto::NameParams{sandbox}.toJson(), this,
                   [this, sandbox](const ApiClient::Reply &r) {
                       TerminalWidget *t = m_terminals.value(sandbox);
                       if (!t)
                           return;
                       const Result<proto::ConsoleAttachResult> attached = replyAs<proto::ConsoleAttachResult>(r);
                       if (!attached) {
                           if (sandbox == m_sandbox) {
                               m_message->setText(isMethodMissing(r)
                                                      ? tr("This airlockd has no consoles yet (console.attach is not available).")
                                                      : tr("No console: %1").arg(attached.error().message()));
                               m_message->show();
                           }
                           return;
                       }
                       m_message->hide();
                       t->reset();
                       t->feed(attached->history);
                   });
}

void TerminalView::onOutput(const QString &sandbox, const QByteArray &data)
{
    if (TerminalWidget *t = m_terminals.value(sandbox))
        t->feed(data);
}

void TerminalView::reattachAll()
{
    for (auto it = m_terminals.cbegin(); it != m_terminals.cend(); ++it)
        attach(it.key());
}

void TerminalView::forget(const QString &sandbox)
{
    if (TerminalWidget *t = m_terminals.take(sandbox))
        t->deleteLater();
}

} // namespace airlock::ui
