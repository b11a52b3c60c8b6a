#pragma once
// The whole window on a daemon the test owns, as a person sees it at launch: shown, then
// connecting. Auto-start is off so a missing test daemon fails instead of starting another.
#include "connection/daemonconnection.h"
#include "views/mainwindow.h"

inline void showAndConnect(airlock::ui::DaemonConnection &connection, airlock::ui::MainWindow &window)
{
    connection.setAutoStart(false);
    window.show();
    connection.start();
}
