#pragma once
// Egress: the attempts a sandbox makes (egress.list, the `egress` and `pending` topics),
// a person's decision on a held one, and the rules (rule.*).
#include "protocol/payload.h"

namespace airlock::proto {

// One egress attempt; the same id is sent again when it changes (decided, closed).
struct EgressEvent {
    qint64 id = 0;
    QString sandbox;
    QDateTime time;   // when it started; on the wire with milliseconds
    QString proto;    // "tcp", "tls", "http", "https", "dns", "udp", "icmp", "ipv6", ...
    QString host;     // "" for a raw IP
    QString ip;
    int port = 0;
    QString sni;
    QString method;
    QString path;
    Decision decision = Decision::Denied;
    qint64 rule = 0;  // the deciding rule; 0 = none (null on the wire)
    QString reason;
    qint64 bytesUp = 0;
    qint64 bytesDown = 0;
    qint64 durationMs = 0;
    qint64 count = 1; // identical denials folded into this row, or the events a "dropped" row stands for
    AIRLOCK_PAYLOAD(EgressEvent)
};

struct EgressListParams {
    std::optional<QString> sandbox;
    bool pending = false;
    std::optional<int> limit;        // 1 to 1000 (100)
    std::optional<qint64> beforeId;  // newest
    AIRLOCK_PAYLOAD(EgressListParams)
};

struct EgressDecideParams {
    qint64 id = 0;
    QString action;                 // allow | deny
    std::optional<QString> scope;   // once | sandbox | global ("once")
    std::optional<QString> match;   // host | domain | ip ("host")
    std::optional<qint64> forS;
    bool rawTcp = false;
    AIRLOCK_PAYLOAD(EgressDecideParams)
};

// A rule (RuleService), as rule.list, rule.add and egress.decide's rule show it.
struct RuleInfo {
    qint64 id = 0;
    std::optional<QString> sandbox; // null: a global rule ("scope": "global")
    bool allow = false;             // "action": allow | deny
    QString pattern;
    int port = 0;                   // 0 = any
    std::optional<QDateTime> expires;
    bool once = false;
    bool rawTcp = false;
    qint64 ownerUid = 0;

    bool isGlobal() const { return !sandbox; }
    AIRLOCK_PAYLOAD(RuleInfo)
};

struct RuleListParams {
    std::optional<QString> sandbox; // omit: every rule the caller may act on
    AIRLOCK_PAYLOAD(RuleListParams)
};

// rule.add: exactly one of `sandbox` or `global`.
struct RuleAddParams {
    std::optional<QString> sandbox;
    bool global = false;
    QString action; // allow | deny
    QString host;
    std::optional<int> port;
    std::optional<qint64> forS;
    bool once = false;
    bool rawTcp = false;
    AIRLOCK_PAYLOAD(RuleAddParams)
};

// {id}: rule.remove's params and result.
struct IdParams {
    qint64 id = 0;
    AIRLOCK_PAYLOAD(IdParams)
};

} // namespace airlock::proto
