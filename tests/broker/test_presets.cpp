// Egress presets: every shipped preset loads and validates, and bad files are refused with
// a message that names the file and the problem.
#include "presets.h"
#include "requestfacts.h"

#include <QDir>
#include <algorithm>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace airlock;

class TestPresets : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shippedPresetsLoad();
    void shippedPresetsAllowWhatTheyName();
    void readOnlyPresetsLeaveWritesToBeAsked();
    void aParameterNamesOneOrganisation();
    void parametersAreCheckedWhenGiven_data();
    void parametersAreCheckedWhenGiven();
    void refusesBadPresets_data();
    void refusesBadPresets();
    void fileNameMustMatch();
};

void TestPresets::shippedPresetsLoad()
{
    const QString dir = QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/egress-presets");
    const Result<QList<Preset>> presets = loadPresets(dir);
    QVERIFY2(presets.ok(), qPrintable(presets.error().message()));
    QStringList names;
    for (const Preset &p : *presets)
        names << p.name;
    QCOMPARE(names, (QStringList{QStringLiteral("anthropic"), QStringLiteral("chatgpt-sign-in"), QStringLiteral("claude-code"),
                                 QStringLiteral("claude-sign-in"), QStringLiteral("codex"), QStringLiteral("debian"),
                                 QStringLiteral("github"), QStringLiteral("github-push-to-org"), QStringLiteral("github-read-only"),
                                 QStringLiteral("npm"),
                                 QStringLiteral("npm-install"), QStringLiteral("openai"), QStringLiteral("pypi")}));
    qputenv("AIRLOCK_PRESETS_DIR", dir.toUtf8());
    QCOMPARE(presetsDirectory(), dir);
}

