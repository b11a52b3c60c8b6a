// Policy files (broker/policyfile.h): what a written file reads back as, what is refused and
// why, and what an import into a scope with rules already there would change.
#include "policyfile.h"

#include <QTest>

using namespace airlock;

class TestPolicyFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void writtenFileReadsBackTheSame();
    void readsWhatAPersonWrites();
    void yamlFileReadsBackAsTheJsonOne();
    void readsYamlAPersonWrites();
    void refusesBadFiles_data();
    void refusesBadFiles();
    void refusesOversizedFiles();
    void lastingRulesOnly();
    void planAddsKeepsAndReportsConflicts();
    void planWithReplaceRemovesWhatTheFileLacks();
    void fingerprintNamesTheChanges();
};

namespace {

PolicyEntry entry(bool allow, const QString &host, int port = 0, bool rawTcp = false)
{
    PolicyEntry e;
    e.allow = allow;
    e.host = host;
    e.port = port;
    e.rawTcp = rawTcp;
    return e;
}

Rule rule(qint64 id, bool allow, const QString &host, int port = 0)
{
    Rule r;
    r.id = id;
    r.sandbox = QStringLiteral("web");
    r.allow = allow;
    r.pattern = host;
    r.port = port;
    return r;
}

QStringList described(const QList<PolicyEntry> &entries)
{
    QStringList out;
    for (const PolicyEntry &e : entries)
        out << e.describe();
    return out;
}

QStringList described(const QList<QPair<PolicyEntry, qint64>> &entries)
{
    QStringList out;
    for (const auto &[e, id] : entries)
        out << QStringLiteral("%1 #%2").arg(e.describe()).arg(id);
    return out;
}

// `text`, written from `file` in `format`, reads back as `file` and is written again unchanged.
void checkReadsBack(const PolicyFile &file, const QByteArray &text, PolicyFileFormat format)
{
    const Result<PolicyFile> read = parsePolicyFile(text, QStringLiteral("written"));
    QVERIFY2(read, qPrintable(read ? QString() : read.error().message()));
    QCOMPARE(read->description, file.description);
    QCOMPARE(described(read->rules), described(file.rules));
    QCOMPARE(read->rules[0].why, file.rules[0].why);
    QCOMPARE(read->rules[0].from, file.rules[0].from);
    QCOMPARE(writePolicyFile(*read, format), text);
}

} // namespace

void TestPolicyFile::writtenFileReadsBackTheSame()
{
    PolicyFile file;
    file.description = QStringLiteral("what the \"web\" agent reaches");
    file.rules = {entry(true, QStringLiteral("github.com"), 443), entry(false, QStringLiteral("*.tracker.example")),
                  entry(true, QStringLiteral("db.internal"), 5432, true), entry(true, QStringLiteral("10.1.0.5"), 22, true),
                  entry(true, QStringLiteral("github.com")), entry(true, QStringLiteral("api.github.com"))};
    // Rules of single requests: a git push of one org, GET below a path (the same host as a
    // connection rule is another target).
    file.rules[4].request = {{}, {}, QStringLiteral("push"), QStringLiteral("myorg/" "*")};
    file.rules[5].request = {QStringLiteral("GET"), QStringLiteral("/repos/myorg/" "*"), {}, {}};
    file.rules[0].why = QStringLiteral("clone and fetch");
    file.rules[0].from = QStringLiteral("decided on attempt 41 (uid 1000, 2026-12-03T10:00:00Z)");
    const QByteArray text = writePolicyFile(file, PolicyFileFormat::Json);
    // One rule per line: a change to one rule is one line in the project's diff.
    QCOMPARE(text.count("\"action\""), 6);
    QVERIFY2(text.contains("\"git\": \"push\", \"repo\": \"myorg/" "*\""), text.constData());
    for (const QByteArray &line : text.split('\n'))
        QVERIFY2(line.count("\"action\"") <= 1, line.constData());
    checkReadsBack(file, text, PolicyFileFormat::Json);
    if (QTest::currentTestFailed())
        return;
    // An empty policy is a policy.
    QVERIFY(parsePolicyFile(writePolicyFile(PolicyFile{}, PolicyFileFormat::Json), QStringLiteral("empty.json")));
}

