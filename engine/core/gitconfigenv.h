#pragma once
// git reads extra configuration from its environment: GIT_CONFIG_COUNT=N with
// GIT_CONFIG_KEY_i / GIT_CONFIG_VALUE_i for i < N. Two sources of such entries (a person's
// own `--env`, and Airlock's credential helper for lent git tokens) must not overwrite each
// other's, so they are joined here.
#include <QMap>
#include <QString>

namespace airlock {

// `base` with `added` put into it: plain variables of `added` win, and its git entries are
// numbered after those of `base`, so both sets reach git. A count that is not a number
// from 0 to 1000 counts as no entries (git itself would refuse it).
QMap<QString, QString> withGitConfig(QMap<QString, QString> base, const QMap<QString, QString> &added);

} // namespace airlock
