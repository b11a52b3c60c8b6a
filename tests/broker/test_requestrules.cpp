// Rules of single requests: what a request line asks for (requestfacts.h), what a rule's
// method, path or git part matches (requestpattern.h), and how the policy ranks them against
// host rules (Policy::decidesPerRequest, Policy::decideRequest). Read as tables.
#include "policy.h"
#include "requestfacts.h"
#include "requestpattern.h"

#include <QTest>

using namespace airlock;

namespace {

const QDateTime kNow = QDateTime(QDate(2026, 12, 4), QTime(12, 0), Qt::UTC);

Rule hostRule(qint64 id, const char *host, bool allow, const char *sandbox = "box")
{
    Rule r;
    r.id = id;
    r.pattern = QString::fromLatin1(host);
    r.allow = allow;
    r.sandbox = QString::fromLatin1(sandbox);
    return r;
}

Rule requestRule(qint64 id, const char *host, bool allow, RequestRule request, const char *sandbox = "box")
{
    Rule r = hostRule(id, host, allow, sandbox);
    r.request = std::move(request);
    return r;
}

RequestRule git(const char *service, const char *repo = "") { return {{}, {}, QString::fromLatin1(service), QString::fromLatin1(repo)}; }
RequestRule http(const char *method, const char *path = "") { return {QString::fromLatin1(method), QString::fromLatin1(path), {}, {}}; }

Target github() { return Target{QStringLiteral("box"), QStringLiteral("github.com"), QHostAddress(), 443}; }

} // namespace

class TestRequestRules : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void facts_data();
    void facts();
    void gitRequests_data();
    void gitRequests();
    void patternsRefused_data();
    void patternsRefused();
    void allowIsExactDenySeesEveryReading_data();
    void allowIsExactDenySeesEveryReading();
    void perRequestOnlyWhereARequestRuleCanWin();
    void decideRequestPrecedence_data();
    void decideRequestPrecedence();
    void connectionsIgnoreRequestRules();
    void rulesThatCannotBeRead();
    void requestRuleNamesAreWhatTheSandboxCaCovers();
};

void TestRequestRules::facts_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<bool>("ambiguous");
    QTest::addColumn<QByteArray>("lastReading");
    QTest::newRow("plain") << QByteArray("/repos/o/r?per_page=5") << QByteArray("/repos/o/r") << false << QByteArray("/repos/o/r");
    QTest::newRow("unreserved escapes decoded") << QByteArray("/repos/%6Frg/%7e") << QByteArray("/repos/org/~") << false << QByteArray("/repos/org/~");
    QTest::newRow("other escapes upper-cased") << QByteArray("/a%2fb") << QByteArray("/a%2Fb") << true << QByteArray("/a/b");
    QTest::newRow("dot segments") << QByteArray("/repos/x/../myorg/y") << QByteArray("/repos/x/../myorg/y") << true << QByteArray("/repos/myorg/y");
    QTest::newRow("escaped dots") << QByteArray("/repos/x/%2e%2E/myorg") << QByteArray("/repos/x/../myorg") << true << QByteArray("/repos/myorg");
    QTest::newRow("empty segment") << QByteArray("/repos//myorg") << QByteArray("/repos//myorg") << true << QByteArray("/repos//myorg");
    QTest::newRow("backslash") << QByteArray("/repos\\myorg") << QByteArray("/repos\\myorg") << true << QByteArray("/repos\\myorg");
    QTest::newRow("lone percent") << QByteArray("/a%zz") << QByteArray("/a%zz") << true << QByteArray("/a%zz");
    QTest::newRow("npm scoped package") << QByteArray("/@types%2fnode") << QByteArray("/@types%2Fnode") << true << QByteArray("/@types/node");
}

void TestRequestRules::facts()
{
    QFETCH(QByteArray, target);
    QFETCH(QByteArray, path);
    QFETCH(bool, ambiguous);
    QFETCH(QByteArray, lastReading);
    const RequestFacts f = requestFacts("GET", target);
    QCOMPARE(f.path, path);
    QCOMPARE(f.ambiguous, ambiguous);
    QCOMPARE(f.readings.first(), path);
    QCOMPARE(f.readings.last(), lastReading);
}

