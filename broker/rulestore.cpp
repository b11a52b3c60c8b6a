#include "rulestore.h"

#include <QSqlError>
#include <QSqlQuery>

namespace airlock {

namespace {

Error sqlFailure(const QString &what, const QSqlQuery &q)
{
    return Error{what, q.lastError().text(), ErrorKind::Failed};
}

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
    "SELECT r.id, s.name, r.owner_uid, r.action, r.pattern, r.port, r.expires, r.once, r.created, r.raw_tcp "
    "FROM rules r LEFT JOIN sandboxes s ON s.id = r.sandbox_id ");

Rule ruleFrom(const QSqlQuery &q)
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
    return r;
}

} // namespace

bool RuleStore::sandboxExists(const QString &name) const
{
    QSqlQuery q(m_store.db());
    q.prepare(QStringLiteral("SELECT 1 FROM sandboxes WHERE name = ?"));
    q.addBindValue(name);
    return q.exec() && q.next();
}

Result<uid_t> RuleStore::sandboxOwner(const QString &name) const
{
    QSqlQuery q(m_store.db());
    q.prepare(QStringLiteral("SELECT owner_uid FROM sandboxes WHERE name = ?"));
    q.addBindValue(name);
    if (!q.exec())
        return sqlFailure(QStringLiteral("cannot look up sandbox %1").arg(name), q);
    if (!q.next())
        return Error{QStringLiteral("no sandbox named '%1'").arg(name), {}, ErrorKind::NotFound};
    return uid_t(q.value(0).toLongLong());
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
    QVariant sandboxId;
    if (!rule.isGlobal()) {
        QSqlQuery q(m_store.db());
        q.prepare(QStringLiteral("SELECT id FROM sandboxes WHERE name = ?"));
        q.addBindValue(rule.sandbox);
        if (!q.exec())
            return sqlFailure(QStringLiteral("cannot look up sandbox %1").arg(rule.sandbox), q);
        if (!q.next())
            return Error{QStringLiteral("no sandbox named '%1'").arg(rule.sandbox),
                         QStringLiteral("create it first (airlockctl create), or add a --global rule"), ErrorKind::NotFound};
        sandboxId = q.value(0);
    }
    if (!rule.created.isValid())
        rule.created = QDateTime::currentDateTimeUtc();
    QSqlQuery q(m_store.db());
    q.prepare(QStringLiteral("INSERT INTO rules (sandbox_id, owner_uid, action, pattern, port, expires, once, created, raw_tcp) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    q.addBindValue(sandboxId);
    q.addBindValue(qint64(rule.owner));
    q.addBindValue(rule.allow ? QStringLiteral("allow") : QStringLiteral("deny"));
    q.addBindValue(rule.pattern);
    q.addBindValue(rule.port ? QVariant(rule.port) : QVariant());
    q.addBindValue(rule.expires.isValid() ? QVariant(timeText(rule.expires)) : QVariant());
    q.addBindValue(rule.once ? 1 : 0);
    q.addBindValue(timeText(rule.created));
    q.addBindValue(rule.rawTcp ? 1 : 0);
    if (!q.exec())
        return sqlFailure(QStringLiteral("cannot store the rule"), q);
    rule.id = q.lastInsertId().toLongLong();
    return rule;
}

Result<Rule> RuleStore::add(Rule rule)
{
    Result<Rule> stored = insertRow(std::move(rule));
    if (!stored)
        return stored;
    if (Status s = m_policy.add(*stored); !s) {
        removeRow(stored->id, false);
        return s.error();
    }
    return stored;
}

Result<QList<Rule>> RuleStore::addAll(const QList<Rule> &rules)
{
    QList<Rule> stored;
    Status s = m_store.transaction([&]() -> Status {
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
        if (r.sandbox != origin || r.once || r.expiredAt(now))
            continue;
        r.id = 0;
        r.sandbox = fork;
        copies.append(r);
    }
    if (copies.isEmpty())
        return 0;
    Result<QList<Rule>> added = addAll(copies);
    if (!added)
        return added.error();
    return int(added->size());
}

Status RuleStore::removeRow(qint64 id, bool mustExist)
{
    QSqlQuery q(m_store.db());
    q.prepare(QStringLiteral("DELETE FROM rules WHERE id = ?"));
    q.addBindValue(id);
    if (!q.exec())
        return sqlFailure(QStringLiteral("cannot remove rule %1").arg(id), q);
    m_policy.remove(id);
    if (mustExist && q.numRowsAffected() == 0)
        return Error{QStringLiteral("no rule %1").arg(id), QStringLiteral("list the rules with airlockctl rule ls"),
                     ErrorKind::NotFound};
    return ok();
}

Status RuleStore::remove(qint64 id) { return removeRow(id, true); }

Result<std::optional<Rule>> RuleStore::find(qint64 id) const
{
    QSqlQuery q(m_store.db());
    q.prepare(kSelect + QStringLiteral("WHERE r.id = ?"));
    q.addBindValue(id);
    if (!q.exec())
        return sqlFailure(QStringLiteral("cannot read rule %1").arg(id), q);
    if (!q.next())
        return std::optional<Rule>();
    return std::optional<Rule>(ruleFrom(q));
}

Result<QList<Rule>> RuleStore::list(const QString &sandbox) const
{
    QSqlQuery q(m_store.db());
    if (sandbox.isEmpty()) {
        q.prepare(kSelect + QStringLiteral("ORDER BY r.id"));
    } else {
        q.prepare(kSelect + QStringLiteral("WHERE r.sandbox_id IS NULL OR s.name = ? ORDER BY r.id"));
        q.addBindValue(sandbox);
    }
    if (!q.exec())
        return sqlFailure(QStringLiteral("cannot list rules"), q);
    QList<Rule> out;
    while (q.next())
        out.append(ruleFrom(q));
    return out;
}

Result<int> RuleStore::syncRemovals()
{
    QSqlQuery q(m_store.db());
    q.setForwardOnly(true);
    if (!q.exec(QStringLiteral("SELECT id FROM rules")))
        return sqlFailure(QStringLiteral("cannot list rule ids"), q);
    QSet<qint64> present;
    while (q.next())
        present.insert(q.value(0).toLongLong());
    // The highest id ever handed out, even if that row is gone (sqlite_sequence, AUTOINCREMENT).
    QSqlQuery seq(m_store.db());
    qint64 upTo = 0;
    if (seq.exec(QStringLiteral("SELECT seq FROM sqlite_sequence WHERE name = 'rules'")) && seq.next())
        upTo = seq.value(0).toLongLong();
    return m_policy.pruneMissing(present, upTo);
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
