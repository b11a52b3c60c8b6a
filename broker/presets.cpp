#include "presets.h"

namespace airlock {

QList<Rule> Preset::toRules(const QString &sandbox, uid_t owner) const
{
    QList<Rule> out;
    for (const PresetRule &p : rules) {
        Rule r;
        r.sandbox = sandbox;
        r.owner = owner;
        r.allow = true;
        r.pattern = p.host;
        r.port = p.port;
        out.append(r);
    }
    return out;
}

Result<Preset> parsePreset(const QByteArray &, const QString &source)
{
    return Error{QStringLiteral("cannot read preset %1").arg(source), QStringLiteral("not implemented")};
}

Result<QList<Preset>> loadPresets(const QString &) { return QList<Preset>{}; }
QString presetsDirectory() { return {}; }

} // namespace airlock
