#include "widgets/checkpointschedulefields.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>

namespace airlock::ui {

namespace {
constexpr int kDefaultKeep = 12; // airlockd's own default when a schedule names none
}

CheckpointScheduleFields::CheckpointScheduleFields(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_every = new QComboBox(this);
    m_every->setAccessibleName(tr("Automatic checkpoints"));
    m_every->addItem(tr("Off"), 0);
    for (const auto &[seconds, text] : QList<std::pair<int, QString>>{{300, tr("Every 5 minutes")}, {600, tr("Every 10 minutes")},
                                                                     {1800, tr("Every 30 minutes")}, {3600, tr("Every hour")}})
        m_every->addItem(text, seconds);
    m_keep = new QSpinBox(this);
    m_keep->setRange(1, 100);
    m_keep->setValue(kDefaultKeep);
    m_keep->setAccessibleName(tr("Automatic checkpoints kept"));
    m_keep->setEnabled(false);
    auto *keepLabel = new QLabel(tr("&keep the latest"), this);
    keepLabel->setBuddy(m_keep);
    layout->addWidget(m_every);
    layout->addWidget(keepLabel);
    layout->addWidget(m_keep);
    layout->addStretch();
    connect(m_every, &QComboBox::currentIndexChanged, this, [this] { m_keep->setEnabled(everySeconds() != 0); });
    connect(m_every, &QComboBox::activated, this, &CheckpointScheduleFields::edited);
    connect(m_keep, &QSpinBox::editingFinished, this, [this] {
        if (everySeconds() != 0)
            Q_EMIT edited();
    });
}

int CheckpointScheduleFields::everySeconds() const { return m_every->currentData().toInt(); }

int CheckpointScheduleFields::keep() const { return m_keep->value(); }

void CheckpointScheduleFields::showSchedule(int everySeconds, int keep)
{
    int index = m_every->findData(everySeconds);
    if (index < 0) { // set elsewhere (airlockctl) to an interval the list does not offer
        m_every->addItem(tr("Every %n second(s)", nullptr, everySeconds), everySeconds);
        index = m_every->count() - 1;
    }
    m_every->setCurrentIndex(index);
    if (everySeconds)
        m_keep->setValue(keep > 0 ? keep : kDefaultKeep);
}

} // namespace airlock::ui
