#pragma once
// airlockd's one nftables table (design.md, "Sandbox = ... network"). For each sandbox
// bridge it lets the guest send only TCP and DNS from its own IP and MAC, redirects every
// TCP connection to the broker's transparent port and every DNS packet to the resolver,
// lets the guest reach nothing else on the host, never forwards its packets, and drops
// everything else after logging it to nflog group `logGroup` (DroppedPacketLog reads it).
// The table is always replaced whole in one nft transaction: never half-applied.
#include "core/result.h"
#include "sandboxnet.h"

#include <QList>
#include <QString>

struct nft_ctx;

namespace airlock {

class NftRuleset {
public:
    static constexpr const char *kTable = "airlock";
    static constexpr quint16 kDefaultLogGroup = 7411;

    NftRuleset(BrokerPorts ports, quint16 logGroup = kDefaultLogGroup);
    ~NftRuleset();
    NftRuleset(const NftRuleset &) = delete;
    NftRuleset &operator=(const NftRuleset &) = delete;

    // The nft script for these sandboxes (without the leading table replacement).
    static QString render(const QList<SandboxNet> &sandboxes, BrokerPorts ports, quint16 logGroup);

    // Atomically replaces the table with one covering exactly `sandboxes` (reconcile).
    Status apply(const QList<SandboxNet> &sandboxes);
    // Removes the table (tests; uninstall). A running daemon keeps it, so guests stay closed.
    Status remove();
    // True when the table exists.
    bool present();

private:
    Status run(const QString &script, QString *output = nullptr);
    nft_ctx *m_ctx = nullptr;
    BrokerPorts m_ports;
    quint16 m_logGroup;
};

} // namespace airlock
