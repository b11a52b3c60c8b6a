#pragma once
#include <QString>
#include <functional>

namespace airlock::workspace {

// Reports a step of a long workspace operation ("copying the bundle", 40). Called on the
// thread doing the work; the GUI forwards it to its own thread.
using Progress = std::function<void(const QString &message, int percent)>;

inline void report(const Progress &progress, const QString &message, int percent)
{
    if (progress)
        progress(message, percent);
}

} // namespace airlock::workspace
