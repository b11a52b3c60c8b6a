#pragma once
// airlockd's nftables table. For each sandbox
// bridge it lets the guest send only TCP and DNS from its own IP and MAC, redirects every
// TCP connection to the broker's transparent port and every DNS packet to the resolver,
// lets the guest reach nothing else on the host, never forwards its packets, and drops
// everything else after logging it to nflog group `logGroup` (DroppedPacketLog reads it).
// The table is always replaced whole in one nft transaction: never half-applied.
#include "core/result.h"
#include "sandboxnet.h"

#include <QList>
#include <QString>

namespace airlock {

class NftRuleset {
public:
    static constexpr const char *kDefaultTable = "airlock";
    static constexpr quint16 kDefaultLogGroup = 7411;

    // `table`: one per daemon, so two airlockd in one network namespace never replace each
    // other's rules (EgressService names it after its data directory).
    NftRuleset(BrokerPorts ports, quint16 logGroup = kDefaultLogGroup, const QString &table = QString::fromLatin1(kDefaultTable));
    NftRuleset(const NftRuleset &) = delete;
    NftRuleset &operator=(const NftRuleset &) = delete;

    // The nft script for these sandboxes (without the leading table replacement).
    static QString render(const QList<SandboxNet> &sandboxes, BrokerPorts ports, quint16 logGroup,
                          const QString &table = QString::fromLatin1(kDefaultTable));
    QString table() const { return m_table; }

    // Atomically replaces the table with one covering exactly `sandboxes` (reconcile).
    Status apply(const QList<SandboxNet> &sandboxes);
    // Removes the table (tests; uninstall). A running daemon keeps it, so guests stay closed.
    Status remove();
    // True when the table exists.
    bool present();

private:
    Status run(const QString &script, QString *output = nullptr);
    QString deleteBoth() const; // the inet table and its ARP companion
    BrokerPorts m_ports;
    quint16 m_logGroup;
    QString m_table;
};

} // namespace airlock
