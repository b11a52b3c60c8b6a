#include "daemon/services.h"
#include "daemon/daemon.h"
#include "daemon/ruleservice.h"
#include "daemon/vaultservice.h"

namespace airlock {

std::vector<std::unique_ptr<Service>> makeServices(Daemon &daemon)
{
    std::vector<std::unique_ptr<Service>> services;
    services.push_back(std::make_unique<RuleService>(daemon));
    services.push_back(std::make_unique<VaultService>(daemon));
    return services;
}

} // namespace airlock
