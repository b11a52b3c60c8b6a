#include "views/networkview.h"
#include "widgets/availabilitystack.h"
#include "api/apiclient.h"
#include "common/replies.h"
#include "models/destinationmodel.h"
#include "models/egressmodel.h"
#include "protocol/names.h"
#include "views/egresschart.h"
#include "widgets/decisionbar.h"
#include "widgets/flowlayout.h"
#include "widgets/policybutton.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

namespace airlock::ui {

namespace {
constexpr int kPageSize = 1000;
}

NetworkView::NetworkView(ApiClient *client, EgressModel *model, QWidget *parent)
    : QWidget(parent), m_client(client), m_model(model), m_filter(new EgressFilterModel(this)),
      m_destinations(new DestinationModel(model, this))
{
    m_filter->setSourceModel(model);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_stack = new AvailabilityStack(tr("This airlockd does not record egress attempts yet (egress.list is not available).\n"
                                       "Update airlockd; attempts appear here as they happen."),
                                    this);
    outer->addWidget(m_stack);

    QWidget *page = m_stack->page();
    auto *layout = new QVBoxLayout(page);
    auto *bar = new FlowLayout; // wraps in the watch layout's narrow pane
    m_search = new QLineEdit(page);
    m_search->setPlaceholderText(tr("Search host, IP, path, rule…"));
    m_search->setClearButtonEnabled(true);
    m_search->setAccessibleName(tr("Search attempts"));
    m_show = new QComboBox(page);
    m_show->addItem(tr("All attempts"), int(EgressFilterModel::Show::All));
    m_show->addItem(tr("Pending"), int(EgressFilterModel::Show::Pending));
    m_show->addItem(tr("Denied"), int(EgressFilterModel::Show::Denied));
    m_show->addItem(tr("Allowed"), int(EgressFilterModel::Show::Allowed));
    m_show->setAccessibleName(tr("Show"));
    m_grouping = new QComboBox(page);
    m_grouping->addItem(tr("Every attempt"), false);
    m_grouping->addItem(tr("By destination"), true);
    m_grouping->setAccessibleName(tr("Group"));
    m_grouping->setToolTip(tr("The flat list, newest first, or the attempts grouped by domain, host and port"));
    m_older = new QPushButton(tr("Load &older"), page);
    m_count = new QLabel(page);
    m_policy = new PolicyButton(client, page);
    m_search->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    bar->addWidget(m_search);
    bar->addWidget(m_grouping);
    bar->addWidget(m_show);
    bar->addWidget(m_older);
    bar->addWidget(m_count);
    bar->addWidget(m_policy);
    layout->addLayout(bar);
    m_policyStatus = new QLabel(page);
    m_policyStatus->setWordWrap(true);
    m_policyStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_policyStatus->hide();
    layout->addWidget(m_policyStatus);
    connect(m_policy, &PolicyButton::finished, this, [this](const QString &message) {
        m_policyStatus->setText(message);
        m_policyStatus->show();
    });

    m_table = buildTable(page);
    m_tree = buildTree(page);
    m_views = new QStackedWidget(page);
    m_views->addWidget(m_table);
    m_views->addWidget(m_tree);
    m_decision = new DecisionBar(client, page);
    m_chart = new EgressChart(model, page);

    auto *split = new QSplitter(Qt::Vertical, page);
    auto *top = new QWidget(split);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_views);
    topLayout->addWidget(m_decision);
    split->addWidget(top);
    split->addWidget(m_chart);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({560, 150});
    layout->addWidget(split);

    connect(m_search, &QLineEdit::textChanged, m_filter, &EgressFilterModel::setSearchText);
    connect(m_show, &QComboBox::currentIndexChanged, this,
            [this] { m_filter->setShow(EgressFilterModel::Show(m_show->currentData().toInt())); });
    connect(m_older, &QPushButton::clicked, this, [this] { loadPage(m_model->oldestId(m_sandbox)); });
    connect(m_grouping, &QComboBox::currentIndexChanged, this, [this] { showGrouped(m_grouping->currentData().toBool()); });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &NetworkView::onDestinationChanged);
    connect(m_destinations, &QAbstractItemModel::dataChanged, this, &NetworkView::onDestinationChanged);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &NetworkView::onCurrentChanged);
    connect(m_filter, &QAbstractItemModel::dataChanged, this, &NetworkView::onCurrentChanged);
    auto updateCount = [this] { m_count->setText(tr("%n attempt(s)", nullptr, m_filter->rowCount())); };
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, updateCount);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, updateCount);
    connect(m_filter, &QAbstractItemModel::modelReset, this, updateCount);
    connect(m_filter, &QAbstractItemModel::layoutChanged, this, updateCount);
    updateCount();
}

// Newest first; every attempt of the sandbox, whatever was decided.
QTableView *NetworkView::buildTable(QWidget *parent)
{
    auto *table = new QTableView(parent);
    table->setModel(m_filter);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setSortingEnabled(true);
    table->sortByColumn(EgressModel::Time, Qt::DescendingOrder);
    table->verticalHeader()->hide();
    // Fixed row heights and no per-row sizing keep 100,000 rows smooth.
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setColumnWidth(EgressModel::Time, 150);
    table->setColumnWidth(EgressModel::Host, 220);
    table->setColumnWidth(EgressModel::Port, 60);
    table->setColumnWidth(EgressModel::Proto, 70);
    table->setColumnWidth(EgressModel::Rule, 140);
    table->setColumnWidth(EgressModel::Bytes, 170);
    table->setColumnWidth(EgressModel::DecisionColumn, 80);
    table->setColumnWidth(EgressModel::Request, 200);
    table->setColumnHidden(EgressModel::Sandbox, true);
    table->setWordWrap(false);
    return table;
}

