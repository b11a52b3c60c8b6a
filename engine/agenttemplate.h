#pragma once
// Agent templates: what `airlockctl create --template T` applies, as data in
// resources/templates/<name>.json:
//   {
//     "name": "claude-code",                  // = file name without .json, [a-z0-9-]+
//     "description": "...",                   // one line for people
//     "image": "agents",                      // the image the sandbox boots
//     "cpus": 2, "memory_mib": 2048, "disk_gib": 8,   // defaults; the caller's values win
//     "presets": ["anthropic"],               // egress presets applied to the sandbox
//     "opt_in_presets": ["npm", "pypi"],      // offered (create --preset), never applied alone
//     "secret": {                             // optional: the vault secret the agent expects
//       "name": "anthropic", "env": "ANTHROPIC_API_KEY",
//       "hosts": ["api.anthropic.com"], "header": "x-api-key: {}"
//     },
//     "login": {...},                         // optional: the CLI's sign-in (core/loginspec.h)
//     "env": {"DISABLE_TELEMETRY": "1"},      // guest environment; the caller's --env wins
//     "console": "claude",                    // started on the console before the shell ("" = shell)
//     "policy": "policies/claude-code.json"   // optional: a policy file (README "Policies as files")
//   }                                         // beside the template; its rules come with each sandbox
// Unknown keys are refused so a typo does not silently drop a setting.
#include "core/loginspec.h"
#include "core/result.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>

namespace airlock {

struct TemplateSecret {
    QString name;     // the vault secret's name
    QString envVar;   // the guest variable holding its placeholder
    QStringList hosts;
    QString header;   // e.g. "x-api-key: {}"
};

struct AgentTemplate {
    // The guest variable the agents image's init reads to start a command on the console.
    static constexpr const char *kConsoleVariable = "AIRLOCK_CONSOLE_COMMAND";

    QString name;
    QString description;
    QString image;
    int cpus = 1;
    int memoryMib = 256;
    int diskGib = 2;
    QStringList presets;
    QStringList optInPresets;
    bool hasSecret = false;
    TemplateSecret secret;
    std::optional<LoginSpec> login; // its sign-in's tokens are captured by the broker
    QMap<QString, QString> env;
    QString console;
    QString policy;     // "policy" as written: a path inside the templates directory, "" for none
    QString policyPath; // where loadAll found it

    // The guest's environment: the template's variables and its console command.
    QMap<QString, QString> guestEnvironment() const;

    static Result<AgentTemplate> parse(const QByteArray &json, const QString &source);
    // Every *.json in `dir`, sorted by name; any invalid file fails the whole load, as does a
    // template whose policy file is not there (its contents are checked where it is applied).
    static Result<QList<AgentTemplate>> loadAll(const QString &dir);
    // One by name; NotFound lists the templates there are.
    static Result<AgentTemplate> find(const QString &name, const QString &dir = directory());
    // $AIRLOCK_TEMPLATES_DIR, else <prefix>/share/airlock/templates next to the binary, else
    // the source tree's resources/templates (development builds).
    static QString directory();
};

} // namespace airlock
