// Rules persisted in a real SQLite file: survive a reopen, refuse unknown sandboxes, expire,
// once rules are consumed, removing a sandbox removes its rules.
#include "../support/storerows.h"
#include "presets.h"
#include "rulestore.h"

#include <QTemporaryDir>
#include <QTest>

using namespace airlock;

namespace {

void addSandbox(Store &store, const QString &name, int uid = 1000)
{
    QVERIFY2(testsupport::insertSandbox(store, name, uid) > 0, qPrintable(name));
}

Rule makeRule(const char *sandbox, const char *pattern, bool allow, int port = 0)
{
    Rule r;
    r.sandbox = QString::fromLatin1(sandbox);
    r.owner = 1000;
    r.allow = allow;
    r.pattern = QString::fromLatin1(pattern);
    r.port = port;
    return r;
}

Target at(const char *host, quint16 port = 443) { return Target{QStringLiteral("box"), QString::fromLatin1(host), {}, port}; }

} // namespace

class TestRuleStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); m_path = m_dir.filePath(QStringLiteral("rules-%1.db").arg(++m_n)); }
    void persistsAcrossReopen();
    void refusesUnknownSandboxAndBadPattern();
    void removeAndNotFound();
    void expiredRulesPurgedOnLoad();
    void onceRuleConsumed();
    void sandboxRemovalCascades();
    void listForSandboxIncludesGlobal();
    void presetAppliedAllOrNothing();
    void syncKeepsRulesAddedMeanwhile();
    void rawTcpStoredAndMigrated();
    void syntheticAddressRuleRefused();
    void sessionRulesEndWithTheirSandbox();

private:
    QTemporaryDir m_dir;
    QString m_path;
    int m_n = 0;
};

void TestRuleStore::persistsAcrossReopen()
{
    qint64 id = 0;
    const QDateTime expires = QDateTime::currentDateTimeUtc().addSecs(3600);
    {
        auto store = Store::open(m_path);
        QVERIFY(store.ok());
        addSandbox(store.value(), QStringLiteral("box"));
        Policy policy;
        RuleStore rules(store.value(), policy);
        Rule r = makeRule("box", "*.NPMJS.org.", true, 443);
        r.expires = expires;
        const Result<Rule> added = rules.add(r);
        QVERIFY2(added.ok(), qPrintable(added.error().message()));
        id = added->id;
        QVERIFY(id > 0);
        QCOMPARE(added->pattern, QStringLiteral("*.npmjs.org")); // stored canonical
        QVERIFY(rules.add(makeRule("", "10.0.0.0/8", false)).ok());
        QCOMPARE(policy.decide(at("registry.npmjs.org"), QDateTime::currentDateTimeUtc()).decision, Decision::Allowed);
    }
    auto store = Store::open(m_path);
    QVERIFY(store.ok());
    Policy policy;
    RuleStore rules(store.value(), policy);
    QVERIFY(rules.load().ok());
    const QList<Rule> loaded = policy.rules();
    QCOMPARE(loaded.size(), 2);
    QCOMPARE(loaded.at(0).id, id);
    QCOMPARE(loaded.at(0).sandbox, QStringLiteral("box"));
    QCOMPARE(loaded.at(0).pattern, QStringLiteral("*.npmjs.org"));
    QCOMPARE(loaded.at(0).port, 443);
    QCOMPARE(loaded.at(0).owner, uid_t(1000));
    QVERIFY(loaded.at(0).allow);
    QCOMPARE(loaded.at(0).expires.toMSecsSinceEpoch(), expires.toMSecsSinceEpoch());
    QVERIFY(loaded.at(1).isGlobal());
    QVERIFY(!loaded.at(1).expires.isValid());
    const Target raw{QStringLiteral("box"), {}, QHostAddress(QStringLiteral("10.1.2.3")), 22};
    QCOMPARE(policy.decide(raw, QDateTime::currentDateTimeUtc()).decision, Decision::Denied);
    QCOMPARE(policy.decide(at("registry.npmjs.org"), QDateTime::currentDateTimeUtc()).decision, Decision::Allowed);
}

