#include "crashpoint.h"

#ifdef AIRLOCK_CRASH_POINTS
#include "logging.h"

#include <QString>
#include <csignal>
#endif

namespace airlock {

#ifdef AIRLOCK_CRASH_POINTS
void crashPoint(const char *step)
{
    if (qEnvironmentVariable("AIRLOCK_TEST_CRASH_AT") == QLatin1String(step)) {
        qCWarning(lcDaemon) << "AIRLOCK_TEST_CRASH_AT: dying at" << step;
        ::raise(SIGKILL);
    }
}
#else
void crashPoint(const char *) {}
#endif

} // namespace airlock
