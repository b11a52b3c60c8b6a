#pragma once
// What the egress broker needs to know about one running sandbox's network: the bridge the
// guest's packets arrive on and the only source addresses the guest may use. The engine
// tells the broker when a sandbox's network comes up or goes away (EgressService).
#include <QString>
#include <QtGlobal>

namespace airlock {

struct SandboxNet {
    QString name;       // sandbox name
    QString bridge;     // host bridge interface, e.g. "alk-br3"
    quint32 guestIp = 0;   // host order: the one address the guest may send from
    quint32 gatewayIp = 0; // host order: the bridge's own address; the broker listens here
    QString mac;        // "52:54:00:..": the one MAC the guest may send from
};

// Ports the broker listens on, on each sandbox's gateway address. Nothing else on the host
// is reachable from a guest.
struct BrokerPorts {
    quint16 proxy = 15001; // transparent TCP proxy (every guest TCP connection lands here)
    quint16 dns = 15053;   // resolver (every guest DNS packet, UDP and TCP, lands here)
};

QString ipv4ToString(quint32 hostOrder);
// Parses a dotted quad; false on anything else.
bool parseIpv4(const QString &text, quint32 *hostOrder);
bool isValidMac(const QString &mac);
bool isValidInterfaceName(const QString &name);

} // namespace airlock
