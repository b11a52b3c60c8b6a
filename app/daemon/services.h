#pragma once
#include "daemon/service.h"

#include <memory>
#include <vector>

namespace airlock {

class Daemon;

// Every service airlockd hosts, in start order (one line each in services.cpp).
std::vector<std::unique_ptr<Service>> makeServices(Daemon &daemon);

} // namespace airlock
