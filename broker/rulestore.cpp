#include "rulestore.h"
#include "core/logging.h"

#include <QSqlRecord>

namespace airlock {

namespace {

// Longer origins (a chain of imported files) are cut: they are for people, not for decisions.
constexpr qsizetype kMaxOriginLength = 1024;

// A null QString binds as NULL; the text columns are NOT NULL.
QString column(const QString &text) { return text.isNull() ? QStringLiteral("") : text; }

QString timeText(const QDateTime &t) { return t.toUTC().toString(Qt::ISODateWithMs); }

QDateTime timeFrom(const QVariant &v)
{
    if (v.isNull())
        return {};
    QDateTime t = QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
    if (t.isValid())
        t = t.toUTC();
    return t;
}

const QString kSelect = QStringLiteral(
    "SELECT r.id, s.name, r.owner_uid, r.action, r.pattern, r.port, r.expires, r.once, r.created, r.raw_tcp, r.until_stop, r.origin, "
    "r.method, r.path, r.git, r.repo "
    "FROM rules r LEFT JOIN sandboxes s ON s.id = r.sandbox_id ");

Rule ruleFrom(const QSqlRecord &q)
{
    Rule r;
    r.id = q.value(0).toLongLong();
    r.sandbox = q.value(1).toString();
    r.owner = uid_t(q.value(2).toLongLong());
    r.allow = q.value(3).toString() == QLatin1String("allow");
    r.pattern = q.value(4).toString();
    r.port = q.value(5).isNull() ? 0 : q.value(5).toInt();
    r.expires = timeFrom(q.value(6));
    r.once = q.value(7).toInt() != 0;
    r.created = timeFrom(q.value(8));
    r.rawTcp = q.value(9).toInt() != 0;
    r.untilStop = q.value(10).toInt() != 0;
    r.origin = q.value(11).toString();
    r.request = {q.value(12).toString(), q.value(13).toString(), q.value(14).toString(), q.value(15).toString()};
    return r;
}

} // namespace

bool RuleStore::sandboxExists(const QString &name) const
{
    const auto row = m_store.firstRow(QStringLiteral("SELECT 1 FROM sandboxes WHERE name = ?"), {name});
    if (!row)
        qCWarning(lcBroker) << "cannot look up sandbox" << name << ":" << row.error().message();
    return row && row->has_value(); // unreadable counts as absent: a rule for it is refused
}

Result<uid_t> RuleStore::sandboxOwner(const QString &name) const
{
    const auto row = m_store.firstRow(QStringLiteral("SELECT owner_uid FROM sandboxes WHERE name = ?"), {name});
    if (!row)
        return Error{QStringLiteral("cannot look up sandbox %1").arg(name), row.error().why};
    if (!*row)
        return Error{QStringLiteral("no sandbox named '%1'").arg(name), {}, ErrorKind::NotFound};
    return uid_t((*row)->value(0).toLongLong());
}

Status RuleStore::load(const QDateTime &now)
{
    if (Result<int> purged = purgeExpired(now); !purged)
        return purged.error();
    Result<QList<Rule>> all = list();
    if (!all)
        return all.error();
    return m_policy.setRules(*all);
}

Result<Rule> RuleStore::insertRow(Rule rule)
{
    rule.pattern = rule.pattern.trimmed();
    if (Status s = Policy::validateNew(rule); !s)
        return s.error();
    if (Result<HostPattern> p = HostPattern::parse(rule.pattern))
        rule.pattern = p->text();
    if (rule.decidesRequests())
        rule.request = RequestPattern::parse(rule.request)->rule(); // stored as it is matched
    QVariant sandboxId;
    if (!rule.isGlobal()) {
        const auto row = m_store.firstRow(QStringLiteral("SELECT id FROM sandboxes WHERE name = ?"), {rule.sandbox});
        if (!row)
            return Error{QStringLiteral("cannot look up sandbox %1").arg(rule.sandbox), row.error().why};
        if (!*row)
            return Error{QStringLiteral("no sandbox named '%1'").arg(rule.sandbox),
                         QStringLiteral("create it first (airlockctl create), or add a --global rule"), ErrorKind::NotFound};
        sandboxId = (*row)->value(0);
    }
    if (!rule.created.isValid())
        rule.created = QDateTime::currentDateTimeUtc();
    Result<qint64> id = m_store.write(
        QStringLiteral("INSERT INTO rules (sandbox_id, owner_uid, action, pattern, port, expires, once, created, raw_tcp, until_stop, origin, "
                       "method, path, git, repo) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        {sandboxId, qint64(rule.owner), rule.allow ? QStringLiteral("allow") : QStringLiteral("deny"), rule.pattern,
         rule.port ? QVariant(rule.port) : QVariant(), rule.expires.isValid() ? QVariant(timeText(rule.expires)) : QVariant(),
         rule.once ? 1 : 0, timeText(rule.created), rule.rawTcp ? 1 : 0, rule.untilStop ? 1 : 0,
         column(rule.origin.left(kMaxOriginLength)), column(rule.request.method), column(rule.request.path),
         column(rule.request.git), column(rule.request.repo)});
    if (!id)
        return Error{QStringLiteral("cannot store the rule"), id.error().why};
    rule.id = *id;
    return rule;
}

Result<Rule> RuleStore::add(Rule rule)
{
    Result<Rule> stored = insertRow(std::move(rule));
    if (!stored)
        return stored;
    if (Status s = m_policy.add(*stored); !s) {
        if (Status removed = removeRow(stored->id, false); !removed) // the rule is not in the policy either way
            qCWarning(lcBroker) << "cannot remove the refused rule" << stored->id << ":" << removed.error().message();
        return s.error();
    }
    return stored;
}

Result<QList<Rule>> RuleStore::addAll(const QList<Rule> &rules) { return replace({}, rules); }

Result<QList<Rule>> RuleStore::replace(const QList<qint64> &remove, const QList<Rule> &rules)
{
    QList<Rule> stored;
    Status s = m_store.transaction([&]() -> Status {
        for (qint64 id : remove)
            if (Status gone = deleteRow(id, true); !gone)
                return gone;
        for (const Rule &r : rules) {
            Result<Rule> one = insertRow(r);
            if (!one)
                return Error{QStringLiteral("cannot add the rule for %1").arg(r.pattern), one.error().message(), one.error().kind};
            stored.append(*one);
        }
        return ok();
    });
    if (!s)
        return s.error();
    for (qint64 id : remove)
        m_policy.remove(id);
    for (const Rule &r : std::as_const(stored))
        m_policy.add(r); // ids are fresh and patterns validated: cannot fail
    return stored;
}

Result<int> RuleStore::copySandboxRules(const QString &origin, const QString &fork)
{
    Result<QList<Rule>> all = list(origin);
    if (!all)
        return all.error();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QList<Rule> copies;
    for (Rule r : all.value()) {
        // A fork is a session of its own: the origin's session rules stay the origin's.
        if (r.sandbox != origin || r.once || r.untilStop || r.expiredAt(now))
            continue;
        r.id = 0;
        r.sandbox = fork;
        r.origin = QStringLiteral("copied from %1").arg(origin) + (r.origin.isEmpty() ? QString() : QStringLiteral(": ") + r.origin);
        copies.append(r);
    }
    if (copies.isEmpty())
        return 0;
    Result<QList<Rule>> added = addAll(copies);
    if (!added)
        return added.error();
    return int(added->size());
}

Status RuleStore::deleteRow(qint64 id, bool mustExist)
{
    const Result<int> removed = m_store.change(QStringLiteral("DELETE FROM rules WHERE id = ?"), {id});
    if (!removed)
        return Error{QStringLiteral("cannot remove rule %1").arg(id), removed.error().why};
    if (mustExist && *removed == 0)
        return Error{QStringLiteral("no rule %1").arg(id), QStringLiteral("list the rules with airlockctl rule ls"),
                     ErrorKind::NotFound};
    return ok();
}

Status RuleStore::removeRow(qint64 id, bool mustExist)
{
    Status s = deleteRow(id, mustExist);
    if (s || s.error().kind == ErrorKind::NotFound)
        m_policy.remove(id);
    return s;
}

Status RuleStore::remove(qint64 id) { return removeRow(id, true); }

Result<std::optional<Rule>> RuleStore::find(qint64 id) const
{
    const auto row = m_store.firstRow(kSelect + QStringLiteral("WHERE r.id = ?"), {id});
    if (!row)
        return Error{QStringLiteral("cannot read rule %1").arg(id), row.error().why};
    if (!*row)
        return std::optional<Rule>();
    return std::optional<Rule>(ruleFrom(**row));
}

Result<QList<Rule>> RuleStore::list(const QString &sandbox) const
{
    const auto rows = sandbox.isEmpty()
                          ? m_store.rows(kSelect + QStringLiteral("ORDER BY r.id"))
                          : m_store.rows(kSelect + QStringLiteral("WHERE r.sandbox_id IS NULL OR s.name = ? ORDER BY r.id"), {sandbox});
    if (!rows)
        return Error{QStringLiteral("cannot list rules"), rows.error().why};
    QList<Rule> out;
    for (const QSqlRecord &row : *rows)
        out.append(ruleFrom(row));
    return out;
}

Result<int> RuleStore::syncRemovals()
{
    const auto ids = m_store.rows(QStringLiteral("SELECT id FROM rules"));
    if (!ids)
        return Error{QStringLiteral("cannot list rule ids"), ids.error().why};
    QSet<qint64> present;
    for (const QSqlRecord &row : *ids)
        present.insert(row.value(0).toLongLong());
    // The highest id ever handed out, even if that row is gone (sqlite_sequence, AUTOINCREMENT).
    const auto seq = m_store.firstRow(QStringLiteral("SELECT seq FROM sqlite_sequence WHERE name = 'rules'"));
    if (!seq)
        return Error{QStringLiteral("cannot read the last rule id"), seq.error().why};
    const qint64 upTo = *seq ? (*seq)->value(0).toLongLong() : 0;
    return m_policy.pruneMissing(present, upTo);
}

Result<int> RuleStore::endSessions(const QStringList &stopped, const QStringList &running)
{
    Result<QList<Rule>> all = list();
    if (!all)
        return all.error();
    int removed = 0;
    for (const Rule &r : *all) {
        const bool ended = stopped.isEmpty() ? !running.contains(r.sandbox) : stopped.contains(r.sandbox);
        if (!r.untilStop || !ended)
            continue;
        if (Status s = removeRow(r.id, false); !s)
            return s.error();
        ++removed;
    }
    return removed;
}

Result<int> RuleStore::purgeExpired(const QDateTime &now)
{
    Result<QList<Rule>> all = list();
    if (!all)
        return all.error();
    int removed = 0;
    for (const Rule &r : *all) {
        if (!r.expiredAt(now))
            continue;
        if (Status s = removeRow(r.id, false); !s)
            return s.error();
        ++removed;
    }
    m_policy.purgeExpired(now);
    return removed;
}

} // namespace airlock
