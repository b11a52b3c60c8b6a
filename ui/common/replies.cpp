#include "common/replies.h"

#include <QCoreApplication>
#include <QLocale>

namespace airlock::ui {

QString formatDuration(qint64 s)
{
    if (s < 0)
        return {};
    if (s < 60)
        return QCoreApplication::translate("Format", "%1 s").arg(s);
    if (s < 3600)
        return QCoreApplication::translate("Format", "%1 min").arg(s / 60);
    if (s < 86400)
        return QCoreApplication::translate("Format", "%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
    return QCoreApplication::translate("Format", "%1 d %2 h").arg(s / 86400).arg((s % 86400) / 3600);
}

QString formatBytes(qint64 bytes) { return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat); }

} // namespace airlock::ui
