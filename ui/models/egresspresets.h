#pragma once
#include <QList>
#include <QString>
#include <QStringList>

namespace airlock::ui {

// The egress presets shipped in resources/egress-presets (installed to
// share/airlock/egress-presets): the hosts an agent or package manager needs, each opened
// with an allow rule (rule.add) when a sandbox is created with the preset.
struct EgressPreset {
    struct Rule {
        QString host;
        int port = 0; // 0: any port
        QString why;
    };
    QString name;
    QString description;
    QList<Rule> rules;

    // Where presets are looked for: $AIRLOCK_EGRESS_PRESETS, the installed data dirs, and
    // the source tree (for a build run in place).
    static QStringList searchPath();
    // Every valid preset of the first directory of `dirs` that has any, sorted by name.
    static QList<EgressPreset> load(const QStringList &dirs = searchPath());
};

} // namespace airlock::ui
