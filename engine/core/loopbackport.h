#pragma once
// Whether a TCP port on the host's loopback address is free now, for choosing where an
// exposed guest port is reached (the listener itself is broker/portforwarder.h's).
#include "core/result.h"

#include <QtGlobal>

namespace airlock {

// Binds 127.0.0.1:`port` (0: a port the kernel picks) and lets it go; the port that was
// free, or why none was. Another program may take it before it is bound for good.
Result<quint16> freeLoopbackPort(quint16 port);

} // namespace airlock
