#pragma once
// Where the installed data files of one kind live (agent templates, egress presets, secret
// kinds): the directory named by an environment variable, else ../share/airlock/NAME beside
// the running program once installed, else the source tree's resources/NAME.
#include <QString>

namespace airlock {

QString resourceDirectory(const char *envVar, const QString &name);

} // namespace airlock
