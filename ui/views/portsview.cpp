#include "views/portsview.h"
#include "widgets/availabilitystack.h"
#include "api/apiclient.h"
#include "common/replies.h"
#include "models/portsmodel.h"
#include "protocol/names.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace airlock::ui {

PortsView::PortsView(ApiClient *client, QWidget *parent) : QWidget(parent), m_client(client), m_model(new PortsModel(this))
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_stack = new AvailabilityStack(tr("This airlockd does not expose ports; update it to use this tab."), this);
    outer->addWidget(m_stack);
    QWidget *page = m_stack->page();
    auto *layout = new QVBoxLayout(page);

    auto *explain = new QLabel(tr("A port the agent serves in the guest (a dev server, say), reached from this machine only. "
                                  "The guest gets no way out through it."),
                               page);
    explain->setWordWrap(true);
    layout->addWidget(explain);

    auto *form = new QHBoxLayout;
    m_guestPort = new QSpinBox(page);
    m_guestPort->setRange(1, 65535);
    m_guestPort->setValue(8080);
    m_guestPort->setAccessibleName(tr("Guest port"));
    m_hostPort = new QSpinBox(page);
    m_hostPort->setRange(0, 65535);
    m_hostPort->setSpecialValueText(tr("same, or any free"));
    m_hostPort->setAccessibleName(tr("Host port"));
    m_expose = new QPushButton(tr("E&xpose"), page);
    auto *guestLabel = new QLabel(tr("&Guest port:"), page);
    guestLabel->setBuddy(m_guestPort);
    auto *hostLabel = new QLabel(tr("on &host port:"), page);
    hostLabel->setBuddy(m_hostPort);
    form->addWidget(guestLabel);
    form->addWidget(m_guestPort);
    form->addWidget(hostLabel);
    form->addWidget(m_hostPort);
    form->addWidget(m_expose);
    form->addStretch();
    layout->addLayout(form);

    m_table = new QTableView(page);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(PortsModel::State, QHeaderView::Stretch);
    m_table->setAccessibleName(tr("Exposed ports"));
    layout->addWidget(m_table, 1);

    auto *buttons = new QHBoxLayout;
    m_open = new QPushButton(tr("&Open in browser"), page);
    m_remove = new QPushButton(tr("&Remove"), page);
    buttons->addWidget(m_open);
    buttons->addWidget(m_remove);
    buttons->addStretch();
    layout->addLayout(buttons);
    m_message = new QLabel(page);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_message);

    m_refresh.setInterval(2000);
    connect(&m_refresh, &QTimer::timeout, this, &PortsView::reload);
    connect(m_expose, &QPushButton::clicked, this, &PortsView::expose);
    connect(m_open, &QPushButton::clicked, this, &PortsView::openInBrowser);
    connect(m_remove, &QPushButton::clicked, this, &PortsView::remove);
    connect(m_table, &QTableView::doubleClicked, this, &PortsView::openInBrowser);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &PortsView::updateButtons);
    connect(m_model, &QAbstractItemModel::modelReset, this, &PortsView::updateButtons);
    updateButtons();
}

void PortsView::setSandbox(const QString &sandbox)
{
    if (sandbox == m_sandbox)
        return;
    m_sandbox = sandbox;
    m_message->clear();
    m_model->setPorts({});
    updateButtons();
    reload();
}

// Connections and traffic change with every request to the port: while the tab is shown it
// asks again every two seconds (the daemon sends "port" events only when the ports change).
void PortsView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    reload();
    m_refresh.start();
}

void PortsView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_refresh.stop();
}

void PortsView::reload()
{
    if (!m_client || m_sandbox.isEmpty())
        return m_model->setPorts({});
    m_client->call(proto::method::PortList, {{QStringLiteral("sandbox"), m_sandbox}}, this,
                   [this, sandbox = m_sandbox](const ApiClient::Reply &r) {
        if (sandbox != m_sandbox)
            return;
        if (m_stack->missing(r))
            return;
        const Result<QList<proto::ExposedPortInfo>> ports = replyListAs<proto::ExposedPortInfo>(r);
        if (!ports)
            return report(tr("Could not list the ports: %1").arg(ports.error().message()), true);
        m_model->setPorts(ports.value());
    });
}

void PortsView::onPortsChanged(const proto::PortsChanged &ports)
{
    if (ports.sandbox == m_sandbox)
        m_model->setPorts(ports.ports);
}

void PortsView::expose()
{
    if (!m_client || m_sandbox.isEmpty())
        return;
    const proto::PortExposeParams params{m_sandbox, m_guestPort->value(), m_hostPort->value()};
    m_client->call(proto::method::PortExpose, params.toJson(), this, [this, sandbox = m_sandbox](const ApiClient::Reply &r) {
        const Result<proto::ExposedPortInfo> port = replyAs<proto::ExposedPortInfo>(r);
        if (!port)
            return report(tr("Could not expose the port: %1").arg(port.error().message()), true);
        report(port->listening ? tr("Port %1 of %2 is reached at %3").arg(port->guestPort).arg(sandbox, PortsModel::urlOf(port.value()))
                               : tr("Port %1 of %2 will be reached at %3 once it runs").arg(port->guestPort).arg(sandbox, PortsModel::urlOf(port.value())),
               false);
        if (sandbox == m_sandbox)
            reload();
    });
}

void PortsView::openInBrowser()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const proto::ExposedPortInfo *port = rows.isEmpty() ? nullptr : m_model->portAt(rows.first().row());
    if (!port)
        return;
    m_lastOpened = PortsModel::urlOf(*port);
    Q_EMIT openRequested(m_lastOpened);
}

void PortsView::remove()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const proto::ExposedPortInfo *port = rows.isEmpty() ? nullptr : m_model->portAt(rows.first().row());
    if (!port || !m_client)
        return;
    const proto::PortRef params{m_sandbox, port->guestPort};
    m_client->call(proto::method::PortUnexpose, params.toJson(), this, [this, params](const ApiClient::Reply &r) {
        if (!r.ok)
            return report(tr("Could not remove the port: %1").arg(r.errorMessage), true);
        report(tr("Port %1 of %2 is no longer reached").arg(params.guestPort).arg(params.sandbox), false);
        if (params.sandbox == m_sandbox)
            reload();
    });
}

void PortsView::updateButtons()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const proto::ExposedPortInfo *port = rows.isEmpty() ? nullptr : m_model->portAt(rows.first().row());
    m_open->setEnabled(port && port->listening);
    m_remove->setEnabled(port != nullptr);
    m_expose->setEnabled(!m_sandbox.isEmpty());
}

void PortsView::report(const QString &text, bool failed)
{
    m_message->setText(text);
    m_message->setStyleSheet(failed ? QStringLiteral("color: #a40000") : QString());
}

QString PortsView::message() const { return m_message->text(); }

} // namespace airlock::ui
