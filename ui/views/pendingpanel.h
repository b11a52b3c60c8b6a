#pragma once
#include <QPointer>
#include <QWidget>

class QLabel;
class QTableView;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class DecisionBar;
class PendingModel;

// Requests waiting for a decision in every sandbox, one row per target, with a countdown
// to the default (deny) and the same one-click decisions as the Network tab.
class PendingPanel : public QWidget {
    Q_OBJECT
public:
    PendingPanel(ApiClient *client, PendingModel *model, QWidget *parent = nullptr);
    QTableView *table() const { return m_table; }
    DecisionBar *decisionBar() const { return m_decision; }

    // The keyboard's decisions (MainWindow's Requests menu, wherever the focus is, the
    // terminal included): on the selected request, only while the panel shows it, so a key
    // never decides something the person cannot see. False when there was nothing to do.
    bool allowSelected();
    bool denySelected();
    // Selects the next request (wrapping round); false when none waits.
    bool selectNext();

private:
    void onCurrentChanged();
    void updateEmpty();

    PendingModel *m_model;
    QLabel *m_empty;
    QTableView *m_table;
    DecisionBar *m_decision;
};

} // namespace airlock::ui
