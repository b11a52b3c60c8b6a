#include "views/egresschart.h"
#include "models/decisioncolors.h"
#include "models/egressmodel.h"

#include <QChart>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLineSeries>
#include <QValueAxis>

namespace airlock::ui {

namespace {
constexpr int kMinutes = 30;
}

EgressChart::EgressChart(EgressModel *model, QWidget *parent) : QChartView(parent), m_model(model)
{
    auto *chart = new QChart;
    chart->setTitle(tr("Attempts per minute"));
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->setBackgroundVisible(false);
    chart->setMargins(QMargins(2, 2, 2, 2));
    // Follow the desktop theme: chart text in the palette's colours.
    const QColor text = palette().color(QPalette::WindowText);
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    m_axisX = new QDateTimeAxis;
    m_axisX->setFormat(QStringLiteral("HH:mm"));
    m_axisX->setTickCount(7);
    m_axisY = new QValueAxis;
    m_axisY->setLabelFormat(QStringLiteral("%d"));
    for (QAbstractAxis *axis : {static_cast<QAbstractAxis *>(m_axisX), static_cast<QAbstractAxis *>(m_axisY)}) {
        axis->setLabelsColor(text);
        axis->setGridLineColor(palette().color(QPalette::Midlight));
        axis->setLinePenColor(palette().color(QPalette::Mid));
    }
    chart->addAxis(m_axisX, Qt::AlignBottom);
    chart->addAxis(m_axisY, Qt::AlignLeft);
    auto line = [&](const QString &name, Decision d) {
        auto *series = new QLineSeries;
        series->setName(name);
        QPen pen(decisionColor(d));
        pen.setWidth(2);
        series->setPen(pen);
        chart->addSeries(series);
        series->attachAxis(m_axisX);
        series->attachAxis(m_axisY);
        return series;
    };
    m_allowed = line(tr("allowed"), Decision::Allowed);
    m_denied = line(tr("denied"), Decision::Denied);
    m_pending = line(tr("pending"), Decision::Pending);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(200);
    setAccessibleName(tr("Attempts per minute"));

    m_throttle.setInterval(1000);
    m_throttle.setSingleShot(true);
    connect(&m_throttle, &QTimer::timeout, this, &EgressChart::rebuild);
    connect(model, &EgressModel::batchApplied, this, [this] {
        if (!m_throttle.isActive())
            m_throttle.start();
    });
    rebuild();
}

void EgressChart::setSandbox(const QString &sandbox)
{
    m_sandbox = sandbox;
    rebuild();
}

void EgressChart::rebuild()
{
    const EgressModel::Buckets buckets = m_model->buckets(m_sandbox);
    // The last half hour up to now, or up to the newest attempt when the log is older.
    qint64 last = QDateTime::currentMSecsSinceEpoch() / 60000;
    if (!buckets.isEmpty() && buckets.lastKey() < last - kMinutes)
        last = buckets.lastKey();
    QList<QPointF> allowed, denied, pending;
    int peak = 1;
    for (qint64 m = last - kMinutes + 1; m <= last; ++m) {
        const auto counts = buckets.value(m, {0, 0, 0});
        const qreal x = qreal(m * 60000);
        allowed << QPointF(x, counts[0]);
        denied << QPointF(x, counts[1]);
        pending << QPointF(x, counts[2]);
        peak = std::max({peak, counts[0], counts[1], counts[2]});
    }
    m_allowed->replace(allowed);
    m_denied->replace(denied);
    m_pending->replace(pending);
    m_axisX->setRange(QDateTime::fromMSecsSinceEpoch((last - kMinutes + 1) * 60000), QDateTime::fromMSecsSinceEpoch(last * 60000));
    // Whole numbers only: a step of 1, 2, 5, 10, 20, 50, ... with at most 5 steps.
    int step = 1;
    for (int factor = 1; peak > step * 5; factor *= 10) {
        for (int m : {1, 2, 5}) {
            step = m * factor;
            if (peak <= step * 5)
                break;
        }
    }
    const int top = ((peak + step - 1) / step) * step;
    m_axisY->setRange(0, top);
    m_axisY->setTickType(QValueAxis::TicksDynamic);
    m_axisY->setTickAnchor(0);
    m_axisY->setTickInterval(step);
}

} // namespace airlock::ui