void TestRequestRules::gitRequests_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QByteArray>("strict"); // "fetch myorg/tool", or "" for none
    QTest::addColumn<QByteArray>("lax");    // a service and repo the deny side must see, or ""
    QTest::newRow("clone discovery") << QByteArray("GET") << QByteArray("/myorg/tool.git/info/refs?service=git-upload-pack")
                                     << QByteArray("fetch myorg/tool") << QByteArray("fetch myorg/tool");
    QTest::newRow("fetch") << QByteArray("POST") << QByteArray("/myorg/tool/git-upload-pack") << QByteArray("fetch myorg/tool")
                           << QByteArray("fetch myorg/tool");
    QTest::newRow("push discovery") << QByteArray("GET") << QByteArray("/myorg/tool.git/info/refs?service=git-receive-pack")
                                    << QByteArray("push myorg/tool") << QByteArray("push myorg/tool");
    QTest::newRow("push") << QByteArray("POST") << QByteArray("/myorg/tool.git/git-receive-pack") << QByteArray("push myorg/tool")
                          << QByteArray("push myorg/tool");
    QTest::newRow("push, another method") << QByteArray("PUT") << QByteArray("/myorg/tool.git/git-receive-pack") << QByteArray()
                                          << QByteArray("push myorg/tool");
    QTest::newRow("push, odd case") << QByteArray("POST") << QByteArray("/MyOrg/Tool.GIT/GIT-RECEIVE-PACK") << QByteArray()
                                    << QByteArray("push MyOrg/Tool");
    QTest::newRow("two services") << QByteArray("GET") << QByteArray("/o/r/info/refs?service=git-upload-pack&service=git-receive-pack")
                                  << QByteArray() << QByteArray("push o/r");
    QTest::newRow("escaped service") << QByteArray("GET") << QByteArray("/o/r/info/refs?service=git-receive%2Dpack") << QByteArray()
                                     << QByteArray("push o/r");
    QTest::newRow("through dot segments") << QByteArray("POST") << QByteArray("/x/../myorg/tool/git-receive-pack") << QByteArray()
                                          << QByteArray("push myorg/tool");
    QTest::newRow("not git") << QByteArray("GET") << QByteArray("/myorg/tool/info/refs") << QByteArray() << QByteArray();
}

void TestRequestRules::gitRequests()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, target);
    QFETCH(QByteArray, strict);
    QFETCH(QByteArray, lax);
    const RequestFacts f = requestFacts(method, target);
    const QByteArray got = f.git.service == GitService::None ? QByteArray() : gitServiceName(f.git.service) + ' ' + f.git.repo;
    QCOMPARE(got, strict);
    QStringList seen;
    for (const GitRequest &g : f.gitReadings)
        seen << QString::fromLatin1(gitServiceName(g.service) + ' ' + g.repo);
    if (lax.isEmpty())
        QVERIFY2(seen.isEmpty(), qPrintable(seen.join(QLatin1Char(','))));
    else
        QVERIFY2(seen.contains(QString::fromLatin1(lax)), qPrintable(seen.join(QLatin1Char(','))));
}

void TestRequestRules::patternsRefused_data()
{
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("gitService");
    QTest::addColumn<QString>("repo");
    QTest::addColumn<QString>("says");
    QTest::newRow("relative path") << "" << "repos/*" << "" << "" << "not a path pattern";
    QTest::newRow("query in the path") << "" << "/search?q=*" << "" << "" << "not a path pattern";
    QTest::newRow("dot segment") << "" << "/a/../b" << "" << "" << "dot segment";
    QTest::newRow("escaped slash") << "" << "/a%2Fb" << "" << "" << "escaped";
    QTest::newRow("space") << "" << "/a b" << "" << "" << "not a path pattern";
    QTest::newRow("not a method") << "GE T" << "" << "" << "" << "not an HTTP method";
    QTest::newRow("CONNECT") << "CONNECT" << "" << "" << "" << "always refused";
    QTest::newRow("unknown git service") << "" << "" << "clone" << "" << "unknown git service";
    QTest::newRow("git with a path") << "" << "/x" << "push" << "" << "no method or path";
    QTest::newRow("repo without git") << "" << "" << "" << "myorg/*" << "belongs to a git rule";
    QTest::newRow("repo with a slash first") << "" << "" << "push" << "/myorg/*" << "not a repository pattern";
    QTest::newRow("repo with a query") << "" << "" << "push" << "myorg/x?y" << "not a repository pattern";
}