void TestRuleStore::refusesUnknownSandboxAndBadPattern()
{
    auto store = Store::open(m_path);
    Policy policy;
    RuleStore rules(store.value(), policy);
    const Result<Rule> noBox = rules.add(makeRule("ghost", "a.com", true));
    QVERIFY(!noBox.ok());
    QCOMPARE(noBox.error().kind, ErrorKind::NotFound);
    QVERIFY(noBox.error().message().contains(QStringLiteral("no sandbox named 'ghost'")));
    const Result<Rule> bad = rules.add(makeRule("", "*.com", true));
    QVERIFY(!bad.ok());
    QCOMPARE(bad.error().kind, ErrorKind::InvalidParams);
    Rule badPort = makeRule("", "a.com", true, 65536);
    QVERIFY(!rules.add(badPort).ok());
    // Nothing half-made.
    QCOMPARE(testsupport::scalar(*store, QStringLiteral("SELECT count(*) FROM rules")), qint64(0));
    QVERIFY(policy.rules().isEmpty());
}

void TestRuleStore::removeAndNotFound()
{
    auto store = Store::open(m_path);
    Policy policy;
    RuleStore rules(store.value(), policy);
    const Result<Rule> r = rules.add(makeRule("", "a.com", true));
    QVERIFY(r.ok());
    QVERIFY(rules.remove(r->id).ok());
    QVERIFY(policy.rules().isEmpty());
    const Status again = rules.remove(r->id);
    QVERIFY(!again.ok());
    QCOMPARE(again.error().kind, ErrorKind::NotFound);
    QVERIFY(!rules.find(r->id)->has_value());
}

void TestRuleStore::expiredRulesPurgedOnLoad()
{
    {
        auto store = Store::open(m_path);
        Policy policy;
        RuleStore rules(store.value(), policy);
        Rule soon = makeRule("", "a.com", true);
        soon.expires = QDateTime::currentDateTimeUtc().addSecs(1);
        QVERIFY(rules.add(soon).ok());
        QVERIFY(rules.add(makeRule("", "b.com", true)).ok());
    }
    auto store = Store::open(m_path);
    Policy policy;
    RuleStore rules(store.value(), policy);
    QVERIFY(rules.load(QDateTime::currentDateTimeUtc().addSecs(5)).ok());
    QCOMPARE(policy.rules().size(), 1);
    QCOMPARE(rules.list()->size(), 1);
    QCOMPARE(rules.list()->first().pattern, QStringLiteral("b.com"));
}

void TestRuleStore::onceRuleConsumed()
{
    auto store = Store::open(m_path);
    addSandbox(store.value(), QStringLiteral("box"));
    Policy policy;
    RuleStore rules(store.value(), policy);
    Rule once = makeRule("box", "a.com", true);
    once.once = true;
    const Result<Rule> r = rules.add(once);
    QVERIFY(r.ok());
    QVERIFY(r->once);
    const Ruling d = policy.decideAndConsume(at("a.com"), QDateTime::currentDateTimeUtc());
    QCOMPARE(d.decision, Decision::Allowed);
    QVERIFY(d.once);
    QVERIFY(rules.consumed(d.ruleId).ok());
    QCOMPARE(policy.decide(at("a.com"), QDateTime::currentDateTimeUtc()).decision, Decision::Pending);
    QVERIFY(rules.list()->isEmpty());
}

void TestRuleStore::sandboxRemovalCascades()
{
    auto store = Store::open(m_path);
    addSandbox(store.value(), QStringLiteral("box"));
    Policy policy;
    RuleStore rules(store.value(), policy);
    QVERIFY(rules.add(makeRule("box", "a.com", true)).ok());
    QVERIFY(rules.add(makeRule("", "b.com", true)).ok());
    QVERIFY(store->write(QStringLiteral("DELETE FROM sandboxes WHERE name = 'box'")));
    QCOMPARE(rules.list()->size(), 1);
    // The policy forgets the cascaded rule on the next sync, and keeps everything else.
    QCOMPARE(policy.rules().size(), 2);
    QCOMPARE(*rules.syncRemovals(), 1);
    QCOMPARE(policy.rules().size(), 1);
    QCOMPARE(policy.decide(at("a.com"), QDateTime::currentDateTimeUtc()).decision, Decision::Pending);
    // A sandbox created again under the same name does not inherit the old rules.
    addSandbox(store.value(), QStringLiteral("box"));
    QVERIFY(rules.load().ok());
    QCOMPARE(policy.rules().size(), 1);
    QVERIFY(policy.rules().first().isGlobal());
}

