#pragma once
#include "core/result.h"

#include <QString>
#include <functional>

namespace airlock::workspace {

// Reports a step of a long workspace operation ("copying the bundle", 40). Called on the
// thread doing the work; the GUI forwards it to its own thread.
using Progress = std::function<void(const QString &message, int percent)>;

// Asked between steps of a long operation; true stops it (and undoes what it made).
using Cancelled = std::function<bool()>;

inline bool isCancelled(const Cancelled &cancelled) { return cancelled && cancelled(); }

inline Error cancelledError(const QString &what)
{
    return Error{what, QStringLiteral("cancelled")};
}

inline void report(const Progress &progress, const QString &message, int percent)
{
    if (progress)
        progress(message, percent);
}

} // namespace airlock::workspace