void TestRequestRules::patternsRefused()
{
    QFETCH(QString, method);
    QFETCH(QString, path);
    QFETCH(QString, gitService);
    QFETCH(QString, repo);
    QFETCH(QString, says);
    const Result<RequestPattern> p = RequestPattern::parse({method, path, gitService, repo});
    QVERIFY(!p);
    QVERIFY2(p.error().message().contains(says), qPrintable(p.error().message()));
    QCOMPARE(p.error().kind, ErrorKind::InvalidParams);
}

void TestRequestRules::allowIsExactDenySeesEveryReading_data()
{
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("gitService");
    QTest::addColumn<QString>("repo");
    QTest::addColumn<QByteArray>("requestMethod");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<bool>("allowMatches");
    QTest::addColumn<bool>("denyMatches");
    QTest::newRow("path") << "GET" << "/repos/myorg/*" << "" << "" << QByteArray("GET") << QByteArray("/repos/myorg/x/issues") << true << true;
    QTest::newRow("query is not path") << "" << "/search" << "" << "" << QByteArray("GET") << QByteArray("/search?q=1") << true << true;
    QTest::newRow("other method") << "GET" << "/repos/myorg/*" << "" << "" << QByteArray("POST") << QByteArray("/repos/myorg/x") << false << false;
    QTest::newRow("method case") << "DELETE" << "" << "" << "" << QByteArray("delete") << QByteArray("/x") << false << true;
    QTest::newRow("path case") << "" << "/repos/myorg/*" << "" << "" << QByteArray("GET") << QByteArray("/repos/MyOrg/x") << false << true;
    QTest::newRow("escaped letters") << "" << "/repos/myorg/*" << "" << "" << QByteArray("GET") << QByteArray("/repos/my%6Frg/x") << true << true;
    QTest::newRow("dot segments") << "" << "/repos/myorg/*" << "" << "" << QByteArray("GET") << QByteArray("/repos/x/../myorg/y") << false << true;
    QTest::newRow("escaped slash") << "" << "/repos/myorg/*" << "" << "" << QByteArray("GET") << QByteArray("/repos%2Fmyorg%2Fy") << false << true;
    QTest::newRow("method only, ambiguous path") << "GET" << "" << "" << "" << QByteArray("GET") << QByteArray("/a/../b") << true << true;
    QTest::newRow("git push of the org") << "" << "" << "push" << "myorg/*" << QByteArray("POST") << QByteArray("/myorg/tool.git/git-receive-pack") << true << true;
    QTest::newRow("git push elsewhere") << "" << "" << "push" << "myorg/*" << QByteArray("POST") << QByteArray("/other/tool.git/git-receive-pack") << false << false;
    QTest::newRow("git push, other case") << "" << "" << "push" << "myorg/*" << QByteArray("POST") << QByteArray("/MYORG/tool/git-receive-pack") << false << true;
    QTest::newRow("git fetch is not push") << "" << "" << "push" << "" << QByteArray("POST") << QByteArray("/o/r/git-upload-pack") << false << false;
    QTest::newRow("git push as PUT") << "" << "" << "push" << "" << QByteArray("PUT") << QByteArray("/o/r/git-receive-pack") << false << true;
    QTest::newRow("repo pattern .git") << "" << "" << "fetch" << "o/r.git" << QByteArray("POST") << QByteArray("/o/r/git-upload-pack") << true << true;
}

