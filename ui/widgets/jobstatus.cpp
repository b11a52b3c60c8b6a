#include "widgets/jobstatus.h"

#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>

namespace airlock::ui {

JobStatus::JobStatus(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 100);
    m_progress->setValue(0);
    m_progress->hide();
    layout->addWidget(m_progress);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_message);
}

QString JobStatus::message() const
{
    return m_message->text();
}

void JobStatus::setMessage(const QString &text)
{
    m_message->setText(text);
    if (QWidget *w = window())
        w->adjustSize(); // wrapped lines need height a form does not ask for by itself
}

void JobStatus::started(const QString &format, const QString &message)
{
    m_progress->setValue(0);
    m_progress->setFormat(format);
    m_progress->show();
    setMessage(message);
}

void JobStatus::step(int percent, const QString &what)
{
    m_progress->setValue(percent);
    m_progress->setFormat(what.isEmpty() ? QStringLiteral("%p%") : what + QStringLiteral(" — %p%"));
}

void JobStatus::succeeded(const QString &message)
{
    m_progress->setValue(100);
    m_progress->setFormat(tr("done"));
    setMessage(message);
}

void JobStatus::failed(const QString &message)
{
    m_progress->hide();
    setMessage(message);
}

} // namespace airlock::ui
