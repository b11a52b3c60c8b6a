#pragma once
#include <QChartView>
#include <QTimer>

class QDateTimeAxis;
class QLineSeries;
class QValueAxis;

namespace airlock::ui {

class EgressModel;

// Attempts per minute over the last half hour, one line per decision.
class EgressChart : public QChartView {
    Q_OBJECT
public:
    explicit EgressChart(EgressModel *model, QWidget *parent = nullptr);
    void setSandbox(const QString &sandbox);

private:
    void rebuild();

    EgressModel *m_model;
    QString m_sandbox;
    QLineSeries *m_allowed, *m_denied, *m_pending;
    QDateTimeAxis *m_axisX;
    QValueAxis *m_axisY;
    QTimer m_throttle;
};

} // namespace airlock::ui
