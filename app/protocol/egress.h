#pragma once
// Egress: the attempts a sandbox makes (egress.list, the `egress` and `pending` topics),
// a person's decision on a held one, and the rules (rule.*).
#include "protocol/payload.h"

namespace airlock::proto {

// The guest process that opened a flow, as the guest's helper reports it: the guest's claim,
// shown as such and never used by a rule.
struct GuestProcess {
    qint64 pid = 0;
    qint64 ppid = 0;
    QString comm;
    QString parent;  // the parent's comm
    QString cmdline; // at most 256 bytes
    QStringList chain; // the ancestors' comms below PID 1, oldest first, the parent last (at most 8)
    QString reportedBy = QStringLiteral("guest"); // who says so: only ever the guest's own report
    // How the CLI and the GUI show it, labelled as the guest's claim:
    // "the guest reports: curl (pid 123, parent sh 45): curl -s http://example.com/", and with
    // a chain "the guest reports: claude → node → sh → curl (pid 123, parent 45): curl …".
    QString describe() const;
    static void fields(auto &s, auto &f)
    {
        f("pid", s.pid)("ppid", s.ppid)("comm", s.comm)("parent", s.parent, Defaulted)("cmdline", s.cmdline, Defaulted);
        f("chain", s.chain, Defaulted)("reported_by", s.reportedBy, Defaulted);
    }
    AIRLOCK_PAYLOAD(GuestProcess)
};

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
    std::optional<GuestProcess> guestProcess; // absent: the guest reported none (yet)
    bool request = false; // a pending single request (method and path) on a connection the broker reads
    static void fields(auto &s, auto &f)
    {
        f("id", s.id)("sandbox", s.sandbox)("time", s.time, Millis)("proto", s.proto)("host", s.host)("ip", s.ip);
        f("port", s.port)("sni", s.sni)("method", s.method)("path", s.path)("decision", s.decision);
        f("rule", s.rule, Nulled)("reason", s.reason)("bytes_up", s.bytesUp)("bytes_down", s.bytesDown);
        f("duration_ms", s.durationMs)("count", s.count, Defaulted)("process", s.guestProcess)("request", s.request, Omitted);
    }
    AIRLOCK_PAYLOAD(EgressEvent)
};

struct EgressListParams {
    std::optional<QString> sandbox;
    bool pending = false;
    std::optional<int> limit;        // 1 to 1000 (100)
    std::optional<qint64> beforeId;  // newest
    static void fields(auto &s, auto &f)
    {
        f("sandbox", s.sandbox)("pending", s.pending, Omitted)("limit", s.limit)("before_id", s.beforeId);
    }
    AIRLOCK_PAYLOAD(EgressListParams)
};

// egress.configure params and result: how long an unanswered ask holds its flow (0: until
// someone answers).
struct EgressConfigureParams {
    int holdTimeoutS = 0;
    static void fields(auto &s, auto &f) { f("hold_timeout_s", s.holdTimeoutS); }
    AIRLOCK_PAYLOAD(EgressConfigureParams)
};

struct EgressDecideParams {
    qint64 id = 0;
    QString action;                 // allow | deny
    std::optional<QString> scope;   // once | sandbox | global ("once")
    std::optional<QString> match;   // host | domain | ip ("host")
    std::optional<qint64> forS;
    bool rawTcp = false;
    bool untilStop = false;         // scope sandbox only: the rule lasts until the sandbox stops
    std::optional<QString> path;    // a pending request: the rule names this path pattern instead of the exact path
    bool wholeHost = false;         // a pending request: a rule of the host, not of the request
    static void fields(auto &s, auto &f)
    {
        f("id", s.id)("action", s.action)("scope", s.scope)("match", s.match)("for_s", s.forS)("raw_tcp", s.rawTcp, Omitted);
        f("until_stop", s.untilStop, Omitted)("path", s.path)("whole_host", s.wholeHost, Omitted);
    }
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
    bool untilStop = false;         // removed when its sandbox stops
    qint64 ownerUid = 0;
    std::optional<QDateTime> created;
    QString origin;                 // "rule.add", "decided on attempt 41", "preset npm", "policy file web.json"
    // A rule that decides single requests (all omitted: it decides connections).
    QString method;                 // "GET"
    QString path;                   // "/repos/myorg/*"
    QString git;                    // "fetch" | "push"
    QString repo;                   // "myorg/*"

    bool isGlobal() const { return !sandbox; }
    // "GET /repos/myorg/*", "git push myorg/*", "" for a rule of connections.
    QString requestText() const;
    // And "scope" and "action", which RuleInfo::toJson and fromJson derive from sandbox and allow.
    static void fields(auto &s, auto &f)
    {
        f("id", s.id)("sandbox", s.sandbox, Nulled)("pattern", s.pattern)("port", s.port);
        f("expires", s.expires, Nulled)("once", s.once)("raw_tcp", s.rawTcp)("owner_uid", s.ownerUid);
        f("until_stop", s.untilStop, Defaulted)("created", s.created)("origin", s.origin, Omitted);
        f("method", s.method, Omitted)("path", s.path, Omitted)("git", s.git, Omitted)("repo", s.repo, Omitted);
    }
    AIRLOCK_PAYLOAD(RuleInfo)
};

struct RuleListParams {
    std::optional<QString> sandbox; // omit: every rule the caller may act on
    static void fields(auto &s, auto &f) { f("sandbox", s.sandbox); }
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
    bool untilStop = false;
    QString method;
    QString path;
    QString git;
    QString repo;
    static void fields(auto &s, auto &f)
    {
        f("sandbox", s.sandbox)("global", s.global, Omitted)("action", s.action)("host", s.host)("port", s.port);
        f("for_s", s.forS)("once", s.once, Omitted)("raw_tcp", s.rawTcp, Omitted)("until_stop", s.untilStop, Omitted);
        f("method", s.method, Omitted)("path", s.path, Omitted)("git", s.git, Omitted)("repo", s.repo, Omitted);
    }
    AIRLOCK_PAYLOAD(RuleAddParams)
};

// {id}: rule.remove's params and result.
struct IdParams {
    qint64 id = 0;
    static void fields(auto &s, auto &f) { f("id", s.id); }
    AIRLOCK_PAYLOAD(IdParams)
};

} // namespace airlock::proto