void TestPolicyFile::readsWhatAPersonWrites()
{
    const Result<PolicyFile> read = parsePolicyFile(R"({"rules": [{"host": " GitHub.com ", "action": "allow", "port": 443}],
                                                        "airlock_policy": 1})",
                                                    QStringLiteral("hand.json"));
    QVERIFY2(read, qPrintable(read ? QString() : read.error().message()));
    QCOMPARE(described(read->rules), QStringList{QStringLiteral("allow github.com:443")}); // normalised as rule add does
    // (A "/" and "*" apart in the source: moc would read them as a comment.)
    const Result<PolicyFile> requests = parsePolicyFile("{\"airlock_policy\": 1, \"rules\": ["
                                                        "{\"action\": \"allow\", \"host\": \"api.github.com\", \"method\": \"get\", \"path\": \"/repos/my%6Frg/" "*\"},"
                                                        "{\"action\": \"deny\", \"host\": \"github.com\", \"git\": \"push\", \"repo\": \"myorg/secret.git\"}]}",
                                                        QStringLiteral("hand.json"));
    QVERIFY2(requests, qPrintable(requests ? QString() : requests.error().message()));
    QCOMPARE(described(requests->rules), QStringList({QStringLiteral("allow api.github.com:any GET /repos/myorg/" "*"),
                                                      QStringLiteral("deny github.com:any git push myorg/secret")}));
}

// The same file written as YAML: one key per line, every string quoted, and it reads back
// as the same rules as its JSON twin.
void TestPolicyFile::yamlFileReadsBackAsTheJsonOne()
{
    PolicyFile file;
    file.description = QStringLiteral("what the \"web\" agent reaches: #1");
    file.rules = {entry(true, QStringLiteral("github.com"), 443), entry(false, QStringLiteral("*.tracker.example")),
                  entry(true, QStringLiteral("db.internal"), 5432, true), entry(true, QStringLiteral("github.com"))};
    file.rules[3].request = {{}, {}, QStringLiteral("push"), QStringLiteral("myorg/" "*")};
    file.rules[0].why = QStringLiteral("yes: clone & fetch");
    file.rules[0].from = QStringLiteral("decided on attempt 41 (uid 1000, 2026-12-03T10:00:00Z)");
    const QByteArray yaml = writePolicyFile(file, PolicyFileFormat::Yaml);
    QVERIFY2(yaml.startsWith("# Airlock policy file"), yaml.constData());
    QVERIFY2(yaml.contains("\nrules:\n  - action: \"allow\"\n    host: \"github.com\"\n    port: 443\n"), yaml.constData());
    QVERIFY2(yaml.contains("    host: \"*.tracker.example\"\n"), yaml.constData());
    QVERIFY2(yaml.contains("    raw_tcp: true\n"), yaml.constData());
    checkReadsBack(file, yaml, PolicyFileFormat::Yaml);
    if (QTest::currentTestFailed())
        return;
    const QByteArray empty = writePolicyFile(PolicyFile{}, PolicyFileFormat::Yaml);
    QVERIFY2(empty.contains("\nrules: []\n"), empty.constData());
    QVERIFY(parsePolicyFile(empty, QStringLiteral("empty.yaml")));
}

// YAML as people write it: comments, plain scalars, flow style. Only YAML 1.2's core schema
// gives a plain scalar another type than text, so `NO` stays the word (YAML 1.1 would read
// false) and `0x1bb` is the port 443.
void TestPolicyFile::readsYamlAPersonWrites()
{
    const Result<PolicyFile> read = parsePolicyFile(R"(# what the web agent reaches
airlock_policy: 1
description: web project
rules:
  - action: allow        # clone and fetch
    host: GitHub.com
    port: 443
    why: NO
  - {action: deny, host: '*.tracker.example'}
  - action: allow
    host: api.github.com
    method: get
    path: "/repos/myorg/*"
  - action: allow
    host: db.internal
    port: 0x1bb
    raw_tcp: true
)", QStringLiteral("hand.yaml"));
    QVERIFY2(read, qPrintable(read ? QString() : read.error().message()));
    QCOMPARE(read->description, QStringLiteral("web project"));
    QCOMPARE(described(read->rules), QStringList({QStringLiteral("allow github.com:443"), QStringLiteral("deny *.tracker.example:any"),
                                                  QStringLiteral("allow api.github.com:any GET /repos/myorg/" "*"),
                                                  QStringLiteral("allow db.internal:443 (raw TCP)")}));
    QCOMPARE(read->rules[0].why, QStringLiteral("NO"));
}

