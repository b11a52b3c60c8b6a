#include "daemon/services.h"
#include "daemon/daemon.h"
#include "daemon/egressservice.h"

namespace airlock {

std::vector<std::unique_ptr<Service>> makeServices(Daemon &daemon)
{
    std::vector<std::unique_ptr<Service>> services;
    // Egress: the engine reaches it through EgressControl (sandboxUp/sandboxDown/reconcile).
    services.push_back(std::make_unique<EgressService>(daemon.config(), daemon.store(), daemon.api()));
    return services;
}

} // namespace airlock
