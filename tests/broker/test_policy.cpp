// Host patterns and the policy's precedence, as a table a reviewer can read.
#include "core/registrabledomain.h"
#include "hostpattern.h"
#include "policy.h"
#include "upstreamaddress.h"
#include "upstreamresolver.h"

#include <future>

#include <QTest>
#include <QThread>

using namespace airlock;

namespace {

const QDateTime kNow = QDateTime(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC);

Rule rule(qint64 id, const char *pattern, bool allow, const char *sandbox = "", int port = 0)
{
    Rule r;
    r.id = id;
    r.pattern = QString::fromLatin1(pattern);
    r.allow = allow;
    r.sandbox = QString::fromLatin1(sandbox);
    r.port = port;
    return r;
}

Target target(const char *host, quint16 port = 443, const char *ip = nullptr, const char *sandbox = "box")
{
    return Target{QString::fromLatin1(sandbox), QString::fromLatin1(host),
                  ip ? QHostAddress(QString::fromLatin1(ip)) : QHostAddress(), port};
}

} // namespace

class TestPolicy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void patternMatches_data();
    void patternMatches();
    void patternErrors_data();
    void patternErrors();
    void specificityOrder();
    void precedence_data();
    void precedence();
    void expiredRulesIgnored();
    void onceRuleIsConsumedExactlyOnce();
    void invalidRuleRefused();
    void reasonNamesTheRule();
    // The address dialled is checked; rules mean what they say.
    void numericAndSingleLabelNamesRefused_data();
    void numericAndSingleLabelNamesRefused();
    void upstreamResolverRefusesNumericNames();
    void forbiddenUpstreamAddresses_data();
    void forbiddenUpstreamAddresses();
    void addressRulesSeeOnlyRealAddresses();
    void syntheticAddressRulesRefused();
    void domainChoiceFollowsThePublicSuffixList_data();
    void domainChoiceFollowsThePublicSuffixList();
    void rawTcpRules();
};

void TestPolicy::patternMatches_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("ip");
    QTest::addColumn<bool>("match");
    auto row = [](const char *p, const char *h, const char *ip, bool m) {
        QTest::addRow("%s ~ %s %s", p, h, ip) << QString::fromLatin1(p) << normalizeHost(QString::fromLatin1(h))
                                              << QString::fromLatin1(ip) << m;
    };
    row("example.com", "example.com", "", true);
    row("example.com", "EXAMPLE.com.", "", true);
    row("Example.COM.", "example.com", "", true);
    row("example.com", "www.example.com", "", false);
    row("example.com", "example.co", "", false);
    row("*.example.com", "a.example.com", "", true);
    row("*.example.com", "a.b.example.com", "", true);
    row("*.example.com", "A.Example.Com.", "", true);
    row("*.example.com", "example.com", "", false);          // the apex needs its own rule
    row("*.example.com", "evilexample.com", "", false);      // anchored at a dot: never a bare suffix match
    row("*.example.com", "a.evilexample.com", "", false);
    row("*.example.com", ".example.com", "", false);
    row("*.example.com", "example.com.evil.org", "", false);
    row("*.example.com", "", "93.184.216.34", false);          // names never match a bare IP
    row("example.com", "", "93.184.216.34", false);
    row("192.0.2.7", "", "192.0.2.7", true);
    row("192.0.2.7", "", "192.0.2.8", false);
    row("192.0.2.7", "", "::ffff:192.0.2.7", true);          // v4-mapped is the same address
    row("192.0.2.7", "192.0.2.7", "", false);                // an IP rule matches addresses only
    row("10.0.0.0/8", "", "10.200.1.1", true);
    row("10.0.0.0/8", "", "11.0.0.1", false);
    row("10.1.2.3/8", "", "10.9.9.9", true);                 // host bits are ignored
    row("2001:db8::/32", "", "2001:db8:1::5", true);
    row("2001:db8::/32", "", "2001:db9::5", false);
    row("[2001:db8::1]", "", "2001:db8::1", true);
    row("*", "anything.example", "", true);
    row("*", "", "203.0.113.9", true);
}

