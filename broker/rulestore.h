#pragma once
// Rules persisted in the store's `rules` table, mirrored into a Policy. The store belongs to
// the thread that opened it: call a RuleStore from that thread only (the Policy it feeds is
// thread-safe and may be read anywhere).
#include "core/result.h"
#include "store/store.h"
#include "policy.h"

#include <QDateTime>
#include <QList>
#include <QStringList>
#include <optional>

namespace airlock {

class RuleStore {
public:
    RuleStore(Store &store, Policy &policy) : m_store(store), m_policy(policy) {}
    // The connection the rules are kept on; the egress settings changed at run time
    // (egress.configure) are written on it too, off the main thread.
    Store &store() { return m_store; }

    // Deletes expired rules, then loads every remaining rule into the policy.
    Status load(const QDateTime &now = QDateTime::currentDateTimeUtc());

    // Validates (pattern, port, sandbox exists), stores and adds to the policy. Returns the
    // rule with its id and created time. Error codes: InvalidParams, NotFound (sandbox).
    Result<Rule> add(Rule rule);
    // Adds several rules in one transaction: all or none (e.g. a preset's rules,
    // Preset::toRules). Returns them with their ids.
    Result<QList<Rule>> addAll(const QList<Rule> &rules);
    // Removes the rules `remove` (each must exist) and adds `rules`, in one transaction: all
    // or nothing (a policy file imported with --replace).
    Result<QList<Rule>> replace(const QList<qint64> &remove, const QList<Rule> &rules);
    // A fork gets its origin's lasting sandbox rules (not once rules, not expired ones), so it
    // reaches what the origin reaches without asking again. Returns how many were copied.
    Result<int> copySandboxRules(const QString &origin, const QString &fork);
    // NotFound when there is no such rule.
    Status remove(qint64 id);
    Result<std::optional<Rule>> find(qint64 id) const;
    // All rules, or those of one sandbox plus the global ones (ordered by id).
    Result<QList<Rule>> list(const QString &sandbox = {}) const;
    // Ends sessions: removes the until-stop rules of the sandboxes in `stopped`, or, when
    // `stopped` is empty, of every sandbox not in `running` (a daemon starting after a crash,
    // when guests may have stopped while nobody watched). Returns how many.
    Result<int> endSessions(const QStringList &stopped, const QStringList &running = {});
    // Removes expired rules from store and policy; returns how many.
    Result<int> purgeExpired(const QDateTime &now = QDateTime::currentDateTimeUtc());
    // Forgets in the policy the rules whose rows are gone without passing through this class
    // (a removed sandbox cascades its rules away; another connection removed one).
    Result<int> syncRemovals();
    // After Policy::decideAndConsume picked a once rule: forget it in the store too.
    Status consumed(qint64 id) { return removeRow(id, false); }

    bool sandboxExists(const QString &name) const;
    // The uid that created sandbox `name`; NotFound when there is none.
    Result<uid_t> sandboxOwner(const QString &name) const;

private:
    Status removeRow(qint64 id, bool mustExist); // store and policy
    Status deleteRow(qint64 id, bool mustExist); // the store only (inside a transaction)
    Result<Rule> insertRow(Rule rule); // the store only; the caller updates the policy
    Store &m_store;
    Policy &m_policy;
};

} // namespace airlock
