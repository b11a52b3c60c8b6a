#include "daemon/ruleservice.h"
#include "protocol/egress.h"
#include "protocol/names.h"
#include "daemon/daemon.h"
#include "api/apiserver.h"
#include "api/peerpolicy.h"
#include "core/logging.h"
#include "rulestore.h"

#include <cmath>
#include <QJsonArray>
#include <QTimer>

namespace airlock {

namespace {

// Longest lifetime a temporary rule may ask for; longer means "forever" (no --for).
constexpr qint64 kMaxForSeconds = 10LL * 365 * 24 * 3600;
constexpr int kPurgeIntervalMs = 60 * 1000;
// How soon rules cascaded away with a removed sandbox leave the in-memory policy (so a new
// sandbox of the same name never inherits them; creating one takes far longer than this).
constexpr int kSyncIntervalMs = 1000;

Error invalid(const QString &what, const QString &why) { return Error{what, why, ErrorKind::InvalidParams}; }

} // namespace

// Owns the worker thread's Store and RuleStore; everything here runs on that thread.
class RuleWorker : public QObject {
public:
    RuleWorker(QString databasePath, Policy &policy) : m_path(std::move(databasePath)), m_policy(policy) {}

    Status open()
    {
        Result<Store> store = Store::open(m_path);
        if (!store)
            return store.error();
        m_store = std::make_unique<Store>(std::move(store.value()));
        m_rules = std::make_unique<RuleStore>(*m_store, m_policy);
        if (Status s = m_rules->load(); !s)
            return s;
        m_purge = new QTimer(this);
        QObject::connect(m_purge, &QTimer::timeout, this, [this] {
            if (Result<int> n = m_rules->purgeExpired(); n && *n > 0)
                qCInfo(lcBroker) << "removed" << *n << "expired rules";
        });
        m_purge->start(kPurgeIntervalMs);
        m_sync = new QTimer(this);
        QObject::connect(m_sync, &QTimer::timeout, this, [this] {
            if (Result<int> n = m_rules->syncRemovals(); n && *n > 0)
                qCInfo(lcBroker) << "forgot" << *n << "rules whose rows were removed (sandbox removed)";
        });
        m_sync->start(kSyncIntervalMs);
        return ok();
    }
    void close()
    {
        delete m_purge;
        m_purge = nullptr;
        delete m_sync;
        m_sync = nullptr;
        m_rules.reset();
        m_store.reset(); // the connection closes on the thread that opened it
    }
    RuleStore *rules() { return m_rules.get(); }

private:
    QString m_path;
    Policy &m_policy;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<RuleStore> m_rules;
    QTimer *m_purge = nullptr;
    QTimer *m_sync = nullptr;
};

RuleService::RuleService(Daemon &daemon) : m_daemon(daemon)
{
    m_thread.setObjectName(QStringLiteral("airlock-rules"));
}

RuleService::~RuleService() { stop(); }

Status RuleService::start()
{
    m_worker = new RuleWorker(m_daemon.config().databasePath(), m_policy);
    m_worker->moveToThread(&m_thread);
    m_thread.start();
    Status opened = ok();
    QMetaObject::invokeMethod(m_worker, [&] { opened = m_worker->open(); }, Qt::BlockingQueuedConnection);
    if (!opened) {
        stop();
        return opened;
    }
    qCInfo(lcBroker) << "egress policy loaded with" << m_policy.rules().size() << "rules";
    return ok();
}

void RuleService::stop()
{
    if (!m_worker)
        return;
    if (m_thread.isRunning()) {
        RuleWorker *worker = m_worker;
        QMetaObject::invokeMethod(worker, [worker] {
            worker->close();
            delete worker;
        }, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    } else {
        delete m_worker;
    }
    m_worker = nullptr;
}

void RuleService::runOnStore(std::function<void(RuleStore &)> job)
{
    if (!m_worker)
        return;
    RuleWorker *worker = m_worker;
    QMetaObject::invokeMethod(worker, [worker, job = std::move(job)] {
        if (RuleStore *rules = worker->rules())
            job(*rules);
    });
}

void RuleService::registerMethods(ApiServer &api)
{
    // A rule is its maker's; the policy is thread-safe and holds every rule in memory.
    api.policy().setOwnerLookup(ObjectKind::Rule, [this](const QString &key) -> std::optional<uid_t> {
        const qint64 id = key.toLongLong();
        for (const Rule &r : m_policy.rules())
            if (r.id == id)
                return r.owner;
        return std::nullopt;
    });
    api.registerMethod(proto::method::RuleList, [this](const Call &call) { list(call); });
    api.registerMethod(proto::method::RuleAdd, [this](const Call &call) { add(call); });
    api.registerMethod(proto::method::RuleRemove, [this](const Call &call) { remove(call); });
}

QJsonObject RuleService::toJson(const Rule &r)
{
    proto::RuleInfo info;
    info.id = r.id;
    if (!r.isGlobal())
        info.sandbox = r.sandbox;
    info.allow = r.allow;
    info.pattern = r.pattern;
    info.port = r.port;
    if (r.expires.isValid())
        info.expires = r.expires;
    info.once = r.once;
    info.rawTcp = r.rawTcp;
    info.untilStop = r.untilStop;
    info.ownerUid = qint64(r.owner);
    if (r.created.isValid())
        info.created = r.created;
    info.origin = r.origin;
    info.method = r.request.method;
    info.path = r.request.path;
    info.git = r.request.git;
    info.repo = r.request.repo;
    return info.toJson();
}

void RuleService::list(const Call &call)
{
    const QJsonValue sandboxValue = call.params().value(QLatin1String("sandbox"));
    if (!sandboxValue.isUndefined() && !sandboxValue.isNull() && !sandboxValue.isString())
        return call.fail(invalid(QStringLiteral("invalid sandbox"), QStringLiteral("\"sandbox\" must be a sandbox name")));
    const QString sandbox = sandboxValue.toString();
    const uid_t uid = call.peer().uid;
    const PeerPolicy *peers = &m_daemon.api().policy();
    runOnStore([call, sandbox, uid, peers](RuleStore &rules) {
        const Result<uid_t> owner = sandbox.isEmpty() ? Result<uid_t>(uid) : rules.sandboxOwner(sandbox);
        if (!owner || !peers->mayActOn(uid, *owner))
            return call.fail(Error{QStringLiteral("no sandbox named '%1'").arg(sandbox),
                                   QStringLiteral("list sandboxes with airlockctl ls"), ErrorKind::NotFound});
        Result<QList<Rule>> all = rules.list(sandbox);
        if (!all)
            return call.fail(all.error());
        QJsonArray out;
        for (const Rule &r : *all)
            if (peers->mayActOn(uid, r.owner))
                out.append(toJson(r));
        call.reply(out);
    });
}

void RuleService::add(const Call &call)
{
    const QJsonObject p = call.params();
    const QString what = QStringLiteral("cannot add the rule");
    for (auto it = p.begin(); it != p.end(); ++it) {
        static const QStringList known{QStringLiteral("sandbox"), QStringLiteral("global"), QStringLiteral("action"),
                                       QStringLiteral("host"), QStringLiteral("port"), QStringLiteral("for_s"),
                                       QStringLiteral("once"), QStringLiteral("raw_tcp"),
                                       QStringLiteral("until_stop"), QStringLiteral("method"), QStringLiteral("path"),
                                       QStringLiteral("git"), QStringLiteral("repo")};
        if (!known.contains(it.key()))
            return call.fail(invalid(what, QStringLiteral("unknown parameter \"%1\" (known: %2)").arg(it.key(), known.join(QStringLiteral(", ")))));
    }
    Rule rule;
    rule.owner = call.peer().uid;
    rule.origin = QStringLiteral("rule.add");
    const QJsonValue sandbox = p.value(QLatin1String("sandbox"));
    const bool global = p.value(QLatin1String("global")).toBool(false);
    if (!p.value(QLatin1String("global")).isUndefined() && !p.value(QLatin1String("global")).isBool())
        return call.fail(invalid(what, QStringLiteral("\"global\" must be true or false")));
    if (!sandbox.isUndefined() && !sandbox.isNull() && (!sandbox.isString() || sandbox.toString().isEmpty()))
        return call.fail(invalid(what, QStringLiteral("\"sandbox\" must be a sandbox name")));
    const bool hasSandbox = sandbox.isString();
    if (hasSandbox == global)
        return call.fail(invalid(what, QStringLiteral("give either a sandbox (--sandbox NAME) or global: true (--global), not both or neither")));
    rule.sandbox = hasSandbox ? sandbox.toString() : QString();

    const QString action = p.value(QLatin1String("action")).toString();
    if (action != QLatin1String("allow") && action != QLatin1String("deny"))
        return call.fail(invalid(what, QStringLiteral("\"action\" must be allow or deny")));
    rule.allow = action == QLatin1String("allow");

    const QJsonValue host = p.value(QLatin1String("host"));
    if (!host.isString() || host.toString().trimmed().isEmpty())
        return call.fail(invalid(what, QStringLiteral("\"host\" is missing: give a host, *.domain, IP or CIDR")));
    rule.pattern = host.toString();

    const QJsonValue port = p.value(QLatin1String("port"));
    if (!port.isUndefined() && !port.isNull()) {
        const double v = port.toDouble(-1);
        if (!port.isDouble() || !(v >= 1 && v <= 65535) || v != std::trunc(v)) // range first: a cast out of range is undefined
            return call.fail(invalid(what, QStringLiteral("\"port\" must be an integer from 1 to 65535 (omit it for any port)")));
        rule.port = int(v);
    }
    const QJsonValue forS = p.value(QLatin1String("for_s"));
    if (!forS.isUndefined() && !forS.isNull()) {
        const double v = forS.toDouble(-1);
        if (!forS.isDouble() || !(v >= 1 && v <= double(kMaxForSeconds)) || v != std::trunc(v))
            return call.fail(invalid(what, QStringLiteral("\"for_s\" must be a whole number of seconds from 1 to %1 "
                                                          "(omit it for a rule without expiry)").arg(kMaxForSeconds)));
        rule.expires = QDateTime::currentDateTimeUtc().addSecs(qint64(v));
    }
    const QJsonValue once = p.value(QLatin1String("once"));
    if (!once.isUndefined() && !once.isBool())
        return call.fail(invalid(what, QStringLiteral("\"once\" must be true or false")));
    rule.once = once.toBool(false);
    const QJsonValue rawTcp = p.value(QLatin1String("raw_tcp"));
    if (!rawTcp.isUndefined() && !rawTcp.isBool())
        return call.fail(invalid(what, QStringLiteral("\"raw_tcp\" must be true or false")));
    rule.rawTcp = rawTcp.toBool(false);
    const QJsonValue untilStop = p.value(QLatin1String("until_stop"));
    if (!untilStop.isUndefined() && !untilStop.isBool())
        return call.fail(invalid(what, QStringLiteral("\"until_stop\" must be true or false")));
    rule.untilStop = untilStop.toBool(false);
    // The request part: each a string when given (RequestPattern::parse says what it may hold).
    for (auto [key, field] : {std::pair{"method", &rule.request.method}, std::pair{"path", &rule.request.path},
                              std::pair{"git", &rule.request.git}, std::pair{"repo", &rule.request.repo}}) {
        const QJsonValue v = p.value(QLatin1String(key));
        if (!v.isUndefined() && !v.isString())
            return call.fail(invalid(what, QStringLiteral("\"%1\" must be a string").arg(QLatin1String(key))));
        *field = v.toString();
    }
    if (Status s = Policy::validateNew(rule); !s)
        return call.fail(s.error());

    const PeerPolicy *peers = &m_daemon.api().policy(); // global rules: only administrators got here
    runOnStore([call, rule, peers](RuleStore &rules) {
        if (!rule.isGlobal()) {
            // Someone else's sandbox is reported exactly like a missing one.
            Result<uid_t> owner = rules.sandboxOwner(rule.sandbox);
            if (!owner || !peers->mayActOn(rule.owner, *owner))
                return call.fail(Error{QStringLiteral("no sandbox named '%1'").arg(rule.sandbox),
                                       QStringLiteral("create it first (airlockctl create) or check the name with airlockctl ls"),
                                       ErrorKind::NotFound});
        }
        Result<Rule> added = rules.add(rule);
        if (!added)
            return call.fail(added.error());
        qCInfo(lcBroker) << "rule" << added->id << (added->allow ? "allow" : "deny") << added->pattern
                         << (added->isGlobal() ? QStringLiteral("global") : added->sandbox) << "by uid" << added->owner;
        call.reply(toJson(*added));
    });
}

void RuleService::remove(const Call &call)
{
    const QJsonValue idValue = call.params().value(QLatin1String("id"));
    const double v = idValue.toDouble(-1);
    if (!idValue.isDouble() || !(v >= 1 && v <= double(1LL << 53)) || v != std::trunc(v))
        return call.fail(invalid(QStringLiteral("cannot remove the rule"), QStringLiteral("\"id\" must be a rule id (see airlockctl rule ls)")));
    const qint64 id = qint64(v);
    const uid_t uid = call.peer().uid;
    const PeerPolicy *peers = &m_daemon.api().policy();
    runOnStore([call, id, uid, peers](RuleStore &rules) {
        Result<std::optional<Rule>> found = rules.find(id);
        if (!found)
            return call.fail(found.error());
        if (!found->has_value() || !peers->mayActOn(uid, (*found)->owner))
            return call.fail(Error{QStringLiteral("no rule %1").arg(id), QStringLiteral("list the rules with airlockctl rule ls"),
                                   ErrorKind::NotFound});
        if (Status s = rules.remove(id); !s)
            return call.fail(s.error());
        call.reply(proto::IdParams{id}.toJson());
    });
}

} // namespace airlock
