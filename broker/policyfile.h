#pragma once
// Policy files: a scope's egress rules as a readable, versioned JSON or YAML file that a
// person keeps with a project (airlockctl policy export / import / learn). Version 1 in JSON
// (in YAML the same keys and values, `rules` a block sequence):
//   {
//     "airlock_policy": 1,
//     "description": "what the web project's agent reaches",      // optional, one line
//     "rules": [
//       {"action": "allow", "host": "github.com", "port": 443,
//        "why": "clone and fetch", "from": "decided on attempt 41 (uid 1000, 2026-12-03T10:00:00Z)"},
//       {"action": "deny", "host": "*.example.com"},
//       {"action": "allow", "host": "db.internal", "port": 5432, "raw_tcp": true},
//       {"action": "allow", "host": "github.com", "git": "push", "repo": "myorg/*"},
//       {"action": "allow", "host": "api.github.com", "method": "GET", "path": "/repos/myorg/*"}
//     ]
//   }
// "host" is a HostPattern (exact, *.domain, IP, CIDR, `*`); "port" is optional (absent: any);
// "raw_tcp" as `rule add --raw-tcp`; "method", "path", "git", "repo" as `rule add --method`
// ... (a rule of single requests, requestpattern.h); "why" and "from" are for people and are kept with the
// imported rule. Unknown keys are refused. A file holds lasting rules only: once, timed and
// session rules are moments, not policy.
//
// A policy file may have been written by the agent (it sits in the project the guest edits):
// the parser is bounded and fuzzed, and an import shows what it would change before it does.
#include "core/policylimits.h"
#include "core/result.h"
#include "policy.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace airlock {

struct PolicyEntry {
    bool allow = false;
    QString host; // normalised pattern text
    int port = 0; // 0 = any
    bool rawTcp = false;
    RequestRule request; // normalized (RequestPattern::parse); empty: a rule of connections
    QString why;
    QString from;

    // The same rule (action aside): what an import compares.
    bool sameTarget(const PolicyEntry &other) const { return host == other.host && port == other.port && request == other.request; }
    // "github.com:443", "github.com:0 git push myorg/*": equal exactly when sameTarget is, for sets.
    QString targetKey() const
    {
        return host + QLatin1Char(':') + QString::number(port) + (request.isEmpty() ? QString() : QLatin1Char(' ') + request.text());
    }
    bool sameRule(const PolicyEntry &other) const { return sameTarget(other) && allow == other.allow && rawTcp == other.rawTcp; }
    // "allow github.com:443", "deny *.example.com:any (raw TCP)", "allow github.com:any git push myorg/*"
    QString describe() const;

    // A lasting rule as an entry; "from" says where it came from, who made it and when.
    static PolicyEntry of(const Rule &rule);
    // The entry as a new rule of `sandbox` ("" = global), owned by `owner`.
    Rule toRule(const QString &sandbox, uid_t owner, const QString &origin) const;
    // The same, imported from the policy file `source`: its origin names the file and the
    // entry's "from".
    Rule importedRule(const QString &sandbox, uid_t owner, const QString &source) const;
};

struct PolicyFile {
    QString description;
    QList<PolicyEntry> rules;
};

// JSON when the text starts with '{', YAML otherwise (yamlreader.h: the part of YAML that
// JSON can say). `source` names the file in errors. Every rule is validated as `rule add` would.
Result<PolicyFile> parsePolicyFile(const QByteArray &bytes, const QString &source);
// One rule per line (JSON) or one key per line (YAML), keys in the order above;
// parsePolicyFile reads either back unchanged.
QByteArray writePolicyFile(const PolicyFile &file, PolicyFileFormat format);

// What importing a file into a scope changes, given the scope's lasting rules.
struct PolicyImportPlan {
    QList<PolicyEntry> add;
    QList<QPair<PolicyEntry, qint64>> keep;      // already there, as rule id
    QList<QPair<PolicyEntry, qint64>> remove;    // only with replace: lasting rules the file does not have
    QList<QPair<PolicyEntry, qint64>> conflicts; // the file says the opposite for the same host and port

    // The same text for the same changes to the same rules: an import shown as a dry run is
    // applied only while it would still do exactly what was shown.
    QString fingerprint() const;
};
// `existing`: the target scope's lasting rules (no once, timed or session rules). With
// `replace`, every existing rule the file does not have goes, conflicting ones included.
PolicyImportPlan planPolicyImport(const PolicyFile &file, const QList<Rule> &existing, bool replace);
// A rule a policy file may hold: not once, not timed, not for one session.
bool isLastingRule(const Rule &rule);

} // namespace airlock
