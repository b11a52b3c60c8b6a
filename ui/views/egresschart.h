#pragma once
#include <QChartView>
#include <QTimer>

class QBarCategoryAxis;
class QBarSet;
class QStackedBarSeries;
class QValueAxis;

namespace airlock::ui {

class EgressModel;

// Attempts per minute over the last half hour, stacked by decision.
class EgressChart : public QChartView {
    Q_OBJECT
public:
    explicit EgressChart(EgressModel *model, QWidget *parent = nullptr);
    void setSandbox(const QString &sandbox);

private:
    void rebuild();

    EgressModel *m_model;
    QString m_sandbox;
    QBarSet *m_allowed, *m_denied, *m_pending;
    QStackedBarSeries *m_series;
    QBarCategoryAxis *m_axisX;
    QValueAxis *m_axisY;
    QTimer m_throttle;
};

} // namespace airlock::ui