void TestPresets::shippedPresetsAllowWhatTheyName()
{
    const Result<QList<Preset>> presets = loadPresets(QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/egress-presets"));
    QVERIFY(presets.ok());
    Policy policy;
    QList<Rule> rules;
    qint64 id = 1;
    for (const Preset &p : *presets) {
        const Result<Preset> filled = p.filled(p.parameters.isEmpty() ? QMap<QString, QString>{} : QMap<QString, QString>{{QStringLiteral("org"), QStringLiteral("myorg")}});
        QVERIFY2(filled, qPrintable(p.name));
        for (Rule r : filled->toRules(QStringLiteral("box"), 1000)) {
            r.id = id++;
            rules.append(r);
        }
    }
    QVERIFY(policy.setRules(rules).ok());
    const QDateTime now = QDateTime::currentDateTimeUtc();
    auto verdict = [&](const char *host, quint16 port) {
        return policy.decide(Target{QStringLiteral("box"), QString::fromLatin1(host), {}, port}, now).decision;
    };
    QCOMPARE(verdict("api.anthropic.com", 443), Decision::Allowed);
    QCOMPARE(verdict("api.openai.com", 443), Decision::Allowed);
    QCOMPARE(verdict("registry.npmjs.org", 443), Decision::Allowed);
    QCOMPARE(verdict("files.pythonhosted.org", 443), Decision::Allowed);
    QCOMPARE(verdict("deb.debian.org", 80), Decision::Allowed);
    QCOMPARE(verdict("github.com", 22), Decision::Allowed);
    QCOMPARE(verdict("registry.npmjs.org", 80), Decision::Pending);   // only the ports named
    QCOMPARE(verdict("evil-registry.npmjs.org", 443), Decision::Pending);
    QCOMPARE(verdict("gist.github.com", 443), Decision::Pending);     // no wildcards smuggled in
}

// The presets of single requests: reading passes, anything that writes is left to be asked,
// and nothing in them allows a connection whole.
void TestPresets::readOnlyPresetsLeaveWritesToBeAsked()
{
    const Result<QList<Preset>> presets = loadPresets(QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/egress-presets"));
    QVERIFY(presets.ok());
    Policy policy;
    qint64 id = 1;
    for (const Preset &p : *presets) {
        if (p.name != QLatin1String("github-read-only") && p.name != QLatin1String("npm-install"))
            continue;
        for (Rule r : p.toRules(QStringLiteral("box"), 1000)) {
            r.id = id++;
            QVERIFY(policy.add(r));
        }
    }
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const auto request = [&](const char *host, const char *method, const char *target) {
        return policy.decideRequest(Target{QStringLiteral("box"), QString::fromLatin1(host), {}, 443}, requestFacts(method, target), now).decision;
    };
    QCOMPARE(request("github.com", "GET", "/o/r.git/info/refs?service=git-upload-pack"), Decision::Allowed);
    QCOMPARE(request("github.com", "POST", "/o/r.git/git-upload-pack"), Decision::Allowed);
    QCOMPARE(request("github.com", "POST", "/o/r.git/git-receive-pack"), Decision::Pending);
    QCOMPARE(request("api.github.com", "GET", "/repos/o/r/pulls"), Decision::Allowed);
    QCOMPARE(request("api.github.com", "POST", "/repos/o/r/pulls"), Decision::Pending);
    QCOMPARE(request("registry.npmjs.org", "GET", "/left-pad"), Decision::Allowed);
    QCOMPARE(request("registry.npmjs.org", "PUT", "/left-pad"), Decision::Pending);
    const Target api{QStringLiteral("box"), QStringLiteral("api.github.com"), {}, 443};
    QCOMPARE(policy.decide(api, now).decision, Decision::Pending);
    QCOMPARE(policy.requestRules(api, policy.decide(api, now), now), Policy::RequestRules::AllowOnly);
}

// github-push-to-org:org=myorg pushes to myorg's repositories only; the rest is asked.
void TestPresets::aParameterNamesOneOrganisation()
{
    const Result<QList<Preset>> presets = loadPresets(QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/egress-presets"));
    QVERIFY(presets.ok());
    const auto it = std::find_if(presets->cbegin(), presets->cend(), [](const Preset &p) { return p.name == QLatin1String("github-push-to-org"); });
    QVERIFY(it != presets->cend());
    QCOMPARE(it->parameters.keys(), QStringList{QStringLiteral("org")});
    const Result<PresetUse> use = parsePresetUse(QStringLiteral("github-push-to-org:org=myorg"));
    QVERIFY2(use, qPrintable(use ? QString() : use.error().message()));
    QCOMPARE(use->name, QStringLiteral("github-push-to-org"));
    const Result<Preset> filled = it->filled(use->values);
    QVERIFY2(filled, qPrintable(filled ? QString() : filled.error().message()));
    Policy policy;
    qint64 id = 1;
    QStringList described;
    for (Rule r : filled->toRules(QStringLiteral("box"), 1000)) {
        r.id = id++;
        QCOMPARE(r.origin, QStringLiteral("preset github-push-to-org (org=myorg)"));
        described << r.request.text();
        QVERIFY(policy.add(r));
    }
    QVERIFY2(described.contains(QStringLiteral("git push myorg/" "*")), qPrintable(described.join(u'|')));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const auto request = [&](const char *method, const char *target) {
        return policy.decideRequest(Target{QStringLiteral("box"), QStringLiteral("github.com"), {}, 443}, requestFacts(method, target), now).decision;
    };
    QCOMPARE(request("POST", "/myorg/app.git/git-receive-pack"), Decision::Allowed);
    QCOMPARE(request("GET", "/myorg/app.git/info/refs?service=git-receive-pack"), Decision::Allowed);
    QCOMPARE(request("POST", "/otherorg/app.git/git-receive-pack"), Decision::Pending);
    QCOMPARE(request("POST", "/myorg-evil/app.git/git-receive-pack"), Decision::Pending);
    QCOMPARE(request("POST", "/otherorg/app.git/git-upload-pack"), Decision::Allowed); // fetching stays open
    // The parameterless use of a plain preset is the preset.
    QCOMPARE(parsePresetUse(QStringLiteral("npm"))->values.size(), 0);
}

void TestPresets::parametersAreCheckedWhenGiven_data()
{
    QTest::addColumn<QString>("use");
    QTest::addColumn<QString>("says");
    QTest::newRow("missing") << QStringLiteral("github-push-to-org") << QStringLiteral("needs org (the GitHub organisation");
    QTest::newRow("a wildcard") << QStringLiteral("github-push-to-org:org=*") << QStringLiteral("a value is one name");
    QTest::newRow("a path") << QStringLiteral("github-push-to-org:org=a/b") << QStringLiteral("a value is one name");
    QTest::newRow("empty") << QStringLiteral("github-push-to-org:org=") << QStringLiteral("a value is one name");
    QTest::newRow("another parameter") << QStringLiteral("github-push-to-org:org=a,repo=b") << QStringLiteral("has no parameter repo");
    QTest::newRow("to a plain preset") << QStringLiteral("github-read-only:org=a") << QStringLiteral("name it without parameters");
    QTest::newRow("no value") << QStringLiteral("github-push-to-org:org") << QStringLiteral("NAME:KEY=VALUE");
    QTest::newRow("twice") << QStringLiteral("github-push-to-org:org=a,org=b") << QStringLiteral("gives org twice");
}

void TestPresets::parametersAreCheckedWhenGiven()
{
    QFETCH(QString, use);
    QFETCH(QString, says);
    const Result<QList<Preset>> presets = loadPresets(QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/egress-presets"));
    QVERIFY(presets.ok());
    const Result<PresetUse> parsed = parsePresetUse(use);
    QString error = parsed ? QString() : parsed.error().message();
    if (parsed) {
        const auto it = std::find_if(presets->cbegin(), presets->cend(), [&](const Preset &p) { return p.name == parsed->name; });
        QVERIFY(it != presets->cend());
        const Result<Preset> filled = it->filled(parsed->values);
        QVERIFY(!filled);
        error = filled.error().message();
    }
    QVERIFY2(error.contains(says), qPrintable(error));
}

void TestPresets::refusesBadPresets_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("why");
    QTest::newRow("not json") << QByteArray("{") << QStringLiteral("not valid JSON");
    QTest::newRow("array") << QByteArray("[]") << QStringLiteral("must be an object");
    QTest::newRow("unknown key") << QByteArray(R"({"name":"x","description":"d","rules":[],"allow":1})")
                                 << QStringLiteral("unknown key 'allow'");
    QTest::newRow("bad name") << QByteArray(R"({"name":"X Y","description":"d","rules":[{"host":"a.com","why":"w"}]})")
                              << QStringLiteral("\"name\"");
    QTest::newRow("no description") << QByteArray(R"({"name":"x","rules":[{"host":"a.com","why":"w"}]})")
                                    << QStringLiteral("description");
    QTest::newRow("no rules") << QByteArray(R"({"name":"x","description":"d","rules":[]})") << QStringLiteral("non-empty");
    QTest::newRow("bad host") << QByteArray(R"({"name":"x","description":"d","rules":[{"host":"*.com","why":"w"}]})")
                              << QStringLiteral("rules[0]: invalid host pattern '*.com'");
    QTest::newRow("star") << QByteArray(R"({"name":"x","description":"d","rules":[{"host":"*","why":"w"}]})")
                          << QStringLiteral("may not allow everything");
    QTest::newRow("port typo") << QByteArray(R"({"name":"x","description":"d","rules":[{"host":"a.com","prot":1,"why":"w"}]})")
                               << QStringLiteral("unknown key 'prot'");
    QTest::newRow("port string") << QByteArray(R"({"name":"x","description":"d","rules":[{"host":"a.com","port":"443","why":"w"}]})")
                                 << QStringLiteral("integer 1..65535");
    QTest::newRow("port 0") << QByteArray(R"({"name":"x","description":"d","rules":[{"host":"a.com","port":0,"why":"w"}]})")
                            << QStringLiteral("integer 1..65535");
    QTest::newRow("no why") << QByteArray(R"({"name":"x","description":"d","rules":[{"host":"a.com"}]})")
                            << QStringLiteral("\"why\" is missing");
    QTest::newRow("request rule for an address") << QByteArray(R"({"name":"x","description":"d","rules":[{"host":"10.0.0.1","method":"GET","why":"w"}]})")
                                                 << QStringLiteral("names a host");
    QTest::newRow("git service typo") << QByteArray(R"({"name":"x","description":"d","rules":[{"host":"a.com","git":"clone","why":"w"}]})")
                                      << QStringLiteral("unknown git service 'clone'");
    QTest::newRow("an undeclared parameter") << QByteArray(R"({"name":"x","description":"d","rules":[{"host":"a.com","git":"push","repo":"{org}/x","why":"w"}]})")
                                             << QStringLiteral("\"{org}\" names no parameter");
    QTest::newRow("an unused parameter")
        << QByteArray(R"({"name":"x","description":"d","parameters":{"org":"o"},"rules":[{"host":"a.com","why":"w"}]})")
        << QStringLiteral("the parameter 'org' is used by no rule");
    QTest::newRow("a parameter without a description")
        << QByteArray(R"({"name":"x","description":"d","parameters":{"org":""},"rules":[{"host":"a.com","git":"push","repo":"{org}/x","why":"w"}]})")
        << QStringLiteral("must say what its value is");
    QTest::newRow("a stray brace") << QByteArray(R"({"name":"x","description":"d","parameters":{"org":"o"},"rules":[{"host":"a.com","git":"push","repo":"{org}/x}","why":"w"}]})")
                                   << QStringLiteral("is not a parameter");
}

void TestPresets::refusesBadPresets()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, why);
    const Result<Preset> p = parsePreset(json, QStringLiteral("x.json"));
    QVERIFY(!p.ok());
    QVERIFY2(p.error().message().contains(why), qPrintable(p.error().message()));
    QVERIFY(p.error().message().contains(QStringLiteral("x.json")));
}

void TestPresets::fileNameMustMatch()
{
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("npm.json")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"name":"yarn","description":"d","rules":[{"host":"a.com","why":"w"}]})");
    f.close();
    const Result<QList<Preset>> r = loadPresets(dir.path());
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message().contains(QStringLiteral("must agree")), qPrintable(r.error().message()));
}

QTEST_GUILESS_MAIN(TestPresets)
#include "test_presets.moc"