void TestRequestRules::allowIsExactDenySeesEveryReading()
{
    QFETCH(QString, method);
    QFETCH(QString, path);
    QFETCH(QString, gitService);
    QFETCH(QString, repo);
    QFETCH(QByteArray, requestMethod);
    QFETCH(QByteArray, target);
    QFETCH(bool, allowMatches);
    QFETCH(bool, denyMatches);
    const Result<RequestPattern> p = RequestPattern::parse({method, path, gitService, repo});
    QVERIFY2(p, p ? "" : qPrintable(p.error().message()));
    const RequestFacts f = requestFacts(requestMethod, target);
    QCOMPARE(p->matches(f, true), allowMatches);
    QCOMPARE(p->matches(f, false), denyMatches);
}

void TestRequestRules::perRequestOnlyWhereARequestRuleCanWin()
{
    Policy policy;
    QVERIFY(policy.setRules({requestRule(1, "github.com", true, git("fetch"), ""), hostRule(2, "github.com", false)}));
    // The sandbox's deny of the host outranks a global request rule: the connection is denied.
    Ruling flow = policy.decide(github(), kNow);
    QCOMPARE(flow.decision, Decision::Denied);
    QVERIFY(!policy.decidesPerRequest(github(), flow, kNow));
    // A request rule of the sandbox itself can win over its host rule: decided per request.
    QVERIFY(policy.add(requestRule(3, "github.com", true, git("fetch"))));
    QVERIFY(policy.decidesPerRequest(github(), flow, kNow));
    // No host rule: any request rule of the host makes it per request; other hosts stay as they were.
    Policy fresh;
    QVERIFY(fresh.setRules({requestRule(1, "*.github.com", true, http("GET"), "")}));
    const Target api{QStringLiteral("box"), QStringLiteral("api.github.com"), QHostAddress(), 443};
    QVERIFY(fresh.decidesPerRequest(api, fresh.decide(api, kNow), kNow));
    QVERIFY(!fresh.decidesPerRequest(github(), fresh.decide(github(), kNow), kNow));
    const Target other{QStringLiteral("box"), QStringLiteral("api.github.com"), QHostAddress(), 80};
    QVERIFY(fresh.decidesPerRequest(other, fresh.decide(other, kNow), kNow)); // any port
    // Whether one of them denies: a flow whose requests cannot be read is then refused whole.
    QCOMPARE(fresh.requestRules(api, fresh.decide(api, kNow), kNow), Policy::RequestRules::AllowOnly);
    QVERIFY(fresh.add(requestRule(2, "api.github.com", false, http("DELETE"))));
    QCOMPARE(fresh.requestRules(api, fresh.decide(api, kNow), kNow), Policy::RequestRules::Deny);
    QCOMPARE(fresh.requestRules(github(), fresh.decide(github(), kNow), kNow), Policy::RequestRules::None);
}

void TestRequestRules::decideRequestPrecedence_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<int>("rule"); // the deciding rule, 0 for none
    QTest::addColumn<bool>("allowed");
    // Rules (below): 1 sandbox deny github.com; 2 sandbox allow git fetch any; 3 sandbox allow git
    // push myorg/*; 4 global allow GET; 5 sandbox deny GET /myorg/secret/*; 6 sandbox allow GET /myorg/*.
    QTest::newRow("clone") << QByteArray("GET") << QByteArray("/other/x.git/info/refs?service=git-upload-pack") << 2 << true;
    QTest::newRow("push to the org") << QByteArray("POST") << QByteArray("/myorg/x.git/git-receive-pack") << 3 << true;
    QTest::newRow("push elsewhere: the host rule") << QByteArray("POST") << QByteArray("/other/x.git/git-receive-pack") << 1 << false;
    QTest::newRow("a global GET loses to the sandbox's host deny") << QByteArray("GET") << QByteArray("/other") << 1 << false;
    QTest::newRow("longer path wins, deny") << QByteArray("GET") << QByteArray("/myorg/secret/file") << 5 << false;
    QTest::newRow("shorter path allows the rest") << QByteArray("GET") << QByteArray("/myorg/public") << 6 << true;
    QTest::newRow("the deny sees the other case") << QByteArray("GET") << QByteArray("/MyOrg/Secret/file") << 5 << false;
    QTest::newRow("and the dot segments") << QByteArray("GET") << QByteArray("/myorg/x/../secret/file") << 5 << false;
}

