#pragma once
#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class AvailabilityStack;

class DecisionBar;
class EgressChart;
class EgressFilterModel;
class EgressModel;
class PolicyButton;

// The Network tab: every egress attempt of the selected sandbox as it happens, filter and
// search, a chart, one-click decisions on pending or denied rows, and policy files.
class NetworkView : public QWidget {
    Q_OBJECT
public:
    NetworkView(ApiClient *client, EgressModel *model, QWidget *parent = nullptr);

    void setSandbox(const QString &sandbox);
    void reload();
    EgressFilterModel *filterModel() const { return m_filter; }
    QTableView *table() const { return m_table; }
    DecisionBar *decisionBar() const { return m_decision; }
    PolicyButton *policyButton() const { return m_policy; }
    QString policyStatus() const;

private:
    QTableView *buildTable(QWidget *parent);
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
    DecisionBar *m_decision;
    EgressChart *m_chart;
};

} // namespace airlock::ui