void TestPolicy::patternMatches()
{
    QFETCH(QString, pattern);
    QFETCH(QString, host);
    QFETCH(QString, ip);
    QFETCH(bool, match);
    const Result<HostPattern> p = HostPattern::parse(pattern);
    QVERIFY2(p.ok(), qPrintable(p.error().message()));
    QCOMPARE(p->matches(host, ip.isEmpty() ? QHostAddress() : QHostAddress(ip)), match);
}

void TestPolicy::patternErrors_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("why");
    QTest::newRow("empty") << QString() << QStringLiteral("empty");
    QTest::newRow("idn") << QStringLiteral("bücher.de") << QStringLiteral("xn--");
    QTest::newRow("idn wildcard") << QStringLiteral("*.bücher.de") << QStringLiteral("xn--");
    QTest::newRow("inner star") << QStringLiteral("a.*.com") << QStringLiteral("leading label");
    QTest::newRow("partial star") << QStringLiteral("*example.com") << QStringLiteral("leading label");
    QTest::newRow("double star") << QStringLiteral("*.*.com") << QStringLiteral("only one");
    QTest::newRow("tld wildcard") << QStringLiteral("*.com") << QStringLiteral("too broad");
    QTest::newRow("empty label") << QStringLiteral("a..com") << QStringLiteral("empty label");
    QTest::newRow("long label") << QString(64, u'a') + QStringLiteral(".com") << QStringLiteral("longer than 63");
    QTest::newRow("bad char") << QStringLiteral("ex!ample.com") << QStringLiteral("letters, digits");
    QTest::newRow("leading hyphen") << QStringLiteral("-a.com") << QStringLiteral("start or end");
    QTest::newRow("with port") << QStringLiteral("example.com:443") << QStringLiteral("--port");
    QTest::newRow("with space") << QStringLiteral("exa mple.com") << QStringLiteral("whitespace");
    QTest::newRow("bad cidr") << QStringLiteral("10.0.0.0/33") << QStringLiteral("CIDR");
    QTest::newRow("cidr junk") << QStringLiteral("10.0.0.0/x") << QStringLiteral("CIDR");
    QTest::newRow("url") << QStringLiteral("https://example.com/") << QStringLiteral("not a URL");
    // As a name it would read back as another address (a policy file's text is parsed again).
    QTest::newRow("address with a trailing dot") << QStringLiteral("106.0.11.") << QStringLiteral("reads as the address 106.0.0.11");
}

void TestPolicy::patternErrors()
{
    QFETCH(QString, pattern);
    QFETCH(QString, why);
    const Result<HostPattern> p = HostPattern::parse(pattern);
    QVERIFY(!p.ok());
    QVERIFY2(p.error().message().contains(why), qPrintable(p.error().message()));
    QVERIFY(p.error().message().contains(QStringLiteral("invalid host pattern")));
}

void TestPolicy::specificityOrder()
{
    auto spec = [](const char *p) { return HostPattern::parse(QString::fromLatin1(p))->specificity(); };
    QVERIFY(spec("api.example.com") > spec("10.0.0.0/31"));
    QVERIFY(spec("10.0.0.0/32") > spec("10.0.0.0/24"));
    QVERIFY(spec("10.0.0.0/24") > spec("*.a.example.com"));
    QVERIFY(spec("*.a.example.com") > spec("*.example.com"));
    QVERIFY(spec("*.example.com") > spec("*"));
    QCOMPARE(spec("192.0.2.1"), spec("example.com"));
}

