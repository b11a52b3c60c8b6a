#include "views/egresschart.h"
#include "models/decisioncolors.h"
#include "models/egressmodel.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QDateTime>
#include <QStackedBarSeries>
#include <QValueAxis>

namespace airlock::ui {

namespace {
constexpr int kMinutes = 30;
}

EgressChart::EgressChart(EgressModel *model, QWidget *parent) : QChartView(parent), m_model(model)
{
    auto *chart = new QChart;
    chart->setTitle(tr("Attempts per minute"));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setBackgroundVisible(false);
    chart->setMargins(QMargins(2, 2, 2, 2));
    // Follow the desktop theme: chart text in the palette's colours.
    chart->setTitleBrush(palette().color(QPalette::WindowText));
    chart->legend()->setLabelColor(palette().color(QPalette::WindowText));
    m_allowed = new QBarSet(tr("allowed"));
    m_denied = new QBarSet(tr("denied"));
    m_pending = new QBarSet(tr("pending"));
    m_allowed->setColor(decisionColor(Decision::Allowed));
    m_denied->setColor(decisionColor(Decision::Denied));
    m_pending->setColor(decisionColor(Decision::Pending));
    m_series = new QStackedBarSeries;
    m_series->append({m_allowed, m_denied, m_pending});
    chart->addSeries(m_series);
    m_axisX = new QBarCategoryAxis;
    m_axisY = new QValueAxis;
    m_axisY->setLabelFormat(QStringLiteral("%d"));
    for (QAbstractAxis *axis : {static_cast<QAbstractAxis *>(m_axisX), static_cast<QAbstractAxis *>(m_axisY)}) {
        axis->setLabelsColor(palette().color(QPalette::WindowText));
        axis->setGridLineColor(palette().color(QPalette::Mid));
    }
    chart->addAxis(m_axisX, Qt::AlignBottom);
    chart->addAxis(m_axisY, Qt::AlignLeft);
    m_series->attachAxis(m_axisX);
    m_series->attachAxis(m_axisY);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(160);

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
    QStringList categories;
    QList<qreal> allowed, denied, pending;
    int peak = 1;
    for (qint64 m = last - kMinutes + 1; m <= last; ++m) {
        const auto counts = buckets.value(m, {0, 0, 0});
        // Label every fifth minute; the others stay unique but blank-looking.
        const QString label = QDateTime::fromMSecsSinceEpoch(m * 60000).toString(QStringLiteral("HH:mm"));
        categories << ((m % 5 == 0) ? label : QString(int(m - last + kMinutes), QChar(0x200B)));
        allowed << counts[0];
        denied << counts[1];
        pending << counts[2];
        peak = std::max(peak, counts[0] + counts[1] + counts[2]);
    }
    m_allowed->remove(0, m_allowed->count());
    m_denied->remove(0, m_denied->count());
    m_pending->remove(0, m_pending->count());
    m_allowed->append(allowed);
    m_denied->append(denied);
    m_pending->append(pending);
    m_axisX->clear();
    m_axisX->append(categories);
    m_axisY->setRange(0, peak);
    m_axisY->applyNiceNumbers();
}

} // namespace airlock::ui
