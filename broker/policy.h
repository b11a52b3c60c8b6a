#pragma once
// The egress policy: rules in memory and the decision for one target.
//
// PRECEDENCE (decide()), first difference wins:
//   0. Expired rules (expires <= now) are ignored. Rules of another sandbox are ignored.
//   1. Scope: a rule of the target's sandbox beats any global rule, whatever its pattern.
//      (A person's "deny for this sandbox" must not be overridden by a broad global allow,
//      and a sandbox allow may open what a global deny closes for this one sandbox.)
//   2. Pattern specificity (HostPattern::specificity): exact host / IP literal > CIDR by
//      prefix length (/32 > /24) > deeper *.domain > shallower *.domain > `*`.
//   3. Port: a rule for the target's port beats an any-port rule.
//   4. Action: deny beats allow.
//   5. Otherwise the lower (older) rule id.
//   No matching rule: Pending (the person decides; the data plane denies when nobody answers).
//
// Matching: host patterns match Target::host (normalised); address patterns (IP, CIDR) match
// Target::ip, which is always a REAL address: for a flow to a name it is unknown at decide()
// (the name is resolved only once allowed) and decideAddress() is asked again with the
// resolved address. A rule on the broker's synthetic 198.18.0.0/15 pool would mean a
// different name in every sandbox and after every restart: validateNew() refuses it. A target with no host (a guest connecting to a raw IP) is only matched by
// address patterns and `*`: `example.com` or `*.example.com` never match a bare IP, even if
// that IP once resolved to the name (IP reuse across names is common; rules are about names).
// `*` matches every target.
//
// Thread-safe: decide() and the mutators may be called from any thread.
#include "core/decision.h"
#include "core/result.h"
#include "hostpattern.h"
#include "requestpattern.h"

#include <QDateTime>
#include <QHostAddress>
#include <QList>
#include <QReadWriteLock>
#include <QSet>
#include <QString>
#include <QStringList>
#include <optional>
#include <sys/types.h>

namespace airlock {


struct Target {
    QString sandbox;      // sandbox name
    QString host;         // the name the flow was resolved as; "" for a raw IP
    QHostAddress ip;      // destination address when known (always for a raw IP)
    quint16 port = 0;
};

struct Rule {
    qint64 id = 0;
    QString sandbox;      // empty = global
    uid_t owner = 0;
    bool allow = false;
    QString pattern;
    int port = 0;         // 0 = any
    QDateTime expires;    // invalid = forever
    bool once = false;    // consumed by the first flow it decides
    bool rawTcp = false;  // this host:port may carry bytes the broker cannot verify (not TLS
                          // with a matching SNI, not HTTP with a matching Host)
    bool untilStop = false; // for this session: gone when its sandbox stops (RuleStore::endSessions)
    QDateTime created;
    QString origin;       // where it came from, for people: "rule.add", "decided on attempt 41",
                          // "preset npm", "policy file web.json"; never read by decide()
    RequestRule request;  // empty: the rule decides connections; else single requests (decideRequest)

    bool isGlobal() const { return sandbox.isEmpty(); }
    bool decidesRequests() const { return !request.isEmpty(); }
    bool expiredAt(const QDateTime &now) const { return expires.isValid() && expires <= now; }
};

// What the policy says for one target: Allowed, Denied, or Pending (no rule matched: ask).
struct Ruling {
    Decision decision = Decision::Pending;
    qint64 ruleId = 0;    // 0 when no rule matched
    QString reason;       // for the event log and the 403 page: "rule 7: allow *.npmjs.org (global)"
    bool once = false;    // the deciding rule was a once rule
    bool rawTcp = false;  // the deciding rule lets this host:port carry unverified bytes
};

class Policy {
public:
    Policy() = default;
    Policy(const Policy &other);
    Policy &operator=(const Policy &other);

    // Replaces all rules; rules with an invalid pattern are refused (none replaced).
    Status setRules(const QList<Rule> &rules);
    Status add(const Rule &rule);        // refuses an invalid pattern or a duplicate id
    bool remove(qint64 id);
    // Drops the rules of a sandbox that was removed (the store cascades its rows); returns how many.
    int removeSandbox(const QString &sandbox);
    QList<Rule> rules() const;
    // Drops rules with id <= `upTo` that are not in `present` (rows the store no longer has,
    // e.g. cascaded away with their sandbox). Rule ids only grow (AUTOINCREMENT), so a rule
    // added after `present` was read has a larger id and is kept. Returns how many.
    int pruneMissing(const QSet<qint64> &present, qint64 upTo);
    // Drops rules expired at `now`; returns their ids.
    QList<qint64> purgeExpired(const QDateTime &now);

    Ruling decide(const Target &target, const QDateTime &now) const;
    // decide(), and when the deciding rule is a once rule, removes it atomically so that two
    // concurrent flows cannot both use it. The caller then deletes it from the store.
    Ruling decideAndConsume(const Target &target, const QDateTime &now);
    // Only the address rules (IP, CIDR; not `*`), for the address a flow's name resolved to:
    // Allow opens an address UpstreamAddressCheck refuses, Deny closes it, Ask = no address rule.
    // Once rules are not consumed here (the flow was already decided by its name).
    Ruling decideAddress(const Target &target, const QDateTime &now) const;

    // Requests. decide() never reads a rule with a request part (it cannot allow a connection).
    // A flow that decide() ruled `flow` is decided request by request when a request rule
    // matches its host and port in a scope at least as near as the rule behind `flow` (a
    // sandbox rule outranks every global one; no rule: any scope). Deny: one of those rules
    // denies (a flow whose requests cannot be read must then not be let through whole).
    enum class RequestRules { None, AllowOnly, Deny };
    RequestRules requestRules(const Target &target, const Ruling &flow, const QDateTime &now) const;
    bool decidesPerRequest(const Target &target, const Ruling &flow, const QDateTime &now) const
    {
        return requestRules(target, flow, now) != RequestRules::None;
    }
    // One request of such a flow: every rule of the host counts, a request rule only when it
    // matches `request` (RequestPattern::matches). Precedence: scope, then a request rule over
    // a host rule (RequestPattern::specificity between request rules), then as decide().
    // Address rules are not read (the flow's address was decided when it connected).
    Ruling decideRequest(const Target &target, const RequestFacts &request, const QDateTime &now) const;

    // The names of request rules (global, or `sandbox`'s, in force at `now`) that a sandbox CA
    // can be constrained to (requestRuleNames): what its CA must cover for them to be read.
    QStringList requestRuleNames(const QString &sandbox, const QDateTime &now) const;
    // Of `rules`, the request rules' patterns that are names or *.domain (secrethosts); `*`,
    // a top-level wildcard or an address stay rules of connections where TLS cannot be read.
    static QStringList requestRuleNames(const QList<Rule> &rules);

    // Validates a rule alone (pattern, port range, raw TCP); the error is for the user.
    static Status validate(const Rule &rule);
    // validate(), and what a new rule may not say any more (a synthetic address).
    static Status validateNew(const Rule &rule);

private:
    struct Compiled {
        Rule rule;
        HostPattern pattern;
        std::optional<RequestPattern> request;
    };
    enum class Level { Flow, Address, Request };
    static Result<Compiled> compile(const Rule &rule);
    Ruling decideLocked(const Target &target, const QDateTime &now, qsizetype *index, Level level = Level::Flow,
                        const RequestFacts *request = nullptr) const;

    mutable QReadWriteLock m_lock;
    QList<Compiled> m_rules;
};

} // namespace airlock
