#pragma once
// One sandbox's network as whoever guards it needs it: the bridge the guest's packets arrive
// on and the only addresses the guest may use. The engine describes it from its store
// (SandboxEngine::networkOf) and tells the egress broker when it comes up or goes away
// (engine/networkhooks.h, broker/egresscontrol.h); both take this one type.
#include "core/result.h"

#include <QList>
#include <QString>
#include <QtGlobal>

namespace airlock {

// A guest port reachable from the host's loopback ("expose"): host-to-guest only, relayed
// by broker/portforwarder.h while the guest runs.
struct ExposedPort {
    quint16 guestPort = 0;
    quint16 hostPort = 0;
    bool operator==(const ExposedPort &) const = default;
};

struct SandboxNet {
    QString name;       // sandbox name
    QString bridge;     // host bridge interface, e.g. "al-0fd90000"
    quint32 guestIp = 0;   // host order: the one address the guest may send from
    quint32 gatewayIp = 0; // host order: the bridge's own address (the guest's route and resolver); the broker listens here
    QString mac;        // "52:54:00:..": the one MAC the guest may send from
    qint64 sandboxId = 0;  // sandboxes.id: its egress events are keyed by it (0 = none recorded)
    // The broker could not listen for this sandbox: its chains drop every packet of the
    // guest instead of redirecting to listeners that are not there (fail closed).
    bool dropAll = false;
    QList<ExposedPort> exposed; // the guest's ports the host reaches on 127.0.0.1
};

// Builds one from the text the engine stores (dotted quads, a MAC), refusing anything the
// nftables ruleset could not express safely.
Result<SandboxNet> sandboxNetFromText(const QString &name, const QString &bridge, const QString &gateway,
                                      const QString &guestIp, const QString &mac, qint64 sandboxId = 0);

QString ipv4ToString(quint32 hostOrder);
// Parses a dotted quad; false on anything else.
bool parseIpv4(const QString &text, quint32 *hostOrder);
bool isValidMac(const QString &mac);
bool isValidInterfaceName(const QString &name);

} // namespace airlock
