#pragma once
// status: the daemon's version, its libvirt, and the broker's state.
#include "protocol/payload.h"

namespace airlock::proto {

struct EgressStatus {
    bool enforcing = false;
    QString nftTable;
    int proxyPort = 0;
    int dnsPort = 0;
    int sandboxes = 0;
    int holdTimeoutS = 0;
    qint64 eventsNotStored = 0; // since start: the event log could not write them (disk full)
    QString eventLogError;      // why, while it lasts; "" when events are stored
    static void fields(auto &s, auto &f)
    {
        f("enforcing", s.enforcing)("nft_table", s.nftTable)("proxy_port", s.proxyPort)("dns_port", s.dnsPort);
        f("sandboxes", s.sandboxes)("hold_timeout_s", s.holdTimeoutS);
        f("events_not_stored", s.eventsNotStored, Defaulted)("event_log_error", s.eventLogError, Defaulted);
    }
    AIRLOCK_PAYLOAD(EgressStatus)
};

struct DaemonStatus {
    QString version;
    QString libvirtUri;
    QString accel;                     // kvm | tcg
    VaultState vault = VaultState::Uninitialised;
    int sandboxes = 0;                 // of every user
    std::optional<EgressStatus> egress; // absent without the egress broker
    static void fields(auto &s, auto &f)
    {
        f("version", s.version)("libvirt_uri", s.libvirtUri)("accel", s.accel)("vault", s.vault)("sandboxes", s.sandboxes);
        f("egress", s.egress);
    }
    AIRLOCK_PAYLOAD(DaemonStatus)
};

} // namespace airlock::proto
