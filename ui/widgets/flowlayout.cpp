#include "widgets/flowlayout.h"

#include <QWidget>
#include <algorithm>

namespace airlock::ui {

namespace {

// The width an item asks for: its hint, never below its minimum nor above its maximum.
int wantedWidth(const QLayoutItem *item)
{
    return std::clamp(item->sizeHint().width(), item->minimumSize().width(), std::max(item->minimumSize().width(), item->maximumSize().width()));
}

bool expands(const QLayoutItem *item)
{
    return item->expandingDirections() & Qt::Horizontal;
}

} // namespace

FlowLayout::FlowLayout(QWidget *parent) : QLayout(parent) {}

FlowLayout::~FlowLayout()
{
    while (QLayoutItem *item = takeAt(0))
        delete item;
}

void FlowLayout::addItem(QLayoutItem *item)
{
    m_items.append(item);
    invalidate();
}

QLayoutItem *FlowLayout::takeAt(int index)
{
    if (index < 0 || index >= m_items.size())
        return nullptr;
    invalidate();
    return m_items.takeAt(index);
}

int FlowLayout::gap() const
{
    const int s = spacing();
    return s >= 0 ? s : 6;
}

int FlowLayout::heightForWidth(int width) const
{
    return arrange(QRect(0, 0, width, 0), false);
}

QSize FlowLayout::minimumSize() const
{
    QSize size;
    for (const QLayoutItem *item : m_items)
        if (!item->isEmpty())
            size = size.expandedTo(item->minimumSize());
    const QMargins m = contentsMargins();
    return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const
{
    int width = 0, height = 0, shown = 0;
    for (const QLayoutItem *item : m_items) {
        if (item->isEmpty())
            continue;
        width += wantedWidth(item) + (shown++ ? gap() : 0);
        height = std::max(height, item->sizeHint().height());
    }
    const QMargins m = contentsMargins();
    return {width + m.left() + m.right(), height + m.top() + m.bottom()};
}

void FlowLayout::setGeometry(const QRect &rect)
{
    QLayout::setGeometry(rect);
    arrange(rect, true);
}

int FlowLayout::arrange(const QRect &rect, bool place) const
{
    const QRect area = rect.marginsRemoved(contentsMargins());
    const int lineWidth = std::max(1, area.width());
    int y = area.y();
    QList<QLayoutItem *> line;
    QList<int> widths;

    // Gives the line's expanding items what is left of it, then places it.
    const auto finishLine = [&] {
        if (line.isEmpty())
            return;
        int used = 0, height = 0, growers = 0;
        for (int i = 0; i < line.size(); ++i) {
            used += widths[i] + (i ? gap() : 0);
            height = std::max(height, line[i]->sizeHint().height());
            growers += expands(line[i]) ? 1 : 0;
        }
        int left = std::max(0, lineWidth - used);
        for (int i = 0; i < line.size() && growers > 0; ++i) {
            if (!expands(line[i]))
                continue;
            const int extra = std::min(left / growers--, line[i]->maximumSize().width() - widths[i]);
            widths[i] += std::max(0, extra);
            left -= std::max(0, extra);
        }
        if (place) {
            int x = area.x();
            for (int i = 0; i < line.size(); ++i) {
                const int h = std::min(height, line[i]->maximumSize().height());
                line[i]->setGeometry(QRect(x, y + (height - h) / 2, widths[i], h));
                x += widths[i] + gap();
            }
        }
        y += height + gap();
        line.clear();
        widths.clear();
    };

    int x = 0;
    for (QLayoutItem *item : m_items) {
        if (item->isEmpty())
            continue;
        const int width = std::min(wantedWidth(item), std::max(item->minimumSize().width(), lineWidth));
        if (!line.isEmpty() && x + gap() + width > lineWidth) {
            finishLine();
            x = 0;
        }
        x += (line.isEmpty() ? 0 : gap()) + width;
        line.append(item);
        widths.append(width);
    }
    finishLine();
    const int used = y == area.y() ? 0 : y - area.y() - gap();
    return used + contentsMargins().top() + contentsMargins().bottom();
}

} // namespace airlock::ui
