#include "views/egresschart.h"
#include "models/decisioncolors.h"
#include "models/egressmodel.h"

#include <QAreaSeries>
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
    m_floor = new QLineSeries(chart);
    QLineSeries *below = m_floor;
    const std::array<std::pair<QString, Decision>, 3> bands{
        {{tr("allowed"), Decision::Allowed}, {tr("denied"), Decision::Denied}, {tr("pending"), Decision::Pending}}};
    for (size_t i = 0; i < bands.size(); ++i) {
        m_edges[i] = new QLineSeries(chart);
        auto *area = new QAreaSeries(m_edges[i], below);
        area->setName(bands[i].first);
        const QColor colour = decisionColor(bands[i].second);
        QColor fill = colour;
        fill.setAlpha(150);
        area->setBrush(fill);
        area->setPen(QPen(colour, 1.5));
        chart->addSeries(area);
        area->attachAxis(m_axisX);
        area->attachAxis(m_axisY);
        below = m_edges[i];
    }
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(130);
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
    std::array<QList<QPointF>, 3> edges;
    QList<QPointF> floor;
    int peak = 1;
    for (qint64 m = last - kMinutes + 1; m <= last; ++m) {
        const auto counts = buckets.value(m, {0, 0, 0});
        const qreal x = qreal(m * 60000);
        int top = 0;
        for (size_t i = 0; i < edges.size(); ++i) {
            top += counts[i];
            edges[i] << QPointF(x, top);
        }
        floor << QPointF(x, 0);
        peak = std::max(peak, top);
    }
    m_floor->replace(floor);
    for (size_t i = 0; i < edges.size(); ++i)
        m_edges[i]->replace(edges[i]);
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