void TestPolicyFile::refusesBadFiles_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("says");
    QTest::newRow("not JSON") << QByteArray("{allow github.com}") << QStringLiteral("not valid JSON");
    QTest::newRow("a line of text") << QByteArray("allow github.com") << QStringLiteral("must be an object");
    QTest::newRow("an array") << QByteArray("[]") << QStringLiteral("must be an object");
    QTest::newRow("no version") << QByteArray(R"({"rules": []})") << QStringLiteral("is this an Airlock policy file?");
    QTest::newRow("a later version") << QByteArray(R"({"airlock_policy": 2, "rules": []})") << QStringLiteral("must be 1");
    QTest::newRow("version as text") << QByteArray(R"({"airlock_policy": "1", "rules": []})") << QStringLiteral("must be 1");
    QTest::newRow("unknown key") << QByteArray(R"({"airlock_policy": 1, "rules": [], "default": "allow"})")
                                 << QStringLiteral("unknown key 'default'");
    QTest::newRow("no rules") << QByteArray(R"({"airlock_policy": 1})") << QStringLiteral("\"rules\" must be an array");
    QTest::newRow("a git rule with a path") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.test", "git": "push", "path": "/x"}]})")
                                            << QStringLiteral("rules[0]: a git rule names no method or path");
    QTest::newRow("a request rule for every host") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "*", "method": "GET"}]})")
                                                   << QStringLiteral("names a host");
    QTest::newRow("a method as a number") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.test", "method": 1}]})")
                                          << QStringLiteral("\"method\" must be a string");
    QTest::newRow("a typo in a rule") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.test", "prot": 22}]})")
                                      << QStringLiteral("rules[0]: unknown key 'prot'");
    QTest::newRow("a rule that is not an object") << QByteArray(R"({"airlock_policy": 1, "rules": ["allow a.test"]})")
                                                  << QStringLiteral("rules[0]: must be an object");
    QTest::newRow("no action") << QByteArray(R"({"airlock_policy": 1, "rules": [{"host": "a.test"}]})") << QStringLiteral("\"action\" must be");
    QTest::newRow("bad host") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a b.test"}]})")
                              << QStringLiteral("rules[0]");
    QTest::newRow("port 0") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.test", "port": 0}]})")
                            << QStringLiteral("\"port\" must be an integer 1..65535");
    QTest::newRow("port as text") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.test", "port": "443"}]})")
                                  << QStringLiteral("\"port\" must be an integer 1..65535");
    QTest::newRow("raw_tcp as text") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.test", "raw_tcp": "yes"}]})")
                                     << QStringLiteral("\"raw_tcp\" must be true or false");
    QTest::newRow("a two-line why") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.test", "why": "a\nb"}]})")
                                    << QStringLiteral("one line");
    // A file the agent wrote must not redraw the difference a person reads.
    QTest::newRow("a carriage return in from") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.test", "from": "x\r+ deny a.test"}]})")
                                               << QStringLiteral("without control characters");
    QTest::newRow("an escape sequence in why") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.test", "why": "\u001b[1A\u001b[2K"}]})")
                                               << QStringLiteral("without control characters");
    QTest::newRow("a bidi override in the description")
        << QByteArray(R"({"airlock_policy": 1, "description": "safe \u202e", "rules": []})") << QStringLiteral("without control characters");
    QTest::newRow("a synthetic address") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "198.18.0.7"}]})")
                                         << QStringLiteral("synthetic address");
    QTest::newRow("the same target twice")
        << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.test", "port": 443},
                                                         {"action": "deny", "host": "A.test", "port": 443}]})")
        << QStringLiteral("rules[1]: deny a.test:443 is already in the file");
    // YAML: only what JSON can say, and nothing that lets a small file grow large.
    const QByteArray head = "airlock_policy: 1\nrules:\n";
    QTest::newRow("yaml: not YAML") << QByteArray(head + "  - action: allow\n\thost: a.test\n") << QStringLiteral("not valid YAML at line 4");
    QTest::newRow("yaml: an alias") << QByteArray("airlock_policy: 1\nrules:\n  - &r {action: allow, host: a.test}\n  - *r\n")
                                    << QStringLiteral("an anchor (&name) or tag (!tag) at line 3");
    QTest::newRow("yaml: an alias alone") << QByteArray(head + "  - {action: allow, host: *h}\n") << QStringLiteral("an alias (*name) at line 3");
    QTest::newRow("yaml: a tag") << QByteArray(head + "  - {action: allow, host: !!str a.test}\n") << QStringLiteral("or tag (!tag)");
    QTest::newRow("yaml: a key twice") << QByteArray(head + "  - {action: allow, host: a.test, host: b.test}\n")
                                       << QStringLiteral("the key 'host' is there twice");
    QTest::newRow("yaml: a second document") << QByteArray(head + "  []\n---\nairlock_policy: 1\n")
                                             << QStringLiteral("a second document starts at line 4");
    QTest::newRow("yaml: port as text") << QByteArray(head + "  - {action: allow, host: a.test, port: '443'}\n")
                                        << QStringLiteral("\"port\" must be an integer 1..65535");
    QTest::newRow("yaml: yes is not true") << QByteArray(head + "  - {action: allow, host: a.test, raw_tcp: yes}\n")
                                           << QStringLiteral("\"raw_tcp\" must be true or false");
    QTest::newRow("yaml: a key that is a list") << QByteArray(head + "  - {[a]: allow}\n") << QStringLiteral("a key at line 3");
    QTest::newRow("yaml: nested too deep") << QByteArray(head + "  " + QByteArray(40, '[') + QByteArray(40, ']') + "\n")
                                           << QStringLiteral("nested more than 16 deep");
    QTest::newRow("yaml: empty") << QByteArray("# nothing\n") << QStringLiteral("the file is empty");
}

