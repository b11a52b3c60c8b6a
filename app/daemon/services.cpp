#include "daemon/services.h"
#include "daemon/daemon.h"

namespace airlock {

std::vector<std::unique_ptr<Service>> makeServices(Daemon &daemon)
{
    Q_UNUSED(daemon)
    std::vector<std::unique_ptr<Service>> services;
    return services;
}

} // namespace airlock