void TestRequestRules::decideRequestPrecedence()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, target);
    QFETCH(int, rule);
    QFETCH(bool, allowed);
    Policy policy;
    QVERIFY(policy.setRules({hostRule(1, "github.com", false), requestRule(2, "github.com", true, git("fetch")),
                             requestRule(3, "github.com", true, git("push", "myorg/*")), requestRule(4, "github.com", true, http("GET"), ""),
                             requestRule(5, "github.com", false, http("GET", "/myorg/secret/*")),
                             requestRule(6, "github.com", true, http("GET", "/myorg/*"))}));
    const Ruling r = policy.decideRequest(github(), requestFacts(method, target), kNow);
    QCOMPARE(r.ruleId, qint64(rule));
    QCOMPARE(r.decision, allowed ? Decision::Allowed : Decision::Denied);
    QVERIFY2(r.reason.startsWith(QStringLiteral("rule %1: ").arg(rule)), qPrintable(r.reason));
}

void TestRequestRules::connectionsIgnoreRequestRules()
{
    // An allow of GET requests never allows a connection (its bytes could be anything).
    Policy policy;
    QVERIFY(policy.setRules({requestRule(1, "github.com", true, http("GET"))}));
    const Ruling flow = policy.decide(github(), kNow);
    QCOMPARE(flow.decision, Decision::Pending);
    QCOMPARE(flow.ruleId, 0);
    // A request no rule answers is left to be asked, and the reason says which request.
    const Ruling post = policy.decideRequest(github(), requestFacts("POST", "/x/y"), kNow);
    QCOMPARE(post.decision, Decision::Pending);
    QVERIFY2(post.reason.contains(QLatin1String("POST /x/y on github.com")), qPrintable(post.reason));
    QCOMPARE(policy.decideRequest(github(), requestFacts("GET", "/x/y"), kNow).decision, Decision::Allowed);
}

void TestRequestRules::rulesThatCannotBeRead()
{
    for (const char *host : {"*", "10.0.0.1", "10.0.0.0/8"}) {
        const Status s = Policy::validateNew(requestRule(0, host, true, http("GET")));
        QVERIFY2(!s && s.error().message().contains(QLatin1String("names a host")), host);
    }
    Rule once = requestRule(0, "github.com", true, http("GET"));
    once.once = true;
    QVERIFY(!Policy::validateNew(once));
    Rule raw = requestRule(0, "github.com", true, http("GET"));
    raw.rawTcp = true;
    raw.port = 443;
    QVERIFY(!Policy::validateNew(raw));
    QVERIFY(Policy::validateNew(requestRule(0, "*.github.com", true, git("push", "myorg/*"))));
}

// The names a sandbox's CA is made for (SecretBridge::lend): the request rules in force for it,
// global and its own, each name once; never another sandbox's rule, an expired one or a rule
// of connections (a request rule cannot name `*`, an address or a top-level wildcard).
void TestRequestRules::requestRuleNamesAreWhatTheSandboxCaCovers()
{
    Rule expired = requestRule(5, "old.test", true, http("GET"));
    expired.expires = kNow.addSecs(-60);
    Policy policy;
    const Status set = policy.setRules({requestRule(1, "*.github.com", true, http("GET"), ""), requestRule(2, "github.com", true, git("fetch")),
                                        requestRule(3, "evil.test", true, http("GET"), "other"), hostRule(4, "plain.test", true), expired,
                                        requestRule(7, "GitHub.com.", true, http("GET"))});
    QVERIFY2(set, set ? "" : qPrintable(set.error().message()));
    QCOMPARE(policy.requestRuleNames(QStringLiteral("box"), kNow), (QStringList{QStringLiteral("*.github.com"), QStringLiteral("github.com")}));
    QCOMPARE(policy.requestRuleNames(QStringLiteral("other"), kNow), (QStringList{QStringLiteral("*.github.com"), QStringLiteral("evil.test")}));
    QCOMPARE(Policy::requestRuleNames({hostRule(1, "a.test", true)}), QStringList());
}

QTEST_GUILESS_MAIN(TestRequestRules)
#include "test_requestrules.moc"
