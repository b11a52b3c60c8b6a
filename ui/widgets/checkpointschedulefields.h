#pragma once
// A checkpoint schedule as a person picks it: how often ("Off", every 5 minutes … every
// hour, or an interval set elsewhere) and how many automatic checkpoints to keep. The
// Snapshots tab and the New sandbox dialog both show one.
#include <QWidget>

class QComboBox;
class QSpinBox;

namespace airlock::ui {

class CheckpointScheduleFields : public QWidget {
    Q_OBJECT
public:
    explicit CheckpointScheduleFields(QWidget *parent = nullptr);
    // 0 when off.
    int everySeconds() const;
    int keep() const;
    // Shows a schedule read back from airlockd, adding its interval when the list lacks it.
    void showSchedule(int everySeconds, int keep);
    QComboBox *everyBox() const { return m_every; }
    QSpinBox *keepBox() const { return m_keep; }

Q_SIGNALS:
    // The person picked an interval, or finished editing the number kept while one is on.
    void edited();

private:
    QComboBox *m_every;
    QSpinBox *m_keep;
};

} // namespace airlock::ui