void TestPolicyFile::refusesBadFiles()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, says);
    const Result<PolicyFile> read = parsePolicyFile(text, QStringLiteral("bad.json"));
    QVERIFY(!read);
    QVERIFY2(read.error().message().contains(QLatin1String("bad.json")), qPrintable(read.error().message()));
    QVERIFY2(read.error().message().contains(says), qPrintable(read.error().message()));
}

void TestPolicyFile::refusesOversizedFiles()
{
    QByteArray big = R"({"airlock_policy": 1, "rules": [], "description": ")" + QByteArray(kMaxPolicyFileBytes, 'a') + "\"}";
    const Result<PolicyFile> tooBig = parsePolicyFile(big, QStringLiteral("big.json"));
    QVERIFY(!tooBig);
    QVERIFY2(tooBig.error().message().contains(QLatin1String("larger than 512 KiB")), qPrintable(tooBig.error().message()));
    PolicyFile many;
    for (int i = 0; i <= kMaxPolicyRules; ++i)
        many.rules.append(entry(true, QStringLiteral("h%1.test").arg(i)));
    const QByteArray text = writePolicyFile(many, PolicyFileFormat::Json);
    QVERIFY(text.size() <= kMaxPolicyFileBytes);
    const Result<PolicyFile> tooMany = parsePolicyFile(text, QStringLiteral("many.json"));
    QVERIFY(!tooMany);
    QVERIFY2(tooMany.error().message().contains(QLatin1String("at most 4096")), qPrintable(tooMany.error().message()));
    const QByteArray longWhy = R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.test", "why": ")" +
                               QByteArray(kMaxPolicyText + 1, 'w') + "\"}]}";
    QVERIFY(!parsePolicyFile(longWhy, QStringLiteral("why.json")));
}

