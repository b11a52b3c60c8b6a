#include "daemon/policyservice.h"
#include "api/apiserver.h"
#include "api/peerpolicy.h"
#include "core/logging.h"
#include "eventlog.h"
#include "hostpattern.h"
#include "policyfile.h"
#include "protocol/names.h"
#include "rulestore.h"

#include <QHash>
#include <QSet>
#include <algorithm>

namespace airlock {

namespace {

// Learn reads at most this many of a sandbox's attempts, newest first.
constexpr int kMaxLearnPages = 100;

Error noSandbox(const QString &name)
{
    return Error{QStringLiteral("no sandbox named '%1'").arg(name), QStringLiteral("list sandboxes with airlockctl ls"), ErrorKind::NotFound};
}

// "" for global, or the sandbox; the same wording as rule.add for a bad pair.
Result<QString> scopeOf(const std::optional<QString> &sandbox, bool global)
{
    if (sandbox.has_value() == global || (sandbox && sandbox->isEmpty()))
        return Error{QStringLiteral("give exactly one of a sandbox (NAME) or --global"), {}, ErrorKind::InvalidParams};
    return sandbox.value_or(QString());
}

// The sandbox exists and is the caller's (someone else's is reported as missing).
Status checkSandbox(RuleStore &rules, const PeerPolicy &peers, uid_t uid, const QString &sandbox)
{
    if (sandbox.isEmpty())
        return ok();
    const Result<uid_t> owner = rules.sandboxOwner(sandbox);
    if (!owner && owner.error().kind != ErrorKind::NotFound)
        return owner.error();
    if (!owner || !peers.mayActOn(uid, *owner))
        return noSandbox(sandbox);
    return ok();
}

// The rules of exactly this scope (not the global ones under a sandbox) that `uid` may see.
Result<QList<Rule>> rulesOfScope(RuleStore &rules, const PeerPolicy &peers, uid_t uid, const QString &sandbox)
{
    Result<QList<Rule>> all = rules.list(sandbox);
    if (!all)
        return all.error();
    QList<Rule> out;
    for (const Rule &r : *all)
        if (r.sandbox == sandbox && peers.mayActOn(uid, r.owner))
            out.append(r);
    return out;
}

QList<proto::PolicyChange> changes(const QList<QPair<PolicyEntry, qint64>> &entries)
{
    QList<proto::PolicyChange> out;
    for (const auto &[entry, id] : entries)
        out.append({entry.describe(), id, entry.from});
    return out;
}

// Entries not yet rules: their ids come once they are added.
QList<proto::PolicyChange> changes(const QList<PolicyEntry> &entries)
{
    QList<proto::PolicyChange> out;
    for (const PolicyEntry &entry : entries)
        out.append({entry.describe(), 0, entry.from});
    return out;
}

// The decisions of a sandbox's attempts, newest first: one entry per destination, the latest
// decision winning. An attempt decided by a rule that still exists gives that rule (its
// pattern may cover a whole domain, its request part one git service); one allowed once
// gives its host and port (a single request allowed once gives nothing). A denial
// without a rule (nobody answered, "deny once", a check) is not a rule: the policy asks again.
struct Learned {
    PolicyFile file;
    int askedAgain = 0;
};

Learned learnFrom(QList<EgressEvent> events, const QList<Rule> &rules, const QString &sandbox)
{
    std::sort(events.begin(), events.end(), [](const EgressEvent &a, const EgressEvent &b) { return a.id > b.id; });
    Learned out;
    out.file.description = QStringLiteral("what sandbox %1 was allowed and denied").arg(sandbox);
    QHash<qint64, const Rule *> ruleById;
    for (const Rule &r : rules)
        ruleById.insert(r.id, &r);
    QSet<QString> seen; // targets decided already (newer attempts come first)
    int denialsWithoutRule = 0;
    for (const EgressEvent &e : std::as_const(events)) {
        const bool request = e.proto == QLatin1String("https"); // one request the interceptor read
        if (!request && e.proto != QLatin1String("tcp") && e.proto != QLatin1String("tls") && e.proto != QLatin1String("http"))
            continue;
        if (e.decision != Decision::Allowed && e.decision != Decision::Denied)
            continue;
        const Rule *rule = e.rule ? ruleById.value(e.rule) : nullptr;
        // A request counts through the rule that decided it (a rule of requests, say); one
        // answered once is not learned: its connection's own event says how that was let in.
        if (request && !rule)
            continue;
        PolicyEntry entry;
        if (rule) {
            entry = PolicyEntry::of(*rule);
        } else {
            // The name is the guest's (SNI, Host, its DNS query): it may become one host's rule,
            // never a pattern over many.
            const QString host = e.host.isEmpty() ? e.ip : e.host;
            const Result<HostPattern> one = HostPattern::parse(host);
            if (!one || (one->kind() != HostPattern::Kind::Exact && one->kind() != HostPattern::Kind::Address))
                continue;
            entry.host = one->text();
            entry.port = e.port;
            entry.allow = e.decision == Decision::Allowed;
            entry.rawTcp = entry.allow && e.proto == QLatin1String("tcp") && !e.host.isEmpty();
            entry.from = QStringLiteral("%1 attempt %2 (%3)").arg(entry.allow ? QStringLiteral("allowed") : QStringLiteral("denied"))
                             .arg(e.id).arg(EgressEvent::isoTime(e.time));
        }
        if (entry.host.isEmpty() || seen.contains(entry.targetKey()) || !Policy::validateNew(entry.toRule(sandbox, 0, {})))
            continue;
        seen.insert(entry.targetKey());
        if (!e.rule && e.decision == Decision::Denied) {
            ++denialsWithoutRule;
            continue;
        }
        out.file.rules.append(entry);
        if (out.file.rules.size() >= kMaxPolicyRules)
            break;
    }
    out.askedAgain = denialsWithoutRule;
    return out;
}

} // namespace

void PolicyService::registerMethods(ApiServer &api)
{
    api.registerMethod(proto::method::PolicyExport, [this](const Call &call) { exportPolicy(call); });
    api.registerMethod(proto::method::PolicyLearn, [this](const Call &call) { learn(call); });
    api.registerMethod(proto::method::PolicyImport, [this](const Call &call) { importPolicy(call); });
}

void PolicyService::exportPolicy(const Call &call)
{
    const Result<proto::PolicyScope> p = proto::PolicyScope::fromJson(call.params());
    if (!p)
        return call.fail(p.error());
    const Result<QString> scope = scopeOf(p->sandbox, p->global);
    if (!scope)
        return call.fail(scope.error());
    m_rules([this, call, sandbox = *scope, format = p->format.value_or(PolicyFileFormat::Json)](RuleStore &rules) {
        const uid_t uid = call.peer().uid;
        if (Status s = checkSandbox(rules, m_peers, uid, sandbox); !s)
            return call.fail(s.error());
        const Result<QList<Rule>> all = rulesOfScope(rules, m_peers, uid, sandbox);
        if (!all)
            return call.fail(all.error());
        PolicyFile file;
        file.description = sandbox.isEmpty() ? QStringLiteral("the global egress rules") : QStringLiteral("the egress rules of sandbox %1").arg(sandbox);
        int moments = 0;
        QSet<QString> targets; // a file names each host and port once: the first rule listed wins
        for (const Rule &r : *all) {
            if (!isLastingRule(r)) {
                ++moments;
                continue;
            }
            const PolicyEntry entry = PolicyEntry::of(r);
            if (!targets.contains(entry.targetKey())) {
                targets.insert(entry.targetKey());
                file.rules.append(entry);
            }
        }
        proto::PolicyText text{QString::fromUtf8(writePolicyFile(file, format)), int(file.rules.size()), moments, {}};
        if (moments)
            text.leftOutWhy = QStringLiteral("%1 once, timed or session rules (a policy file holds lasting rules only)").arg(moments);
        call.reply(text.toJson());
    });
}

void PolicyService::learn(const Call &call)
{
    const Result<proto::PolicyLearnParams> p = proto::PolicyLearnParams::fromJson(call.params());
    if (!p)
        return call.fail(p.error());
    if (p->sandbox.isEmpty())
        return call.fail(Error{QStringLiteral("policy.learn needs a sandbox"), {}, ErrorKind::InvalidParams});
    if (!m_events)
        return call.fail(Error{QStringLiteral("cannot learn a policy"), QStringLiteral("this daemon runs without the egress broker"),
                               ErrorKind::Unavailable});
    m_rules([this, call, sandbox = p->sandbox, format = p->format.value_or(PolicyFileFormat::Json)](RuleStore &rules) {
        if (Status s = checkSandbox(rules, m_peers, call.peer().uid, sandbox); !s)
            return call.fail(s.error());
        readAttempts(call, sandbox, format, 0, {}, 0);
    });
}

// One page of the sandbox's attempts after another, each asked of the event writer when the
// last has come: no thread waits for it, and the rules thread serves decisions meanwhile.
void PolicyService::readAttempts(const Call &call, const QString &sandbox, PolicyFileFormat format, qint64 before,
                                 QList<EgressEvent> events, int page)
{
    m_events->query(EventQuery{sandbox, before, EventLog::kMaxLimit, -1},
                    [this, call, sandbox, format, events = std::move(events), page](Result<QList<EgressEvent>> got) mutable {
        if (!got)
            return call.fail(got.error());
        const bool last = got->isEmpty() || page + 1 >= kMaxLearnPages;
        const qint64 next = got->isEmpty() ? 0 : got->constFirst().id; // a page comes oldest first
        events += *got;
        if (!last)
            return readAttempts(call, sandbox, format, next, std::move(events), page + 1);
        m_rules([call, sandbox, format, events = std::move(events)](RuleStore &rules) {
            const Result<QList<Rule>> known = rules.list(sandbox);
            if (!known)
                return call.fail(known.error());
            const Learned learned = learnFrom(events, *known, sandbox);
            proto::PolicyText text{QString::fromUtf8(writePolicyFile(learned.file, format)), int(learned.file.rules.size()), learned.askedAgain, {}};
            if (learned.askedAgain)
                text.leftOutWhy = QStringLiteral("%1 destinations denied without a rule (nobody answered, denied once, or a check "
                                                 "refused them): the policy asks for them again").arg(learned.askedAgain);
            call.reply(text.toJson());
        });
    });
}

void PolicyService::importPolicy(const Call &call)
{
    const Result<proto::PolicyImportParams> p = proto::PolicyImportParams::fromJson(call.params());
    if (!p)
        return call.fail(p.error());
    const Result<QString> scope = scopeOf(p->sandbox, p->global);
    if (!scope)
        return call.fail(scope.error());
    const QString source = p->source.isEmpty() ? QStringLiteral("(unnamed)") : p->source.left(256);
    Result<PolicyFile> file = parsePolicyFile(p->policy.toUtf8(), source);
    if (!file)
        return call.fail(file.error());
    m_rules([this, call, sandbox = *scope, file = *file, source, params = *p](RuleStore &rules) {
        const uid_t uid = call.peer().uid;
        if (Status s = checkSandbox(rules, m_peers, uid, sandbox); !s)
            return call.fail(s.error());
        Result<QList<Rule>> all = rulesOfScope(rules, m_peers, uid, sandbox);
        if (!all)
            return call.fail(all.error());
        QList<Rule> lasting;
        std::copy_if(all->cbegin(), all->cend(), std::back_inserter(lasting), isLastingRule);
        const PolicyImportPlan plan = planPolicyImport(file, lasting, params.replace);
        proto::PolicyImportResult result;
        result.keep = changes(plan.keep);
        result.remove = changes(plan.remove);
        result.conflicts = changes(plan.conflicts);
        result.add = changes(plan.add);
        result.plan = plan.fingerprint();
        if (params.dryRun)
            return call.reply(result.toJson());
        if (!params.expectPlan.isEmpty() && params.expectPlan != result.plan)
            return call.fail(Error{QStringLiteral("the rules of %1 changed since the difference was shown; nothing was applied")
                                       .arg(sandbox.isEmpty() ? QStringLiteral("the global scope") : QStringLiteral("sandbox ") + sandbox),
                                   QStringLiteral("run the import again to see the difference as it is now"), ErrorKind::Conflict});
        if (!plan.conflicts.isEmpty())
            return call.fail(Error{QStringLiteral("%1 says the opposite of %2 rule(s) already there (first: rule %3, %4)")
                                       .arg(source).arg(plan.conflicts.size()).arg(plan.conflicts.first().second)
                                       .arg(plan.conflicts.first().first.describe()),
                                   QStringLiteral("see the whole difference with --dry-run; import with --replace to make the "
                                                  "file's rules the only lasting ones, or remove those rules first"),
                                   ErrorKind::Conflict});
        QList<Rule> add;
        for (const PolicyEntry &e : plan.add)
            add.append(e.importedRule(sandbox, uid, source));
        QList<qint64> remove;
        for (const auto &gone : plan.remove)
            remove.append(gone.second);
        Result<QList<Rule>> added = rules.replace(remove, add);
        if (!added)
            return call.fail(added.error());
        for (qsizetype i = 0; i < added->size() && i < result.add.size(); ++i)
            result.add[i].rule = added->at(i).id;
        result.applied = true;
        qCInfo(lcBroker) << "policy file" << source << "imported into" << (sandbox.isEmpty() ? QStringLiteral("the global rules") : sandbox)
                         << "by uid" << uid << ":" << add.size() << "added," << remove.size() << "removed";
        call.reply(result.toJson());
    });
}

} // namespace airlock
