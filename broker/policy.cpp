#include "policy.h"
#include "secrethosts.h"
#include "syntheticnames.h"

#include <tuple>

namespace airlock {

Policy::Policy(const Policy &other)
{
    QReadLocker locker(&other.m_lock);
    m_rules = other.m_rules;
}

Policy &Policy::operator=(const Policy &other)
{
    if (this != &other) {
        const QList<Compiled> copy = [&] {
            QReadLocker locker(&other.m_lock);
            return other.m_rules;
        }();
        QWriteLocker locker(&m_lock);
        m_rules = copy;
    }
    return *this;
}

Status Policy::validate(const Rule &rule)
{
    if (rule.port < 0 || rule.port > 65535)
        return Error{QStringLiteral("invalid port %1").arg(rule.port),
                     QStringLiteral("give a port between 1 and 65535, or none for any port"), ErrorKind::InvalidParams};
    Result<HostPattern> p = HostPattern::parse(rule.pattern);
    if (!p)
        return p.error();
    if (rule.decidesRequests()) {
        if (Result<RequestPattern> r = RequestPattern::parse(rule.request); !r)
            return r.error();
        // The broker reads requests only of a name it terminates TLS for or reads HTTP to.
        if (p->kind() != HostPattern::Kind::Exact && p->kind() != HostPattern::Kind::Wildcard)
            return Error{QStringLiteral("a rule for a method, path or git service names a host (api.github.com or *.github.com), "
                                        "not '%1'").arg(p->text()),
                         QStringLiteral("requests are read on named hosts only; write the host the client connects to"),
                         ErrorKind::InvalidParams};
        if (rule.rawTcp || rule.once)
            return Error{QStringLiteral("a rule for a method, path or git service is neither raw TCP nor once"),
                         QStringLiteral("raw TCP carries no requests to read; for one request, answer it when it is asked"),
                         ErrorKind::InvalidParams};
    }
    if (rule.rawTcp) {
        // Unverified bytes go to one named place: never to whatever a wildcard or block covers.
        const Error bad{QStringLiteral("a raw TCP rule must name one host or IP and a port"), {}, ErrorKind::InvalidParams};
        if (p->kind() == HostPattern::Kind::Any || p->kind() == HostPattern::Kind::Wildcard || p->kind() == HostPattern::Kind::Cidr)
            return Error{bad.message(), QStringLiteral("'%1' covers many hosts, and the broker cannot check what raw bytes say; "
                                                       "give an exact host (db.example.com) or one IP").arg(p->text()), bad.kind};
        if (rule.port == 0)
            return Error{bad.message(), QStringLiteral("give --port: raw bytes are allowed to one service, not to every port "
                                                       "of %1").arg(p->text()), bad.kind};
    }
    return ok();
}

Status Policy::validateNew(const Rule &rule)
{
    if (Status s = validate(rule); !s)
        return s;
    if (rule.untilStop && (rule.isGlobal() || rule.once || rule.expires.isValid()))
        return Error{QStringLiteral("a rule for this session belongs to one sandbox and lasts until it stops"),
                     QStringLiteral("give it a sandbox, and neither once nor a duration"), ErrorKind::InvalidParams};
    const HostPattern p = *HostPattern::parse(rule.pattern);
    if (!p.isAddressPattern())
        return ok();
    const auto [net, prefix] = QHostAddress::parseSubnet(p.kind() == HostPattern::Kind::Cidr ? p.text() : p.text() + QStringLiteral("/32"));
    bool v4 = false;
    const quint32 a = net.toIPv4Address(&v4);
    if (v4 && prefix >= 15 && SyntheticNames::inPool(a))
        return Error{QStringLiteral("'%1' is a synthetic address of the broker (198.18.0.0/15)").arg(p.text()),
                     QStringLiteral("it stands for a different name in every sandbox and after every restart; write a rule "
                                    "for the name (example.com) or for the real address it resolves to"),
                     ErrorKind::InvalidParams};
    return ok();
}

Result<Policy::Compiled> Policy::compile(const Rule &rule)
{
    if (Status s = validate(rule); !s)
        return s.error();
    Compiled c{rule, *HostPattern::parse(rule.pattern), std::nullopt};
    if (rule.decidesRequests()) {
        c.request = *RequestPattern::parse(rule.request);
        c.rule.request = c.request->rule(); // normalized, as it is matched
    }
    return c;
}

Status Policy::setRules(const QList<Rule> &rules)
{
    QList<Compiled> compiled;
    compiled.reserve(rules.size());
    for (const Rule &r : rules) {
        if (Status s = validate(r); !s)
            return Error{QStringLiteral("rule %1 is invalid").arg(r.id), s.error().message(), s.error().kind};
        compiled.append(*compile(r));
    }
    QWriteLocker locker(&m_lock);
    m_rules = std::move(compiled);
    return ok();
}

Status Policy::add(const Rule &rule)
{
    if (Status s = validate(rule); !s)
        return s;
    QWriteLocker locker(&m_lock);
    for (const Compiled &c : std::as_const(m_rules)) {
        if (c.rule.id == rule.id)
            return Error{QStringLiteral("rule %1 already exists").arg(rule.id), {}, ErrorKind::Conflict};
    }
    m_rules.append(*compile(rule));
    return ok();
}

bool Policy::remove(qint64 id)
{
    QWriteLocker locker(&m_lock);
    return m_rules.removeIf([id](const Compiled &c) { return c.rule.id == id; }) > 0;
}

int Policy::removeSandbox(const QString &sandbox)
{
    if (sandbox.isEmpty())
        return 0;
    QWriteLocker locker(&m_lock);
    return int(m_rules.removeIf([&](const Compiled &c) { return c.rule.sandbox == sandbox; }));
}

int Policy::pruneMissing(const QSet<qint64> &present, qint64 upTo)
{
    QWriteLocker locker(&m_lock);
    return int(m_rules.removeIf([&](const Compiled &c) { return c.rule.id <= upTo && !present.contains(c.rule.id); }));
}

QList<Rule> Policy::rules() const
{
    QReadLocker locker(&m_lock);
    QList<Rule> out;
    out.reserve(m_rules.size());
    for (const Compiled &c : m_rules)
        out.append(c.rule);
    return out;
}

QList<qint64> Policy::purgeExpired(const QDateTime &now)
{
    QWriteLocker locker(&m_lock);
    QList<qint64> gone;
    m_rules.removeIf([&](const Compiled &c) {
        if (!c.rule.expiredAt(now))
            return false;
        gone.append(c.rule.id);
        return true;
    });
    return gone;
}

Ruling Policy::decideLocked(const Target &target, const QDateTime &now, qsizetype *index, Level level,
                            const RequestFacts *request) const
{
    const QString host = normalizeHost(target.host);
    // Ranking key, compared lexicographically; larger wins (see the precedence in policy.h).
    using Key = std::tuple<int, int, int, int, int, qint64>;
    std::optional<Key> best;
    qsizetype bestIndex = -1;
    for (qsizetype i = 0; i < m_rules.size(); ++i) {
        const Compiled &c = m_rules.at(i);
        const Rule &r = c.rule;
        if (r.expiredAt(now))
            continue;
        if (!r.isGlobal() && r.sandbox != target.sandbox)
            continue;
        if (r.port != 0 && r.port != target.port)
            continue;
        if (level == Level::Address && !c.pattern.isAddressPattern())
            continue;
        if (level == Level::Request && c.pattern.isAddressPattern())
            continue;
        if (c.request && (level != Level::Request || !c.request->matches(*request, r.allow)))
            continue;
        if (!c.pattern.matches(host, target.ip))
            continue;
        const int requestRank = c.request ? c.request->specificity() : 0;
        const Key key{r.isGlobal() ? 0 : 1, requestRank, c.pattern.specificity(), r.port != 0 ? 1 : 0, r.allow ? 0 : 1, -r.id};
        if (!best || key > *best) {
            best = key;
            bestIndex = i;
        }
    }
    if (index)
        *index = bestIndex;
    if (bestIndex < 0) {
        const QString what = host.isEmpty() ? target.ip.toString() : host;
        const QString asked = request ? QStringLiteral("%1 %2 on ").arg(QString::fromLatin1(request->method), QString::fromLatin1(request->path.left(200)))
                                      : QString();
        return {Decision::Pending, 0, QStringLiteral("no rule matches %1%2 port %3").arg(asked, what).arg(target.port), false};
    }
    const Compiled &c = m_rules.at(bestIndex);
    const Rule &r = c.rule;
    const QString scope = r.isGlobal() ? QStringLiteral("global") : QStringLiteral("sandbox %1").arg(r.sandbox);
    const QString port = r.port ? QStringLiteral(" port %1").arg(r.port) : QString();
    const QString what = c.request ? QStringLiteral(" ") + r.request.text() : QString();
    return {r.allow ? Decision::Allowed : Decision::Denied, r.id,
            QStringLiteral("rule %1: %2 %3%4%5 (%6)").arg(r.id).arg(r.allow ? QStringLiteral("allow") : QStringLiteral("deny"),
                                                             c.pattern.text(), port, what, scope),
            r.once, r.rawTcp};
}

Policy::RequestRules Policy::requestRules(const Target &target, const Ruling &flow, const QDateTime &now) const
{
    const QString host = normalizeHost(target.host);
    if (host.isEmpty())
        return RequestRules::None;
    QReadLocker locker(&m_lock);
    int flowScope = -1; // no rule decided the flow: a request rule of any scope counts
    for (const Compiled &c : m_rules) {
        if (flow.ruleId != 0 && c.rule.id == flow.ruleId)
            flowScope = c.rule.isGlobal() ? 0 : 1;
    }
    RequestRules found = RequestRules::None;
    for (const Compiled &c : m_rules) {
        const Rule &r = c.rule;
        if (!c.request || r.expiredAt(now) || (!r.isGlobal() && r.sandbox != target.sandbox) || (r.port != 0 && r.port != target.port))
            continue;
        if ((r.isGlobal() ? 0 : 1) < flowScope || !c.pattern.matches(host, {}))
            continue;
        if (!r.allow)
            return RequestRules::Deny;
        found = RequestRules::AllowOnly;
    }
    return found;
}

QStringList Policy::requestRuleNames(const QString &sandbox, const QDateTime &now) const
{
    QList<Rule> inForce;
    {
        QReadLocker locker(&m_lock);
        for (const Compiled &c : m_rules)
            if (c.request && !c.rule.expiredAt(now) && (c.rule.isGlobal() || c.rule.sandbox == sandbox))
                inForce.append(c.rule);
    }
    return requestRuleNames(inForce);
}

QStringList Policy::requestRuleNames(const QList<Rule> &rules)
{
    QStringList names;
    for (const Rule &r : rules) {
        if (!r.decidesRequests())
            continue;
        const Result<QString> name = secrethosts::normalize(r.pattern);
        if (name && !names.contains(name.value()))
            names.append(name.value());
    }
    return names;
}

Ruling Policy::decideRequest(const Target &target, const RequestFacts &request, const QDateTime &now) const
{
    QReadLocker locker(&m_lock);
    return decideLocked(target, now, nullptr, Level::Request, &request);
}

Ruling Policy::decide(const Target &target, const QDateTime &now) const
{
    QReadLocker locker(&m_lock);
    return decideLocked(target, now, nullptr);
}

Ruling Policy::decideAddress(const Target &target, const QDateTime &now) const
{
    QReadLocker locker(&m_lock);
    return decideLocked(target, now, nullptr, Level::Address);
}

Ruling Policy::decideAndConsume(const Target &target, const QDateTime &now)
{
    QWriteLocker locker(&m_lock);
    qsizetype index = -1;
    Ruling d = decideLocked(target, now, &index);
    if (d.once && index >= 0)
        m_rules.removeAt(index);
    return d;
}

} // namespace airlock
