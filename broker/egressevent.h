#pragma once
// One egress attempt as the broker records it: a TCP flow, a DNS query or a dropped packet. Clients
// see it as the protocol's EgressEvent (app/daemon/egresswire.h converts). The same id is written again when the attempt changes (decided, closed).
#include "core/decision.h"
#include "guestprocess.h"

#include <QDateTime>
#include <QString>
#include <optional>

namespace airlock {

struct EgressEvent {
    qint64 id = 0;
    QString sandbox;
    QDateTime time;          // when the attempt started (UTC)
    QString proto;           // "tcp", "tls", "http", "dns", "udp", "icmp", "ipv6", ...
    QString host;            // the name the guest asked for ("" for a raw IP)
    QString ip;              // the address the guest used
    int port = 0;
    QString sni;
    QString method;
    QString path;
    Decision decision = Decision::Pending; // Dropped: a row for events the log had no room for
    qint64 rule = 0;         // the rule that decided; 0 = none (default policy, a check)
    QString reason;
    qint64 bytesUp = 0;
    qint64 bytesDown = 0;
    qint64 durationMs = 0;
    qint64 pendingItem = 0;  // while pending: the id of the item it waits in (not stored)
    bool request = false;    // one request the interceptor holds (not a connection): deciding it
                             // makes rules of requests (not stored)
    qint64 count = 1;        // identical denials folded into this row (DenialAggregator), or events dropped
    // What the guest reports opened the flow (guestprocess.h): its claim, never a decision's input.
    std::optional<GuestProcess> guestProcess;
    qint64 sandboxId = 0;    // the sandbox's row id, set by EventLog::record (0 = unknown); not shown

    // "2026-11-30T15:43:37.123Z" (core/isotime.h).
    static QString isoTime(const QDateTime &time);
    // One request the interceptor read (proto "https", its TLS name as host), starting now;
    // decision, reason and the byte counts are the caller's to set.
    static EgressEvent interceptedRequest(qint64 id, const QString &sandbox, const QString &host, int port, const QString &method,
                                          const QString &path);
};

} // namespace airlock