void TestPolicy::precedence_data()
{
    QTest::addColumn<QList<Rule>>("rules");
    QTest::addColumn<Target>("t");
    QTest::addColumn<int>("verdict");
    QTest::addColumn<qint64>("ruleId");
    const int Allow = int(Decision::Allowed), Deny = int(Decision::Denied), Ask = int(Decision::Pending);

    QTest::newRow("no rules -> ask") << QList<Rule>{} << target("a.com") << Ask << qint64(0);
    QTest::newRow("other sandbox's rule ignored") << QList<Rule>{rule(1, "a.com", true, "other")} << target("a.com") << Ask << qint64(0);
    QTest::newRow("global allow") << QList<Rule>{rule(1, "a.com", true)} << target("a.com") << Allow << qint64(1);
    QTest::newRow("sandbox deny beats global allow") << QList<Rule>{rule(1, "a.com", true), rule(2, "a.com", false, "box")}
                                                     << target("a.com") << Deny << qint64(2);
    QTest::newRow("sandbox allow beats global deny") << QList<Rule>{rule(1, "a.com", false), rule(2, "a.com", true, "box")}
                                                     << target("a.com") << Allow << qint64(2);
    QTest::newRow("sandbox wildcard beats more specific global")
        << QList<Rule>{rule(1, "api.a.com", true), rule(2, "*.a.com", false, "box")} << target("api.a.com") << Deny << qint64(2);
    QTest::newRow("deny beats allow at equal specificity") << QList<Rule>{rule(1, "a.com", true), rule(2, "a.com", false)}
                                                           << target("a.com") << Deny << qint64(2);
    QTest::newRow("deny beats allow, order irrelevant") << QList<Rule>{rule(2, "a.com", false), rule(1, "a.com", true)}
                                                        << target("a.com") << Deny << qint64(2);
    QTest::newRow("exact allow beats wildcard deny") << QList<Rule>{rule(1, "*.a.com", false), rule(2, "api.a.com", true)}
                                                     << target("api.a.com") << Allow << qint64(2);
    QTest::newRow("deeper wildcard wins") << QList<Rule>{rule(1, "*.a.com", false), rule(2, "*.cdn.a.com", true)}
                                          << target("x.cdn.a.com") << Allow << qint64(2);
    QTest::newRow("shallower applies elsewhere") << QList<Rule>{rule(1, "*.a.com", false), rule(2, "*.cdn.a.com", true)}
                                                 << target("x.api.a.com") << Deny << qint64(1);
    QTest::newRow("wildcard beats star") << QList<Rule>{rule(1, "*", false), rule(2, "*.a.com", true)}
                                         << target("x.a.com") << Allow << qint64(2);
    QTest::newRow("star catches the rest") << QList<Rule>{rule(1, "*", false), rule(2, "*.a.com", true)}
                                           << target("b.com") << Deny << qint64(1);
    QTest::newRow("port-specific beats any-port") << QList<Rule>{rule(1, "a.com", false), rule(2, "a.com", true, "", 443)}
                                                  << target("a.com", 443) << Allow << qint64(2);
    QTest::newRow("port rule does not match other port") << QList<Rule>{rule(1, "a.com", true, "", 443)}
                                                         << target("a.com", 80) << Ask << qint64(0);
    QTest::newRow("specificity beats port") << QList<Rule>{rule(1, "*.a.com", true, "", 443), rule(2, "x.a.com", false)}
                                            << target("x.a.com", 443) << Deny << qint64(2);
    QTest::newRow("/32 beats /24") << QList<Rule>{rule(1, "10.0.0.0/24", false), rule(2, "10.0.0.5/32", true)}
                                   << target("", 22, "10.0.0.5") << Allow << qint64(2);
    QTest::newRow("/24 applies to others") << QList<Rule>{rule(1, "10.0.0.0/24", false), rule(2, "10.0.0.5/32", true)}
                                           << target("", 22, "10.0.0.6") << Deny << qint64(1);
    QTest::newRow("host rule never matches bare ip") << QList<Rule>{rule(1, "a.com", true), rule(2, "*.a.com", true)}
                                                     << target("", 443, "93.184.216.34") << Ask << qint64(0);
    QTest::newRow("ip rule on named flow's address") << QList<Rule>{rule(1, "93.184.216.0/24", false), rule(2, "*.a.com", true)}
                                                     << target("www.a.com", 443, "93.184.216.34") << Deny << qint64(1);
    QTest::newRow("evildomain not matched") << QList<Rule>{rule(1, "*.example.com", true)} << target("evilexample.com")
                                            << Ask << qint64(0);
    QTest::newRow("equal rules: older wins") << QList<Rule>{rule(5, "a.com", true), rule(3, "a.com", true)}
                                             << target("a.com") << Allow << qint64(3);
}

