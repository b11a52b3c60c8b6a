#include "resourcedir.h"

#include <QCoreApplication>
#include <QDir>

namespace airlock {

QString resourceDirectory(const char *envVar, const QString &name)
{
    const QString env = qEnvironmentVariable(envVar);
    if (!env.isEmpty())
        return env;
    if (QCoreApplication::instance()) {
        const QString installed =
            QDir(QCoreApplication::applicationDirPath()).absoluteFilePath(QStringLiteral("../share/airlock/") + name);
        if (QDir(installed).exists())
            return QDir::cleanPath(installed);
    }
    return QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/") + name;
}

} // namespace airlock
