#include "views/pendingpanel.h"
#include "models/pendingmodel.h"
#include "widgets/decisionbar.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace airlock::ui {

PendingPanel::PendingPanel(ApiClient *client, PendingModel *model, QWidget *parent) : QWidget(parent), m_model(model)
{
    auto *layout = new QVBoxLayout(this);
    m_empty = new QLabel(tr("No connection is waiting for a decision."), this);
    m_empty->setAlignment(Qt::AlignCenter);
    m_table = new QTableView(this);
    m_table->setModel(model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(PendingModel::Target, 240);
    m_table->setColumnWidth(PendingModel::Request, 300); // a held request's method and path
    m_table->setWordWrap(false);
    m_table->setAccessibleName(tr("Pending requests"));
    m_decision = new DecisionBar(client, this);
    layout->addWidget(m_empty);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_decision);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &PendingPanel::onCurrentChanged);
    connect(model, &QAbstractItemModel::rowsInserted, this, &PendingPanel::updateEmpty);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &PendingPanel::updateEmpty);
    connect(model, &QAbstractItemModel::modelReset, this, &PendingPanel::updateEmpty);
    connect(model, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!m_table->currentIndex().isValid())
            m_table->selectRow(0); // the first request is ready for one click
    });
    connect(model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex &from, const QModelIndex &to) {
        const QModelIndex current = m_table->currentIndex();
        if (current.isValid() && current.row() >= from.row() && current.row() <= to.row())
            m_decision->setProcess(m_model->entry(current.row()).process);
    });
    connect(m_decision, &DecisionBar::decided, this, [this](qint64 id) {
        for (int row = 0; row < m_model->rowCount(); ++row)
            if (m_model->entry(row).ids.contains(id)) {
                m_model->removeEntry(m_model->entry(row).key);
                break;
            }
    });
    updateEmpty();
}

bool PendingPanel::allowSelected()
{
    if (!isVisible() || !m_table->currentIndex().isValid() || !m_decision->allowButton()->isEnabled())
        return false;
    m_decision->allowButton()->click();
    return true;
}

bool PendingPanel::denySelected()
{
    if (!isVisible() || !m_table->currentIndex().isValid() || !m_decision->denyButton()->isEnabled())
        return false;
    m_decision->denyButton()->click();
    return true;
}

bool PendingPanel::selectNext()
{
    const int rows = m_model->rowCount();
    if (rows == 0)
        return false;
    const QModelIndex current = m_table->currentIndex();
    m_table->selectRow(current.isValid() ? (current.row() + 1) % rows : 0);
    return true;
}

void PendingPanel::updateEmpty()
{
    const bool empty = m_model->rowCount() == 0;
    m_empty->setVisible(empty);
    m_table->setVisible(!empty);
    m_decision->setVisible(!empty);
    if (empty)
        m_decision->clearTarget();
}

void PendingPanel::onCurrentChanged()
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid()) {
        m_decision->clearTarget();
        return;
    }
    const PendingModel::Entry &e = m_model->entry(current.row());
    m_decision->setTarget(e.latestId, e.sandbox, e.host, e.ip, e.port, e.process, e.heldRequest ? e.request : QString());
}

} // namespace airlock::ui