void TestPolicy::precedence()
{
    QFETCH(QList<Rule>, rules);
    QFETCH(Target, t);
    QFETCH(int, verdict);
    QFETCH(qint64, ruleId);
    Policy policy;
    QVERIFY(policy.setRules(rules).ok());
    const Ruling d = policy.decide(t, kNow);
    QCOMPARE(int(d.decision), verdict);
    QCOMPARE(d.ruleId, ruleId);
    QVERIFY(!d.reason.isEmpty());
}

void TestPolicy::expiredRulesIgnored()
{
    Policy policy;
    Rule deny = rule(1, "a.com", false);
    deny.expires = kNow.addSecs(-1);
    Rule allow = rule(2, "a.com", true);
    allow.expires = kNow.addSecs(600);
    QVERIFY(policy.setRules({deny, allow}).ok());
    QCOMPARE(policy.decide(target("a.com"), kNow).decision, Decision::Allowed);
    QCOMPARE(policy.decide(target("a.com"), kNow.addSecs(600)).decision, Decision::Pending); // expires is exclusive
    QCOMPARE(policy.purgeExpired(kNow), QList<qint64>{1});
    QCOMPARE(policy.rules().size(), 1);
}

void TestPolicy::onceRuleIsConsumedExactlyOnce()
{
    Policy policy;
    Rule once = rule(1, "a.com", true, "box");
    once.once = true;
    QVERIFY(policy.setRules({once, rule(2, "*", false)}).ok());
    // Many threads race for the one-shot allow: exactly one wins it.
    std::atomic<int> allowed{0};
    QList<QThread *> threads;
    for (int i = 0; i < 8; ++i)
        threads.append(QThread::create([&] {
            if (policy.decideAndConsume(target("a.com"), kNow).decision == Decision::Allowed)
                ++allowed;
        }));
    for (QThread *t : threads)
        t->start();
    for (QThread *t : threads) {
        t->wait();
        delete t;
    }
    QCOMPARE(allowed.load(), 1);
    const Ruling after = policy.decide(target("a.com"), kNow);
    QCOMPARE(after.decision, Decision::Denied);
    QCOMPARE(after.ruleId, qint64(2));
}

void TestPolicy::invalidRuleRefused()
{
    Policy policy;
    QVERIFY(policy.add(rule(1, "a.com", true)).ok());
    const Status dup = policy.add(rule(1, "b.com", true));
    QVERIFY(!dup.ok());
    const Status bad = policy.setRules({rule(2, "a.com", true), rule(3, "*.com", true)});
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().message().contains(QStringLiteral("rule 3")));
    QCOMPARE(policy.rules().size(), 1); // nothing replaced
    Rule badPort = rule(4, "a.com", true);
    badPort.port = 70000;
    QVERIFY(!Policy::validate(badPort).ok());
}

void TestPolicy::reasonNamesTheRule()
{
    Policy policy;
    QVERIFY(policy.setRules({rule(7, "*.NPMJS.org.", true, "", 443)}).ok());
    const Ruling d = policy.decide(target("registry.npmjs.org"), kNow);
    QCOMPARE(d.reason, QStringLiteral("rule 7: allow *.npmjs.org port 443 (global)"));
    const Ruling none = policy.decide(target("", 22, "192.0.2.1"), kNow);
    QCOMPARE(none.reason, QStringLiteral("no rule matches 192.0.2.1 port 22"));
}

void TestPolicy::numericAndSingleLabelNamesRefused_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("refused");
    for (const char *n : {"2130706433", "0x7f.1", "127.1", "0177.0.0.1", "127.0.0.1", "0x7f000001", "10.1", "1.2.3.4.",
                          "example.123", "a.b.0x1f", "localhost", "intranet", "LOCALHOST.", "::1"})
        QTest::newRow(n) << QString::fromLatin1(n) << true;
    for (const char *n : {"example.com", "1password.com", "123.example.org", "0x7f.example.net", "a.b.c.d.e", "xn--bcher-kva.de"})
        QTest::newRow(n) << QString::fromLatin1(n) << false;
}