void TestRuleStore::listForSandboxIncludesGlobal()
{
    auto store = Store::open(m_path);
    addSandbox(store.value(), QStringLiteral("box"));
    addSandbox(store.value(), QStringLiteral("other"));
    Policy policy;
    RuleStore rules(store.value(), policy);
    QVERIFY(rules.add(makeRule("box", "a.com", true)).ok());
    QVERIFY(rules.add(makeRule("other", "b.com", true)).ok());
    QVERIFY(rules.add(makeRule("", "c.com", true)).ok());
    QCOMPARE(rules.list()->size(), 3);
    const QList<Rule> forBox = *rules.list(QStringLiteral("box"));
    QCOMPARE(forBox.size(), 2);
    QCOMPARE(forBox.at(0).pattern, QStringLiteral("a.com"));
    QCOMPARE(forBox.at(1).pattern, QStringLiteral("c.com"));
}

void TestRuleStore::presetAppliedAllOrNothing()
{
    auto store = Store::open(m_path);
    addSandbox(store.value(), QStringLiteral("box"));
    Policy policy;
    RuleStore rules(store.value(), policy);
    const Result<QList<Preset>> presets = loadPresets(QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/egress-presets"));
    QVERIFY(presets.ok());
    const Preset *npm = nullptr;
    for (const Preset &p : *presets)
        if (p.name == QLatin1String("npm"))
            npm = &p;
    QVERIFY(npm);
    const Result<QList<Rule>> added = rules.addAll(npm->toRules(QStringLiteral("box"), 1000));
    QVERIFY2(added.ok(), qPrintable(added.error().message()));
    QCOMPARE(added->size(), npm->rules.size());
    QCOMPARE(policy.decide(at("registry.npmjs.org"), QDateTime::currentDateTimeUtc()).decision, Decision::Allowed);

    // One bad rule (unknown sandbox) and nothing of the batch is kept.
    QList<Rule> batch = npm->toRules(QStringLiteral("box"), 1000);
    batch.append(makeRule("ghost", "b.com", true));
    const Result<QList<Rule>> refused = rules.addAll(batch);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message().contains(QStringLiteral("no sandbox named 'ghost'")), qPrintable(refused.error().message()));
    QCOMPARE(rules.list()->size(), npm->rules.size());
    QCOMPARE(policy.rules().size(), npm->rules.size());
}

void TestRuleStore::syncKeepsRulesAddedMeanwhile()
{
    // Two connections on one file, as in airlockd (the rule worker and the main thread).
    auto a = Store::open(m_path);
    auto b = Store::open(m_path);
    Policy policy;
    RuleStore worker(a.value(), policy);
    RuleStore main(b.value(), policy);
    const Result<Rule> first = main.add(makeRule("", "a.com", true));
    QVERIFY(first.ok());
    QCOMPARE(*worker.syncRemovals(), 0);
    QCOMPARE(policy.rules().size(), 1);
    // The highest row removed, then a new rule: its id is never reused (AUTOINCREMENT).
    QVERIFY(worker.remove(first->id).ok());
    const Result<Rule> second = main.add(makeRule("", "b.com", true));
    QVERIFY(second.ok());
    QVERIFY(second->id > first->id);
    // A policy entry newer than what the sync read is kept.
    Rule newer = makeRule("", "c.com", true);
    newer.id = second->id + 1;
    QVERIFY(policy.add(newer).ok());
    QCOMPARE(*worker.syncRemovals(), 0);
    QCOMPARE(policy.rules().size(), 2);
}

