#pragma once
// What the egress broker needs to know about one running sandbox's network: the bridge the
// guest's packets arrive on and the only source addresses the guest may use. The engine
// tells the broker when a sandbox's network comes up or goes away (EgressService).
#include "core/result.h"

#include <QString>
#include <QtGlobal>

namespace airlock {

struct SandboxNet {
    QString name;       // sandbox name
    QString bridge;     // host bridge interface, e.g. "alk-br3"
    quint32 guestIp = 0;   // host order: the one address the guest may send from
    quint32 gatewayIp = 0; // host order: the bridge's own address; the broker listens here
    QString mac;        // "52:54:00:..": the one MAC the guest may send from
    qint64 sandboxId = 0;  // sandboxes.id: its egress events are keyed by it (0 = none recorded)
    // The broker could not listen for this sandbox: its chains drop every packet of the
    // guest instead of redirecting to listeners that are not there (fail closed).
    bool dropAll = false;
};

// Ports the broker listens on, on each sandbox's gateway address. Nothing else on the host
// is reachable from a guest, and these only on the broker's own sockets: the listeners set
// IP_TRANSPARENT (needs CAP_NET_ADMIN or CAP_NET_RAW) and the table accepts redirected
// packets only for a socket that has it, so a process without those capabilities that binds
// the port (while airlockd is down, say) never receives a guest's packet.
struct BrokerPorts {
    quint16 proxy = 15001; // transparent TCP proxy (every guest TCP connection lands here)
    quint16 dns = 15053;   // resolver (every guest DNS packet, UDP and TCP, lands here)
};

// Builds one from the engine's text form (SandboxSpec: name, bridge, gateway, guestIp, mac),
// refusing anything the nftables ruleset could not express safely.
Result<SandboxNet> sandboxNetFromText(const QString &name, const QString &bridge, const QString &gateway,
                                      const QString &guestIp, const QString &mac);

QString ipv4ToString(quint32 hostOrder);
// Parses a dotted quad; false on anything else.
bool parseIpv4(const QString &text, quint32 *hostOrder);
bool isValidMac(const QString &mac);
bool isValidInterfaceName(const QString &name);

} // namespace airlock
