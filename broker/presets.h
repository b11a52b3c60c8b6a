#pragma once
// Egress presets: the hosts common agents and package managers need, as data
// (resources/egress-presets/<name>.json). Format:
//   {
//     "name": "npm",                              // = file name without .json, [a-z0-9-]+
//     "description": "the npm registry",          // one line for people
//     "rules": [                                  // at least one
//       {"host": "registry.npmjs.org", "port": 443, "why": "package metadata and tarballs"}
//     ]
//   }
// "host" is a HostPattern (exact, *.domain, IP, CIDR); "port" is optional (absent = any);
// "why" is required (a preset must say why it opens each host). "method" and "path", or
// "git" and "repo", make the rule one of single requests (requestpattern.h), as `rule add
// --method ...` does. Presets only ever allow; unknown keys are refused so typos do not
// silently widen or narrow a preset.
// A preset may take parameters: "parameters": {"org": "the organisation ..."} declares
// them, and "{org}" in a rule's "path" or "repo" is replaced by the value given with the
// preset ("github-push-to-org:org=myorg", PresetUse). Every parameter declared is used and
// every one used is declared.
#include "core/result.h"
#include "policy.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>

namespace airlock {

struct PresetRule {
    QString host;
    int port = 0;
    RequestRule request; // empty: the rule allows connections to the host
    QString why;
};

struct Preset {
    QString name;
    QString description;
    QMap<QString, QString> parameters; // name -> what its value is, for people
    QList<PresetRule> rules;           // with parameters: "{name}" still in path and repo
    QMap<QString, QString> values;     // the parameters' values once filled

    // Allow rules for `sandbox` ("" = global) owned by `owner`, ready for RuleStore::add;
    // a preset with parameters must be filled first.
    QList<Rule> toRules(const QString &sandbox, uid_t owner) const;
    // The preset with each "{name}" replaced by its value. A value is one name (letters,
    // digits, '.', '_', '-'): it can never widen a rule to more than one organisation or path.
    Result<Preset> filled(const QMap<QString, QString> &values) const;
};

// A preset as named in `create --preset` and a template: "npm", or
// "github-push-to-org:org=myorg" (several as "name:a=1,b=2").
struct PresetUse {
    QString name;
    QMap<QString, QString> values;
};
Result<PresetUse> parsePresetUse(const QString &text);

Result<Preset> parsePreset(const QByteArray &json, const QString &source);
// Loads every *.json in `dir`, sorted by name; any invalid file fails the whole load.
Result<QList<Preset>> loadPresets(const QString &dir);
// $AIRLOCK_PRESETS_DIR, else <prefix>/share/airlock/egress-presets next to the binary,
// else the source tree's resources/egress-presets (development builds).
QString presetsDirectory();

} // namespace airlock