// Domain → host → port, each with counts, bytes, and the last decision and its rule.
QTreeView *NetworkView::buildTree(QWidget *parent)
{
    auto *tree = new QTreeView(parent);
    tree->setModel(m_destinations);
    tree->setAccessibleName(tr("Attempts by destination"));
    tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    tree->setUniformRowHeights(true);
    tree->setColumnWidth(DestinationModel::Destination, 280);
    tree->setColumnWidth(DestinationModel::Attempts, 80);
    tree->setColumnWidth(DestinationModel::DeniedCount, 70);
    tree->setColumnWidth(DestinationModel::BytesUp, 90);
    tree->setColumnWidth(DestinationModel::BytesDown, 90);
    tree->setColumnWidth(DestinationModel::LastDecision, 110);
    return tree;
}

void NetworkView::setNarrow(bool narrow)
{
    QHeaderView *header = m_table->horizontalHeader();
    // The decision right after the host, where a narrow pane still shows it; back in place
    // when wide (the columns are not movable by hand, so visual order is the model's).
    header->moveSection(header->visualIndex(EgressModel::DecisionColumn),
                        narrow ? header->visualIndex(EgressModel::Host) + 1 : int(EgressModel::DecisionColumn));
    // Eliding from the left keeps what differs: "…18:30:27", "…api.github.com".
    m_table->setTextElideMode(narrow ? Qt::ElideLeft : Qt::ElideRight);
    m_table->setColumnWidth(EgressModel::Time, narrow ? m_table->fontMetrics().horizontalAdvance(QStringLiteral("…00:00:00")) + 12 : 150);
    m_table->setColumnWidth(EgressModel::Host, narrow ? 130 : 220);
    m_table->setColumnWidth(EgressModel::DecisionColumn, narrow ? 70 : 80);
    // What a person deciding beside the terminal reads stays in view (host, decision, request,
    // process); protocol, port, rule and bytes move into the row's tooltip.
    for (const int column : {EgressModel::Proto, EgressModel::Port, EgressModel::Rule, EgressModel::Bytes})
        m_table->setColumnHidden(column, narrow);
    m_table->setColumnWidth(EgressModel::Request, narrow ? 110 : 200);
}

void NetworkView::showGrouped(bool grouped)
{
    m_grouping->setCurrentIndex(m_grouping->findData(grouped));
    m_destinations->setActive(grouped);
    m_views->setCurrentWidget(grouped ? static_cast<QWidget *>(m_tree) : m_table);
    m_show->setEnabled(!grouped); // the groups count every decision
    m_search->setEnabled(!grouped);
    m_decision->clearTarget();
}

// A host or port whose newest undecided or denied attempt can be answered from the bar.
void NetworkView::onDestinationChanged()
{
    if (m_views->currentWidget() != m_tree)
        return;
    const QModelIndex current = m_tree->currentIndex();
    const qint64 id = current.isValid() ? current.siblingAtColumn(0).data(DestinationModel::DecidableIdRole).toLongLong() : 0;
    const int row = id ? m_model->rowOfId(id) : -1;
    if (row < 0) {
        m_decision->clearTarget();
        return;
    }
    const EgressRecord &r = m_model->record(row);
    if (m_decision->targetId() == r.id)
        return; // the same attempt: keep the choices made so far
    m_decision->setTarget(r.id, r.sandbox, r.host, r.ip, r.port, r.process,
                          r.heldRequest && r.decision == Decision::Pending ? r.method + QLatin1Char(' ') + r.path : QString());
}

void NetworkView::setSandbox(const QString &sandbox)
{
    if (m_sandbox == sandbox)
        return;
    m_sandbox = sandbox;
    m_filter->setSandbox(sandbox);
    m_destinations->setSandbox(sandbox);
    m_chart->setSandbox(sandbox);
    m_policy->setSandbox(sandbox);
    m_policyStatus->hide();
    m_decision->clearTarget();
    reload();
}

QString NetworkView::policyStatus() const { return m_policyStatus->isHidden() ? QString() : m_policyStatus->text(); }

void NetworkView::reload()
{
    if (!m_sandbox.isEmpty())
        loadPage(0);
}

void NetworkView::loadPage(qint64 beforeId)
{
    if (!m_client)
        return;
    proto::EgressListParams params;
    params.sandbox = m_sandbox;
    params.limit = kPageSize;
    if (beforeId > 0)
        params.beforeId = beforeId;
    m_older->setEnabled(false);
    m_client->call(proto::method::EgressList, params.toJson(), this, [this](const ApiClient::Reply &r) {
        if (m_stack->missing(r))
            return;
        const Result<QList<proto::EgressEvent>> page = replyListAs<proto::EgressEvent>(r);
        if (!page) {
            m_count->setText(tr("Could not load attempts: %1").arg(page.error().message()));
            m_older->setEnabled(true);
            return;
        }
        m_model->enqueue(page.value());
        m_older->setEnabled(page->size() >= kPageSize);
    });
}

void NetworkView::onCurrentChanged()
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid()) {
        m_decision->clearTarget();
        return;
    }
    const EgressRecord &r = m_model->record(m_filter->mapToSource(current).row());
    if (r.decision == Decision::Pending || r.decision == Decision::Denied)
        m_decision->setTarget(r.id, r.sandbox, r.host, r.ip, r.port, r.process,
                              r.heldRequest && r.decision == Decision::Pending ? r.method + QLatin1Char(' ') + r.path : QString());
    else
        m_decision->clearTarget();
}

} // namespace airlock::ui