void TestPolicy::numericAndSingleLabelNamesRefused()
{
    QFETCH(QString, name);
    QFETCH(bool, refused);
    QCOMPARE(!refusedName(name).isEmpty(), refused);
}

void TestPolicy::upstreamResolverRefusesNumericNames()
{
    // Defence in depth: even asked, the resolver never turns 2130706433 into 127.0.0.1.
    UpstreamResolver resolver;
    for (const QString &name : {QStringLiteral("2130706433"), QStringLiteral("0x7f.1"), QStringLiteral("localhost")}) {
        std::promise<std::pair<quint32, QString>> got;
        resolver.resolve(name, [&](quint32 ip, QString why) { got.set_value({ip, why}); });
        const auto [ip, why] = got.get_future().get();
        QCOMPARE(ip, quint32(0));
        QVERIFY2(!why.isEmpty(), qPrintable(name));
    }
}

void TestPolicy::forbiddenUpstreamAddresses_data()
{
    QTest::addColumn<QString>("ip");
    QTest::addColumn<bool>("forbidden");
    QTest::addColumn<bool>("never");
    QTest::newRow("loopback") << QStringLiteral("127.0.0.1") << true << false;
    QTest::newRow("loopback /8") << QStringLiteral("127.200.0.9") << true << false;
    QTest::newRow("metadata") << QStringLiteral("169.254.169.254") << true << false;
    QTest::newRow("rfc1918 10") << QStringLiteral("10.1.2.3") << true << false;
    QTest::newRow("rfc1918 172") << QStringLiteral("172.20.0.1") << true << false;
    QTest::newRow("rfc1918 192") << QStringLiteral("192.168.1.1") << true << false;
    QTest::newRow("cgnat") << QStringLiteral("100.64.0.1") << true << false;
    QTest::newRow("this host") << QStringLiteral("0.0.0.0") << true << true;
    QTest::newRow("multicast") << QStringLiteral("224.0.0.1") << true << true;
    QTest::newRow("broadcast") << QStringLiteral("255.255.255.255") << true << true;
    QTest::newRow("synthetic") << QStringLiteral("198.18.0.5") << true << true;
    QTest::newRow("v4-mapped loopback") << QStringLiteral("::ffff:127.0.0.1") << true << false;
    QTest::newRow("v6 loopback") << QStringLiteral("::1") << true << false;
    QTest::newRow("v6 link-local") << QStringLiteral("fe80::1") << true << false;
    QTest::newRow("v6 ula") << QStringLiteral("fd00::1") << true << false;
    QTest::newRow("public") << QStringLiteral("203.0.113.7") << false << false;
    QTest::newRow("public v6") << QStringLiteral("2001:db8::7") << false << false;
    QTest::newRow("cgnat edge") << QStringLiteral("100.128.0.1") << false << false;
}

void TestPolicy::forbiddenUpstreamAddresses()
{
    QFETCH(QString, ip);
    QFETCH(bool, forbidden);
    QFETCH(bool, never);
    UpstreamAddressCheck check;
    QCOMPARE(!check.why(QHostAddress(ip)).isEmpty(), forbidden);
    QCOMPARE(UpstreamAddressCheck::neverDialled(QHostAddress(ip)), never);
}

void TestPolicy::addressRulesSeeOnlyRealAddresses()
{
    Policy policy;
    QVERIFY(policy.setRules({rule(1, "*", true), rule(2, "127.0.0.1", true, "", 8080), rule(3, "10.0.0.0/8", false),
                             rule(4, "10.1.0.0/16", true, "box"), rule(5, "example.com", true)}).ok());
    // Only address patterns answer for a resolved address; `*` and names never open one.
    QCOMPARE(policy.decideAddress(target("", 80, "203.0.113.1"), kNow).decision, Decision::Pending);
    const Ruling loop = policy.decideAddress(target("", 8080, "127.0.0.1"), kNow);
    QCOMPARE(loop.decision, Decision::Allowed);
    QCOMPARE(loop.ruleId, qint64(2));
    QCOMPARE(policy.decideAddress(target("", 8081, "127.0.0.1"), kNow).decision, Decision::Pending);
    QCOMPARE(policy.decideAddress(target("", 80, "10.9.0.1"), kNow).decision, Decision::Denied);
    QCOMPARE(policy.decideAddress(target("", 80, "10.1.0.1"), kNow).decision, Decision::Allowed);
    QCOMPARE(policy.decideAddress(target("", 80, "10.1.0.1", "other"), kNow).decision, Decision::Denied);
}

