#include "models/decisioncolors.h"

#include <QApplication>
#include <QPalette>

namespace airlock::ui {

QColor decisionColor(Decision d)
{
    const bool dark = QApplication::palette().color(QPalette::Base).lightness() < 128;
    switch (d) {
    case Decision::Allowed: return dark ? QColor(0x81, 0xc7, 0x84) : QColor(0x1b, 0x7f, 0x2a);
    case Decision::Denied: return dark ? QColor(0xef, 0x9a, 0x9a) : QColor(0xc6, 0x28, 0x28);
    case Decision::Pending: return dark ? QColor(0xff, 0xcc, 0x80) : QColor(0xb2, 0x6a, 0x00);
    case Decision::Dropped: break;
    }
    return QApplication::palette().color(QPalette::Text);
}

} // namespace airlock::ui
