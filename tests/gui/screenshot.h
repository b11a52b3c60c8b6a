#pragma once
// For people to look at what a GUI test drove: with AIRLOCK_SCREENSHOTS=DIR set (e.g. under
// xvfb-run with QT_QPA_PLATFORM=xcb), saves the widget as DIR/NAME.png; otherwise does nothing.
#include <QDir>
#include <QPixmap>
#include <QWidget>

inline void saveScreenshot(QWidget *widget, const QString &name)
{
    const QString dir = qEnvironmentVariable("AIRLOCK_SCREENSHOTS");
    if (dir.isEmpty() || !widget)
        return;
    QDir().mkpath(dir);
    widget->window()->grab().save(QDir(dir).filePath(name + QStringLiteral(".png")));
}