void TestPolicyFile::lastingRulesOnly()
{
    Rule r = rule(1, true, QStringLiteral("a.test"));
    QVERIFY(isLastingRule(r));
    r.once = true;
    QVERIFY(!isLastingRule(r));
    r = rule(1, true, QStringLiteral("a.test"));
    r.untilStop = true;
    QVERIFY(!isLastingRule(r));
    r = rule(1, true, QStringLiteral("a.test"));
    r.expires = QDateTime::currentDateTimeUtc().addSecs(60);
    QVERIFY(!isLastingRule(r));
    // A rule's entry says where it came from, who made it and when.
    r = rule(7, true, QStringLiteral("a.test"), 443);
    r.owner = 1000;
    r.origin = QStringLiteral("decided on attempt 41");
    r.created = QDateTime(QDate(2026, 12, 3), QTime(10, 0), Qt::UTC);
    QCOMPARE(PolicyEntry::of(r).from, QStringLiteral("decided on attempt 41 (uid 1000, 2026-12-03T10:00:00Z)"));
}

void TestPolicyFile::planAddsKeepsAndReportsConflicts()
{
    PolicyFile file;
    file.rules = {entry(true, QStringLiteral("github.com"), 443), entry(true, QStringLiteral("pypi.org"), 443),
                  entry(false, QStringLiteral("tracker.example"))};
    const QList<Rule> existing = {rule(1, true, QStringLiteral("github.com"), 443), rule(2, true, QStringLiteral("tracker.example")),
                                  rule(3, true, QStringLiteral("other.test"))};
    const PolicyImportPlan plan = planPolicyImport(file, existing, false);
    QCOMPARE(described(plan.add), (QStringList{QStringLiteral("allow pypi.org:443"), QStringLiteral("deny tracker.example:any")}));
    QCOMPARE(described(plan.keep), QStringList{QStringLiteral("allow github.com:443 #1")});
    QCOMPARE(described(plan.conflicts), QStringList{QStringLiteral("allow tracker.example:any #2")});
    QVERIFY(plan.remove.isEmpty()); // without replace, rules the file does not name stay
}

void TestPolicyFile::planWithReplaceRemovesWhatTheFileLacks()
{
    PolicyFile file;
    file.rules = {entry(true, QStringLiteral("github.com"), 443), entry(false, QStringLiteral("tracker.example"))};
    const QList<Rule> existing = {rule(1, true, QStringLiteral("github.com"), 443), rule(2, true, QStringLiteral("tracker.example")),
                                  rule(3, true, QStringLiteral("other.test")), rule(4, true, QStringLiteral("github.com"), 443)};
    const PolicyImportPlan plan = planPolicyImport(file, existing, true);
    QCOMPARE(described(plan.add), QStringList{QStringLiteral("deny tracker.example:any")});
    QCOMPARE(described(plan.keep), QStringList{QStringLiteral("allow github.com:443 #1")});
    QVERIFY(plan.conflicts.isEmpty());
    // The opposite rule, the rule the file lacks, and the duplicate of a kept one.
    QCOMPARE(described(plan.remove), (QStringList{QStringLiteral("allow tracker.example:any #2"), QStringLiteral("allow other.test:any #3"),
                                                  QStringLiteral("allow github.com:443 #4")}));
}

void TestPolicyFile::fingerprintNamesTheChanges()
{
    PolicyFile file;
    file.rules = {entry(true, QStringLiteral("github.com"), 443)};
    const QList<Rule> existing = {rule(1, true, QStringLiteral("other.test"))};
    const QString shown = planPolicyImport(file, existing, true).fingerprint();
    QCOMPARE(planPolicyImport(file, existing, true).fingerprint(), shown);
    QCOMPARE(shown.size(), 32);
    // A rule added since would be removed too: not what was shown.
    QVERIFY(planPolicyImport(file, existing + QList<Rule>{rule(2, true, QStringLiteral("new.test"))}, true).fingerprint() != shown);
    // The same rule under another id is another rule.
    QVERIFY(planPolicyImport(file, {rule(3, true, QStringLiteral("other.test"))}, true).fingerprint() != shown);
    QVERIFY(planPolicyImport(file, existing, false).fingerprint() != shown);
}

QTEST_GUILESS_MAIN(TestPolicyFile)
#include "test_policyfile.moc"
