#pragma once
#include <QLoggingCategory>

// One category per subsystem, so `QT_LOGGING_RULES="airlock.broker.debug=true"` narrows output.
Q_DECLARE_LOGGING_CATEGORY(lcStore)
Q_DECLARE_LOGGING_CATEGORY(lcApi)
Q_DECLARE_LOGGING_CATEGORY(lcDaemon)
Q_DECLARE_LOGGING_CATEGORY(lcEngine)
Q_DECLARE_LOGGING_CATEGORY(lcBroker)
Q_DECLARE_LOGGING_CATEGORY(lcVault)
Q_DECLARE_LOGGING_CATEGORY(lcUi)
