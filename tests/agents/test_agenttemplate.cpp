// Agent templates as data: the shipped ones load and only name presets and images that
// exist; bad files are refused with a reason (a typo must not silently drop a setting).
#include "agenttemplate.h"
#include "imagerecipe.h"
#include "presets.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace airlock;
using namespace Qt::StringLiterals;

class TestAgentTemplate : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void theShippedTemplatesLoadAndNameWhatExists()
    {
        const Result<QList<AgentTemplate>> all = AgentTemplate::loadAll(QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/templates"));
        QVERIFY2(all.ok(), all.ok() ? "" : qPrintable(all.error().message()));
        QStringList names;
        for (const AgentTemplate &t : *all)
            names << t.name;
        QCOMPARE(names, QStringList({u"claude-code"_s, u"codex"_s, u"shell"_s}));
        const Result<QList<Preset>> presets = loadPresets(QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/egress-presets"));
        QVERIFY(presets.ok());
        QStringList presetNames;
        for (const Preset &p : *presets)
            presetNames << p.name;
        for (const AgentTemplate &t : *all) {
            for (const QString &p : t.presets + t.optInPresets)
                QVERIFY2(presetNames.contains(p), qPrintable(t.name + u" names a missing preset "_s + p));
            QVERIFY2(ImageRecipe::find(t.image).ok(), qPrintable(t.name + u" names an image no recipe builds"_s));
        }
        // The API hosts only: no sign-in or telemetry host is opened by a template.
        for (const Preset &p : *presets) {
            if (p.name != "anthropic"_L1 && p.name != "openai"_L1)
                continue;
            QCOMPARE(p.rules.size(), 1);
            QVERIFY(p.rules.first().host.startsWith(u"api."_s));
        }
        const AgentTemplate claude = all->at(0);
        QVERIFY(claude.hasSecret);
        QCOMPARE(claude.secret.header, u"x-api-key: {}"_s);
        QCOMPARE(claude.guestEnvironment().value(QLatin1String(AgentTemplate::kConsoleVariable)), u"claude"_s);
        QVERIFY(!all->at(2).guestEnvironment().contains(QLatin1String(AgentTemplate::kConsoleVariable)));
    }

    void badTemplatesAreRefusedWithAReason_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("why");
        const QByteArray base = R"("name":"x","description":"d","image":"agents")";
        QTest::newRow("not json") << QByteArray("{") << u"not valid JSON"_s;
        QTest::newRow("unknown key") << "{" + base + R"(,"consol":"claude"})" << u"unknown key 'consol'"_s;
        QTest::newRow("no description") << QByteArray(R"({"name":"x","image":"agents"})") << u"description"_s;
        QTest::newRow("bad image") << QByteArray(R"({"name":"x","description":"d","image":"Agents!"})") << u"image"_s;
        QTest::newRow("secret without {}") << "{" + base + R"(,"secret":{"name":"k","env":"K","hosts":["h"],"header":"x-api-key: K"}})"
                                           << u"{} in the header"_s;
        QTest::newRow("secret extra key") << "{" + base + R"(,"secret":{"name":"k","env":"K","hosts":["h"],"header":"a: {}","value":"v"}})"
                                          << u"\"secret\" must be"_s;
        QTest::newRow("bad env") << "{" + base + R"(,"env":{"A B":"1"}})" << u"\"env\""_s;
        QTest::newRow("bad preset") << "{" + base + R"(,"presets":["Not A Name"]})" << u"\"presets\""_s;
        QTest::newRow("zero memory") << "{" + base + R"(,"memory_mib":0})" << u"must be positive"_s;
        QTest::newRow("policy outside") << "{" + base + R"(,"policy":"../elsewhere.json"})" << u"inside the templates directory"_s;
        QTest::newRow("policy absolute") << "{" + base + R"(,"policy":"/etc/policy.json"})" << u"inside the templates directory"_s;
        QTest::newRow("policy not json") << "{" + base + R"(,"policy":"policies/x.yaml"})" << u"a .json policy file"_s;
        QTest::newRow("policy empty") << "{" + base + R"(,"policy":""})" << u"\"policy\" must name"_s;
    }
    void badTemplatesAreRefusedWithAReason()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, why);
        const Result<AgentTemplate> t = AgentTemplate::parse(json, u"x.json"_s);
        QVERIFY(!t.ok());
        QVERIFY2(t.error().message().contains(why), qPrintable(t.error().message()));
    }

    // A template's policy file is found beside it; one that is not there fails the load
    // (before any sandbox is made from it), naming where it was looked for.
    void aTemplatesPolicyFileIsFoundBesideIt()
    {
        QTemporaryDir dir;
        QFile t(dir.filePath(u"proj.json"_s));
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write(R"({"name":"proj","description":"d","image":"agents","policy":"policies/proj.json"})");
        t.close();
        Result<AgentTemplate> missing = AgentTemplate::find(u"proj"_s, dir.path());
        QVERIFY(!missing.ok());
        QVERIFY2(missing.error().message().contains(dir.filePath(u"policies/proj.json"_s)), qPrintable(missing.error().message()));
        QVERIFY(QDir(dir.path()).mkdir(u"policies"_s));
        QFile p(dir.filePath(u"policies/proj.json"_s));
        QVERIFY(p.open(QIODevice::WriteOnly));
        p.write(R"({"airlock_policy": 1, "rules": []})");
        p.close();
        Result<AgentTemplate> found = AgentTemplate::find(u"proj"_s, dir.path());
        QVERIFY2(found.ok(), found.ok() ? "" : qPrintable(found.error().message()));
        QCOMPARE(found->policy, u"policies/proj.json"_s);
        QCOMPARE(found->policyPath, QFileInfo(p).absoluteFilePath());
    }

    void findNamesTheTemplatesThereAre()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath(u"mine.json"_s));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name":"other","description":"d","image":"agents"})");
        f.close();
        Result<AgentTemplate> t = AgentTemplate::find(u"mine"_s, dir.path());
        QVERIFY(!t.ok()); // the name must agree with the file
        QVERIFY2(t.error().message().contains(u"must agree"_s), qPrintable(t.error().message()));
        QVERIFY(QFile::remove(f.fileName()));
        t = AgentTemplate::find(u"nope"_s, QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/templates"));
        QVERIFY(!t.ok());
        QVERIFY2(t.error().message().contains(u"claude-code, codex, shell"_s), qPrintable(t.error().message()));
    }
};

QTEST_GUILESS_MAIN(TestAgentTemplate)
#include "test_agenttemplate.moc"
