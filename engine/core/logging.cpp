#include "core/logging.h"

Q_LOGGING_CATEGORY(lcStore, "airlock.store", QtInfoMsg)
Q_LOGGING_CATEGORY(lcApi, "airlock.api", QtInfoMsg)
Q_LOGGING_CATEGORY(lcDaemon, "airlock.daemon", QtInfoMsg)
Q_LOGGING_CATEGORY(lcEngine, "airlock.engine", QtInfoMsg)
Q_LOGGING_CATEGORY(lcBroker, "airlock.broker", QtInfoMsg)
Q_LOGGING_CATEGORY(lcVault, "airlock.vault", QtInfoMsg)
Q_LOGGING_CATEGORY(lcUi, "airlock.ui", QtInfoMsg)
