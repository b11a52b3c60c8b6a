#pragma once
// The broker's side of a sandbox's network: the ports it listens on there. The network
// itself (SandboxNet, the address helpers) is core/sandboxnet.h, shared with the engine.
#include "core/sandboxnet.h"

#include <QtGlobal>

namespace airlock {

// Ports the broker listens on, on each sandbox's gateway address. Nothing else on the host
// is reachable from a guest, and these only on the broker's own sockets: the listeners set
// IP_TRANSPARENT (needs CAP_NET_ADMIN or CAP_NET_RAW) and the table accepts redirected
// packets only for a socket that has it, so a process without those capabilities that binds
// the port (while airlockd is down, say) never receives a guest's packet.
struct BrokerPorts {
    quint16 proxy = 15001; // transparent TCP proxy (every guest TCP connection lands here)
    quint16 dns = 15053;   // resolver (every guest DNS packet, UDP and TCP, lands here)
};

} // namespace airlock