void TestRuleStore::rawTcpStoredAndMigrated()
{
    {
        // A database made before raw TCP rules existed: schema step 1 only, one rule in it.
        auto old = Store::open(m_path, {Store::migrations().front()});
        QVERIFY2(old, qPrintable(old.error().message()));
        QVERIFY(old->write(QStringLiteral("INSERT INTO rules (owner_uid, action, pattern, port, once, created) "
                                          "VALUES (1000, 'allow', 'old.example.com', 443, 0, 'now')")));
    }
    {
        auto store = Store::open(m_path);
        QVERIFY2(store, qPrintable(store.error().message()));
        Policy policy;
        RuleStore rules(*store, policy);
        QVERIFY(rules.load());
        QCOMPARE(policy.rules().size(), 1);
        QVERIFY(!policy.rules().constFirst().rawTcp); // migrated rows are not raw TCP
        Rule raw = makeRule("", "db.example.com", true, 5432);
        raw.rawTcp = true;
        Result<Rule> added = rules.add(raw);
        QVERIFY2(added, qPrintable(added.error().message()));
        QVERIFY(added->rawTcp);
        Rule broad = makeRule("", "*.example.com", true, 5432);
        broad.rawTcp = true;
        QVERIFY(!rules.add(broad));
    }
    auto store = Store::open(m_path);
    Policy policy;
    RuleStore rules(*store, policy);
    QVERIFY(rules.load());
    const Result<QList<Rule>> all = rules.list();
    QVERIFY(all);
    QCOMPARE(all->size(), 2);
    QVERIFY(!all->at(0).rawTcp);
    QVERIFY(all->at(1).rawTcp);
    QVERIFY(policy.decide(Target{QStringLiteral("box"), QStringLiteral("db.example.com"), {}, 5432}, QDateTime::currentDateTimeUtc()).rawTcp);
}

void TestRuleStore::syntheticAddressRuleRefused()
{
    auto store = Store::open(m_path);
    Policy policy;
    RuleStore rules(*store, policy);
    QVERIFY(rules.load());
    const Result<Rule> r = rules.add(makeRule("", "198.18.0.7", true, 443));
    QVERIFY(!r);
    QVERIFY2(r.error().message().contains(QLatin1String("synthetic")), qPrintable(r.error().message()));
    QVERIFY(rules.list()->isEmpty());
}

// "Until the sandbox stops": gone from store and policy when that sandbox stops, or, at a daemon
// start, when it is not running; never copied into a fork; only ever a rule of one sandbox.
void TestRuleStore::sessionRulesEndWithTheirSandbox()
{
    auto store = Store::open(m_path);
    addSandbox(store.value(), QStringLiteral("box"));
    addSandbox(store.value(), QStringLiteral("other"));
    addSandbox(store.value(), QStringLiteral("fork"));
    Policy policy;
    RuleStore rules(*store, policy);
    QVERIFY(rules.load());
    Rule session = makeRule("box", "a.com", true);
    session.untilStop = true;
    QVERIFY(rules.add(session));
    Rule lasting = makeRule("box", "b.com", true);
    QVERIFY(rules.add(lasting));
    Rule otherSession = makeRule("other", "a.com", true);
    otherSession.untilStop = true;
    QVERIFY(rules.add(otherSession));
    for (const Rule &bad : {makeRule("", "a.com", true), makeRule("box", "c.com", true)}) {
        Rule r = bad;
        r.untilStop = true;
        if (!r.isGlobal())
            r.once = true;
        const Result<Rule> refused = rules.add(r);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message().contains(QLatin1String("session")), qPrintable(refused.error().message()));
    }
    QVERIFY(policy.decide(at("a.com"), QDateTime::currentDateTimeUtc()).decision == Decision::Allowed);

    // A fork is a session of its own.
    QCOMPARE(*rules.copySandboxRules(QStringLiteral("box"), QStringLiteral("fork")), 1);

    // Kept across a reopen (the column is stored), then "box" stops.
    {
        Policy reread;
        RuleStore again(*store, reread);
        QVERIFY(again.load());
        QCOMPARE(again.list(QStringLiteral("box"))->size(), 2);
        QVERIFY(again.list(QStringLiteral("box"))->first().untilStop);
    }
    QCOMPARE(*rules.endSessions({QStringLiteral("box")}), 1);
    QCOMPARE(policy.decide(at("a.com"), QDateTime::currentDateTimeUtc()).decision, Decision::Pending);
    QCOMPARE(policy.decide(at("b.com"), QDateTime::currentDateTimeUtc()).decision, Decision::Allowed);
    QCOMPARE(rules.list(QStringLiteral("other"))->size(), 1);

    // A daemon starting with only "fork" running ends every other sandbox's session.
    QCOMPARE(*rules.endSessions({}, {QStringLiteral("fork")}), 1);
    QVERIFY(rules.list(QStringLiteral("other"))->isEmpty());
    QCOMPARE(rules.list(QStringLiteral("box"))->size(), 1);
}

QTEST_GUILESS_MAIN(TestRuleStore)
#include "test_rulestore.moc"
