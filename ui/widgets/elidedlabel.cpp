#include "widgets/elidedlabel.h"

#include <QResizeEvent>

namespace airlock::ui {

ElidedLabel::ElidedLabel(QWidget *parent) : QLabel(parent)
{
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void ElidedLabel::setFullText(const QString &text)
{
    m_full = text;
    elide();
    updateGeometry();
}

QSize ElidedLabel::minimumSizeHint() const
{
    // Room for a few characters and the ellipsis: below that the text says nothing.
    return {fontMetrics().horizontalAdvance(QStringLiteral("Mmmmmmmm…")), QLabel::minimumSizeHint().height()};
}

QSize ElidedLabel::sizeHint() const
{
    return {fontMetrics().horizontalAdvance(m_full) + 2 * margin() + 4, QLabel::sizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    elide();
}

void ElidedLabel::elide()
{
    const QString shown = fontMetrics().elidedText(m_full, Qt::ElideRight, std::max(0, width() - 2 * margin()));
    if (shown != text())
        setText(shown);
}

} // namespace airlock::ui
