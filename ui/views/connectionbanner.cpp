#include "views/connectionbanner.h"
#include "connection/daemonconnection.h"

#include <QGridLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStyle>

namespace airlock::ui {

ConnectionBanner::ConnectionBanner(DaemonConnection *connection, QWidget *parent) : QFrame(parent), m_connection(connection)
{
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::AlternateBase);
    auto *layout = new QGridLayout(this);
    m_icon = new QLabel(this);
    m_reason = new QLabel(this);
    m_reason->setWordWrap(true);
    m_reason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_reason->font();
    bold.setBold(true);
    m_reason->setFont(bold);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_retry = new QPushButton(tr("&Retry"), this);
    m_detailsButton = new QPushButton(tr("Show &details"), this);
    m_detailsButton->setCheckable(true);
    m_details = new QPlainTextEdit(this);
    m_details->setReadOnly(true);
    m_details->setMaximumHeight(140);
    m_details->setAccessibleName(tr("airlockd's output"));
    m_details->hide();
    layout->addWidget(m_icon, 0, 0, 2, 1, Qt::AlignTop);
    layout->addWidget(m_reason, 0, 1);
    layout->addWidget(m_hint, 1, 1);
    layout->addWidget(m_retry, 0, 2);
    layout->addWidget(m_detailsButton, 1, 2);
    layout->addWidget(m_details, 2, 0, 1, 3);
    layout->setColumnStretch(1, 1);

    connect(m_retry, &QPushButton::clicked, connection, &DaemonConnection::retry);
    connect(m_detailsButton, &QPushButton::toggled, this, [this](bool on) {
        m_details->setVisible(on);
        m_detailsButton->setText(on ? tr("Hide &details") : tr("Show &details"));
    });
    connect(connection, &DaemonConnection::stateChanged, this, &ConnectionBanner::refresh);
    refresh();
}

QString ConnectionBanner::text() const { return m_reason->text() + QLatin1Char('\n') + m_hint->text(); }

void ConnectionBanner::refresh()
{
    using State = DaemonConnection::State;
    const State state = m_connection->state();
    setVisible(state != State::Connected);
    const int iconSize = style()->pixelMetric(QStyle::PM_MessageBoxIconSize);
    switch (state) {
    case State::Connected:
        return;
    case State::Connecting:
        m_icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxInformation).pixmap(iconSize));
        m_reason->setText(tr("Connecting to airlockd at %1…").arg(m_connection->socketPath()));
        m_hint->clear();
        break;
    case State::StartingDaemon:
        m_icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxInformation).pixmap(iconSize));
        m_reason->setText(tr("No airlockd was running; starting %1…").arg(m_connection->daemonProgram()));
        m_hint->clear();
        break;
    case State::NotConnected:
        m_icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(iconSize));
        m_reason->setText(tr("Not connected: %1").arg(m_connection->reason()));
        m_hint->setText(m_connection->hint());
        break;
    }
    m_retry->setEnabled(state == State::NotConnected);
    const bool hasDetails = !m_connection->details().isEmpty();
    m_details->setPlainText(m_connection->details());
    m_detailsButton->setVisible(hasDetails);
    // airlockd's own words are what the user needs when it failed to start: show them at once.
    if (hasDetails && state == State::NotConnected)
        m_detailsButton->setChecked(true);
    m_details->setVisible(hasDetails && m_detailsButton->isChecked());
}

} // namespace airlock::ui
