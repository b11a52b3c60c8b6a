#include "views/secretsview.h"
#include "widgets/availabilitystack.h"
#include "api/apiclient.h"
#include "common/replies.h"
#include "protocol/names.h"
#include "protocol/vault.h"

#include <QDateTime>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace airlock::ui {

SecretsView::SecretsView(ApiClient *client, QWidget *parent) : QWidget(parent), m_client(client)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_stack = new AvailabilityStack(tr("This airlockd has no vault yet (secret.list is not available)."), this);
    outer->addWidget(m_stack);
    QWidget *page = m_stack->page();
    auto *layout = new QVBoxLayout(page);
    auto *intro = new QLabel(tr("Secrets lent to this sandbox. The guest only sees a placeholder; the broker puts the real "
                                "value into requests to the listed hosts."),
                             page);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_table = new QTableWidget(0, 4, page);
    m_table->setHorizontalHeaderLabels({tr("Secret"), tr("Hosts"), tr("Sent as"), tr("Expires")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAccessibleName(tr("Bound secrets"));
    layout->addWidget(m_table, 2);
    auto *manage = new QPushButton(tr("&Manage secrets…"), page);
    layout->addWidget(manage, 0, Qt::AlignLeft);
    layout->addWidget(new QLabel(tr("Alerts"), page));
    m_alerts = new QListWidget(page);
    m_alerts->setAccessibleName(tr("Alerts"));
    layout->addWidget(m_alerts, 1);
    connect(manage, &QPushButton::clicked, this, &SecretsView::manageSecretsRequested);
}

void SecretsView::setSandbox(const QString &sandbox)
{
    m_sandbox = sandbox;
    reload();
}

void SecretsView::reload()
{
    m_alerts->clear();
    m_alerts->addItems(m_alertsBySandbox.value(m_sandbox));
    if (!m_client)
        return;
    m_client->call(proto::method::SecretList, {}, this, [this, sandbox = m_sandbox](const ApiClient::Reply &r) {
        if (m_stack->missing(r))
            return;
        m_table->setRowCount(0);
        const Result<QList<proto::SecretInfo>> secrets = replyListAs<proto::SecretInfo>(r);
        if (!secrets)
            return;
        for (const proto::SecretInfo &s : secrets.value()) {
            if (!s.usedBy.contains(sandbox))
                continue;
            const int row = m_table->rowCount();
            m_table->insertRow(row);
            m_table->setItem(row, 0, new QTableWidgetItem(s.name));
            m_table->setItem(row, 1, new QTableWidgetItem(s.hosts.join(QStringLiteral(", "))));
            // A sign-in's refresh token has no header: it only goes back to its token endpoint.
            const QString sentAs = s.header.isEmpty() && !s.login.isEmpty() ? tr("in the %1 sign-in's token requests").arg(s.login) : s.header;
            m_table->setItem(row, 2, new QTableWidgetItem(sentAs));
            const QDateTime expires = QDateTime::fromString(s.expires, Qt::ISODate);
            m_table->setItem(row, 3, new QTableWidgetItem(expires.isValid() ? QLocale().toString(expires.toLocalTime(), QLocale::ShortFormat)
                                                                            : QString()));
        }
    });
}

void SecretsView::onAlert(const proto::Alert &alert)
{
    const QString line = QStringLiteral("%1  %2: %3").arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), alert.kind, alert.message);
    m_alertsBySandbox[alert.sandbox].prepend(line);
    if (alert.sandbox == m_sandbox)
        m_alerts->insertItem(0, line);
}

} // namespace airlock::ui
