#pragma once
#include "core/decision.h"

#include <QColor>

namespace airlock::ui {

// The one place with fixed colours: green / red / amber for decisions, picked lighter
// on a dark palette so they stay readable.
QColor decisionColor(Decision d);

} // namespace airlock::ui
