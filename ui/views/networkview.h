#pragma once
#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class QTableView;
class QTreeView;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class AvailabilityStack;

class DecisionBar;
class DestinationModel;
class EgressChart;
class EgressFilterModel;
class EgressModel;
class PolicyButton;

// The Network tab: every egress attempt of the selected sandbox as it happens (a flat list,
// or grouped by destination), filter and search, a chart, one-click decisions on pending or
// denied rows, and policy files.
class NetworkView : public QWidget {
    Q_OBJECT
public:
    NetworkView(ApiClient *client, EgressModel *model, QWidget *parent = nullptr);

    void setSandbox(const QString &sandbox);
    void reload();
    EgressFilterModel *filterModel() const { return m_filter; }
    QTableView *table() const { return m_table; }
    // The attempts grouped domain → host → port, one click from the flat list.
    QTreeView *destinations() const { return m_tree; }
    DestinationModel *destinationModel() const { return m_destinations; }
    void showGrouped(bool grouped);
    // A narrow pane (the watch layout): the list shows time, protocol, host and decision
    // first, times by their clock part; wide again, the columns are as they were.
    void setNarrow(bool narrow);
    DecisionBar *decisionBar() const { return m_decision; }
    PolicyButton *policyButton() const { return m_policy; }
    QString policyStatus() const;

private:
    QTableView *buildTable(QWidget *parent);
    QTreeView *buildTree(QWidget *parent);
    void onDestinationChanged();
    void loadPage(qint64 beforeId);
    void onCurrentChanged();

    QPointer<ApiClient> m_client;
    EgressModel *m_model;
    EgressFilterModel *m_filter;
    QString m_sandbox;
    AvailabilityStack *m_stack;
    QLineEdit *m_search;
    QComboBox *m_show;
    QPushButton *m_older;
    QLabel *m_count;
    PolicyButton *m_policy;
    QLabel *m_policyStatus;
    QTableView *m_table;
    DestinationModel *m_destinations;
    QTreeView *m_tree;
    QStackedWidget *m_views;
    QComboBox *m_grouping;
    DecisionBar *m_decision;
    EgressChart *m_chart;
};

} // namespace airlock::ui
