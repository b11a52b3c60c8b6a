#pragma once
#include <QWidget>

class QLabel;
class QProgressBar;

namespace airlock::ui {

// The progress bar and the message under it of a dialog that runs one long job (an image
// build or import): hidden bar until the job starts, "STEP — N%" on the bar while it runs,
// the outcome as selectable, wrapped text that the dialog grows to fit.
class JobStatus : public QWidget {
    Q_OBJECT
public:
    explicit JobStatus(QWidget *parent = nullptr);

    QProgressBar *progressBar() const { return m_progress; }
    QString message() const;

    void setMessage(const QString &text);
    void started(const QString &format, const QString &message); // the bar shown at 0 with `format`
    void step(int percent, const QString &what);                // what is doing now; empty: only the number
    void succeeded(const QString &message);
    void failed(const QString &message); // the bar hidden again

private:
    QProgressBar *m_progress;
    QLabel *m_message;
};

} // namespace airlock::ui
