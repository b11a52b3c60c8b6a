#pragma once
#include "core/result.h"
#include "protocol/status.h"

namespace airlock {

class ApiServer;

// A slice of the daemon (sandboxes, egress, vault...): it registers its own methods and
// adds its fields to `status`, so the daemon core never grows per-feature code.
class Service {
public:
    virtual ~Service() = default;
    virtual QString name() const = 0;
    virtual Status start() { return ok(); }
    virtual void stop() {}
    virtual void registerMethods(ApiServer &api) = 0;
    virtual void contributeStatus(proto::DaemonStatus &status) const { Q_UNUSED(status) }
};

} // namespace airlock