void TestPolicy::syntheticAddressRulesRefused()
{
    for (const char *p : {"198.18.0.5", "198.19.255.1", "198.18.0.0/15", "198.18.4.0/24", "::ffff:198.18.0.9"}) {
        const Status s = Policy::validateNew(rule(0, p, true));
        QVERIFY2(!s.ok(), p);
        QVERIFY2(s.error().message().contains(QLatin1String("synthetic")), qPrintable(s.error().message()));
        QVERIFY2(s.error().why.contains(QLatin1String("real address")), qPrintable(s.error().why));
    }
    for (const char *p : {"198.17.0.1", "198.20.0.1", "198.0.0.0/8", "example.com"})
        QVERIFY2(Policy::validateNew(rule(0, p, true)).ok(), p);
}

void TestPolicy::domainChoiceFollowsThePublicSuffixList_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QStringList>("patterns");
    QTest::newRow("co.uk") << QStringLiteral("www.bbc.co.uk") << QStringList{QStringLiteral("*.bbc.co.uk")};
    QTest::newRow("github.io") << QStringLiteral("a.b.github.io") << QStringList{QStringLiteral("*.b.github.io")};
    QTest::newRow("registrable") << QStringLiteral("example.com") << QStringList{QStringLiteral("example.com"), QStringLiteral("*.example.com")};
    QTest::newRow("deep") << QStringLiteral("x.y.api.example.com.") << QStringList{QStringLiteral("*.example.com")};
    QTest::newRow("suffix itself") << QStringLiteral("co.uk") << QStringList{QStringLiteral("co.uk")};
    QTest::newRow("private suffix itself") << QStringLiteral("github.io") << QStringList{QStringLiteral("github.io")};
    QTest::newRow("ip") << QStringLiteral("203.0.113.9") << QStringList{};
    QTest::newRow("single label") << QStringLiteral("intranet") << QStringList{};
}

void TestPolicy::domainChoiceFollowsThePublicSuffixList()
{
    QFETCH(QString, host);
    QFETCH(QStringList, patterns);
    QCOMPARE(domainRulePatterns(host), patterns);
    for (const QString &p : patterns)
        QVERIFY2(HostPattern::parse(p), qPrintable(p)); // every answer is a valid rule
}

void TestPolicy::rawTcpRules()
{
    Rule raw = rule(1, "db.example.com", true, "", 5432);
    raw.rawTcp = true;
    QVERIFY(Policy::validateNew(raw).ok());
    Rule rawIp = rule(2, "203.0.113.5", true, "", 22);
    rawIp.rawTcp = true;
    QVERIFY(Policy::validateNew(rawIp).ok());
    for (const char *p : {"*", "*.example.com", "203.0.113.0/24"}) {
        Rule broad = rule(3, p, true, "", 5432);
        broad.rawTcp = true;
        const Status s = Policy::validateNew(broad);
        QVERIFY2(!s.ok(), p);
        QVERIFY2(s.error().why.contains(QLatin1String("covers many hosts")), qPrintable(s.error().why));
    }
    Rule noPort = rule(4, "db.example.com", true);
    noPort.rawTcp = true;
    const Status s = Policy::validateNew(noPort);
    QVERIFY(!s.ok());
    QVERIFY2(s.error().why.contains(QLatin1String("--port")), qPrintable(s.error().why));

    Policy policy;
    QVERIFY(policy.setRules({raw, rule(5, "*.example.com", true)}).ok());
    QVERIFY(policy.decide(target("db.example.com", 5432), kNow).rawTcp);
    QVERIFY(!policy.decide(target("db.example.com", 5433), kNow).rawTcp);
    QVERIFY(!policy.decide(target("www.example.com", 5432), kNow).rawTcp);
}

QTEST_GUILESS_MAIN(TestPolicy)
#include "test_policy.moc"
