#pragma once
// policy.export / policy.learn / policy.import: a scope's lasting egress rules as a policy
// file (broker/policyfile.h holds its format), and what importing one changes.
#include "protocol/payload.h"

namespace airlock::proto {

// policy.export and policy.import name a scope: exactly one of `sandbox` or `global`.
struct PolicyScope {
    std::optional<QString> sandbox;
    bool global = false;
    std::optional<PolicyFileFormat> format; // absent: json
    static void fields(auto &s, auto &f) { f("sandbox", s.sandbox)("global", s.global, Omitted)("format", s.format); }
    AIRLOCK_PAYLOAD(PolicyScope)
};

// policy.learn: what the decisions on one sandbox's attempts come to.
struct PolicyLearnParams {
    QString sandbox;
    std::optional<PolicyFileFormat> format; // absent: json
    static void fields(auto &s, auto &f) { f("sandbox", s.sandbox)("format", s.format); }
    AIRLOCK_PAYLOAD(PolicyLearnParams)
};

// policy.export's and policy.learn's answer: the file's text, ready to write.
struct PolicyText {
    QString policy;
    int rules = 0;
    int leftOut = 0;      // rules or decisions a file cannot hold
    QString leftOutWhy;   // "2 once, timed or session rules"
    static void fields(auto &s, auto &f) { f("policy", s.policy)("rules", s.rules)("left_out", s.leftOut)("left_out_why", s.leftOutWhy, Omitted); }
    AIRLOCK_PAYLOAD(PolicyText)
};

struct PolicyImportParams {
    std::optional<QString> sandbox;
    bool global = false;
    QString policy;       // the file's text (at most 512 KiB)
    QString source;       // its name, kept in each imported rule's origin
    bool dryRun = false;  // only say what would change
    bool replace = false; // the scope's lasting rules that the file lacks go
    QString expectPlan;   // a dry run's `plan`: applied only if the import would still do exactly that
    static void fields(auto &s, auto &f)
    {
        f("sandbox", s.sandbox)("global", s.global, Omitted)("policy", s.policy)("source", s.source);
        f("dry_run", s.dryRun, Omitted)("replace", s.replace, Omitted)("expect_plan", s.expectPlan, Omitted);
    }
    AIRLOCK_PAYLOAD(PolicyImportParams)
};

// One line of an import's diff.
struct PolicyChange {
    QString text;         // "allow github.com:443"
    qint64 rule = 0;      // the rule it is (keep, remove, conflict) or became (add, once applied)
    QString from;         // the file's "from", or the existing rule's origin
    static void fields(auto &s, auto &f) { f("text", s.text)("rule", s.rule, Defaulted)("from", s.from, Omitted); }
    AIRLOCK_PAYLOAD(PolicyChange)
};

struct PolicyImportResult {
    bool applied = false;
    QList<PolicyChange> add, keep, remove, conflicts;
    QString plan; // names these changes (PolicyImportPlan::fingerprint): send it back as expect_plan
    static void fields(auto &s, auto &f)
    {
        f("applied", s.applied)("add", s.add)("keep", s.keep)("remove", s.remove)("conflicts", s.conflicts);
        f("plan", s.plan, Omitted);
    }
    AIRLOCK_PAYLOAD(PolicyImportResult)
};

} // namespace airlock::proto
