#include "models/egresspresets.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

namespace airlock::ui {

QStringList EgressPreset::searchPath()
{
    QStringList dirs;
    if (const QString env = qEnvironmentVariable("AIRLOCK_EGRESS_PRESETS"); !env.isEmpty())
        dirs << env;
    dirs << QStandardPaths::locateAll(QStandardPaths::GenericDataLocation, QStringLiteral("airlock/egress-presets"),
                                      QStandardPaths::LocateDirectory);
    dirs << QStringLiteral(AIRLOCK_SOURCE_EGRESS_PRESETS);
    return dirs;
}

QList<EgressPreset> EgressPreset::load(const QStringList &dirs)
{
    for (const QString &dir : dirs) {
        QList<EgressPreset> presets;
        const QStringList files = QDir(dir).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        for (const QString &file : files) {
            QFile f(QDir(dir).filePath(file));
            if (!f.open(QIODevice::ReadOnly))
                continue;
            const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
            EgressPreset p{o.value(QLatin1String("name")).toString(), o.value(QLatin1String("description")).toString(), {}};
            for (const QJsonValue &v : o.value(QLatin1String("rules")).toArray()) {
                const QJsonObject r = v.toObject();
                if (!r.value(QLatin1String("host")).toString().isEmpty())
                    p.rules.append({r.value(QLatin1String("host")).toString(), r.value(QLatin1String("port")).toInt(),
                                    r.value(QLatin1String("why")).toString()});
            }
            // The daemon's parser (broker/presets) is the strict one; here a broken file is just not offered.
            if (!p.name.isEmpty() && !p.rules.isEmpty())
                presets.append(p);
        }
        if (!presets.isEmpty())
            return presets;
    }
    return {};
}

} // namespace airlock::ui
