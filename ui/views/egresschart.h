#pragma once
#include <QChartView>
#include <QTimer>

#include <array>

class QDateTimeAxis;
class QLineSeries;
class QValueAxis;

namespace airlock::ui {

class EgressModel;

// Attempts per minute over the last half hour, stacked by decision (allowed at the bottom, then
// denied, then pending): lines drawn over each other hid all but the top one whenever the counts
// were alike, and a stack also shows the total at a glance.
class EgressChart : public QChartView {
    Q_OBJECT
public:
    explicit EgressChart(EgressModel *model, QWidget *parent = nullptr);
    void setSandbox(const QString &sandbox);

private:
    void rebuild();

    EgressModel *m_model;
    QString m_sandbox;
    // The top edge of each band; band i's lower edge is band i-1's top edge (the axis for i = 0).
    std::array<QLineSeries *, 3> m_edges{};
    QLineSeries *m_floor = nullptr;
    QDateTimeAxis *m_axisX;
    QValueAxis *m_axisY;
    QTimer m_throttle;
};

} // namespace airlock::ui
