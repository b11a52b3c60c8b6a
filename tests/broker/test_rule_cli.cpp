// End to end: a real airlockd on a temporary data directory, driven by airlockctl exactly as a
// person or a script would: rule add / ls / rm, bad input, persistence over a restart.
#include "api/blockingclient.h"
#include "protocol/names.h"
#include "protocol/policies.h"
#include "store/store.h"
#include "daemonprocess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <unistd.h>

using namespace airlock;

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QString err;
    QJsonDocument json() const { return QJsonDocument::fromJson(out); }
};

} // namespace

class TestRuleCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase() { stopDaemon(); }
    void addListRemove();
    void sandboxScopedRules();
    void badInput_data();
    void badInput();
    void rulesSurviveRestart();
    void nonRootSeesOnlyOwnRules();
    void rawTcpRules();
    void requestRules();
    void syntheticAddressRuleRefused();
    void sessionRuleEndsWhenTheSandboxIsNotRunning();
    void policyFileCarriesRulesToAnotherSandbox();
    void badPolicyFilesChangeNothing_data();
    void badPolicyFilesChangeNothing();
    void anImportAppliesOnlyWhatWasShown();

private:
    void startDaemon();
    void stopDaemon();
    Run ctl(const QStringList &args);

    QTemporaryDir m_dir;
    QString m_socket;
    QProcess m_daemon;
};

void TestRuleCli::initTestCase()
{
    QVERIFY2(!qEnvironmentVariableIsEmpty("AIRLOCKD_BIN"), "run through ctest: AIRLOCKD_BIN is not set");
    QVERIFY(m_dir.isValid());
    m_socket = m_dir.filePath(QStringLiteral("airlockd.sock"));
    // A sandbox row as the engine writes it, so sandbox-scoped rules have something to name.
    {
        auto store = Store::open(m_dir.filePath(QStringLiteral("airlock.db")));
        QVERIFY2(store.ok(), qPrintable(store.error().message()));
        QVERIFY(store->write(QStringLiteral("INSERT INTO images(name, recipe, kernel, initrd, rootfs, created) "
                                            "VALUES ('tiny', 'tiny', 'k', 'i', 'r', '2026-01-01T00:00:00Z')")));
        QVERIFY(store->write(QStringLiteral("INSERT INTO sandboxes(name, owner_uid, image, cpus, memory_mib, disk_gib, mac, created) "
                                            "VALUES ('agent1', 0, 'tiny', 1, 256, 1, '52:54:00:aa:00:01', '2026-01-01T00:00:00Z')")));
        // Two more for policy files: one exports, the other imports.
        QVERIFY(store->write(QStringLiteral("INSERT INTO sandboxes(name, owner_uid, image, cpus, memory_mib, disk_gib, mac, created) VALUES "
                                            "('from1', 0, 'tiny', 1, 256, 1, '52:54:00:aa:00:02', '2026-01-01T00:00:00Z'), "
                                            "('into1', 0, 'tiny', 1, 256, 1, '52:54:00:aa:00:03', '2026-01-01T00:00:00Z')")));
    }
    startDaemon();
}

void TestRuleCli::startDaemon()
{
    m_daemon.setProgram(qEnvironmentVariable("AIRLOCKD_BIN"));
    m_daemon.setArguments({QStringLiteral("--foreground"), QStringLiteral("--socket"), m_socket, QStringLiteral("--data-dir"),
                           m_dir.path()});
    m_daemon.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_daemon.start();
    QVERIFY(m_daemon.waitForStarted());
    for (int i = 0; i < 100; ++i) {
        if (ctl({QStringLiteral("status")}).exitCode == 0)
            return;
        QTest::qWait(100);
    }
    QFAIL("airlockd did not start answering within 10 s");
}

void TestRuleCli::stopDaemon()
{
    if (m_daemon.state() == QProcess::NotRunning)
        return;
    m_daemon.terminate();
    if (!m_daemon.waitForFinished(10000)) {
        m_daemon.kill();
        m_daemon.waitForFinished();
    }
}

Run TestRuleCli::ctl(const QStringList &args)
{
    const DaemonProcess::CtlResult r = DaemonProcess::ctlAt(m_socket, args, {}, 30000);
    return {r.exitCode, r.out, QString::fromUtf8(r.err)};
}

void TestRuleCli::addListRemove()
{
    const Run add = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--global"),
                         QStringLiteral("--action"), QStringLiteral("allow"), QStringLiteral("--host"),
                         QStringLiteral("*.NPMJS.org."), QStringLiteral("--port"), QStringLiteral("443"),
                         QStringLiteral("--for"), QStringLiteral("2h")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.err));
    const QJsonObject rule = add.json().object();
    QCOMPARE(rule.value(QLatin1String("scope")).toString(), QStringLiteral("global"));
    QCOMPARE(rule.value(QLatin1String("action")).toString(), QStringLiteral("allow"));
    QCOMPARE(rule.value(QLatin1String("pattern")).toString(), QStringLiteral("*.npmjs.org"));
    QCOMPARE(rule.value(QLatin1String("port")).toInt(), 443);
    QVERIFY(rule.value(QLatin1String("sandbox")).isNull());
    const QDateTime expires = QDateTime::fromString(rule.value(QLatin1String("expires")).toString(), Qt::ISODate);
    QVERIFY(expires.isValid());
    QVERIFY(qAbs(QDateTime::currentDateTimeUtc().secsTo(expires) - 7200) < 60);
    const qint64 id = rule.value(QLatin1String("id")).toInteger();
    QVERIFY(id > 0);

    const Run ls = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")});
    QCOMPARE(ls.exitCode, 0);
    const QJsonArray all = ls.json().array();
    bool found = false;
    for (const QJsonValue &v : all)
        found = found || v.toObject() == rule;
    QVERIFY2(found, ls.out.constData());
    for (const QJsonValue &v : all)
        for (const char *field : {"id", "scope", "sandbox", "action", "pattern", "port", "expires"})
            QVERIFY2(v.toObject().contains(QLatin1String(field)), field);

    // Human output names the rule too.
    const Run text = ctl({QStringLiteral("rule"), QStringLiteral("ls")});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("*.npmjs.org"));

    QCOMPARE(ctl({QStringLiteral("rule"), QStringLiteral("rm"), QString::number(id)}).exitCode, 0);
    const Run after = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")});
    QVERIFY(!after.out.contains("npmjs"));
    const Run again = ctl({QStringLiteral("rule"), QStringLiteral("rm"), QString::number(id)});
    QCOMPARE(again.exitCode, 1);
    QCOMPARE(again.err.trimmed(), QStringLiteral("airlockctl: rule rm : no rule %1: list the rules with airlockctl rule ls").arg(id));
}

void TestRuleCli::sandboxScopedRules()
{
    const Run add = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--sandbox"),
                         QStringLiteral("agent1"), QStringLiteral("--action"), QStringLiteral("deny"), QStringLiteral("--host"),
                         QStringLiteral("10.0.0.0/8")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.err));
    QCOMPARE(add.json().object().value(QLatin1String("scope")).toString(), QStringLiteral("sandbox"));
    QCOMPARE(add.json().object().value(QLatin1String("sandbox")).toString(), QStringLiteral("agent1"));
    QVERIFY(add.json().object().value(QLatin1String("expires")).isNull());
    QVERIFY(ctl({QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--global"), QStringLiteral("--action"),
                 QStringLiteral("allow"), QStringLiteral("--host"), QStringLiteral("pypi.org")}).exitCode == 0);
    // `rule ls NAME`: that sandbox's rules plus the global ones.
    const Run ls = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("agent1")});
    QCOMPARE(ls.exitCode, 0);
    QStringList patterns;
    for (const QJsonValue &v : ls.json().array())
        patterns << v.toObject().value(QLatin1String("pattern")).toString();
    QVERIFY(patterns.contains(QStringLiteral("10.0.0.0/8")));
    QVERIFY(patterns.contains(QStringLiteral("pypi.org")));
    const Run missing = ctl({QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("ghost")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains(QStringLiteral("no sandbox named 'ghost'")), qPrintable(missing.err));
}

void TestRuleCli::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString g = QStringLiteral("--global"), a = QStringLiteral("--action"), h = QStringLiteral("--host");
    auto add = [](QStringList rest) { return QStringList{QStringLiteral("rule"), QStringLiteral("add")} + rest; };
    QTest::newRow("unknown sandbox") << add({QStringLiteral("--sandbox"), QStringLiteral("ghost"), a, QStringLiteral("allow"), h,
                                             QStringLiteral("a.com")})
                                     << 1 << QStringLiteral("airlockctl: rule add : no sandbox named 'ghost'");
    QTest::newRow("tld wildcard") << add({g, a, QStringLiteral("allow"), h, QStringLiteral("*.com")}) << 1
                                  << QStringLiteral("invalid host pattern '*.com'");
    QTest::newRow("idn") << add({g, a, QStringLiteral("allow"), h, QStringLiteral("bücher.de")}) << 1 << QStringLiteral("xn--");
    QTest::newRow("url") << add({g, a, QStringLiteral("allow"), h, QStringLiteral("https://a.com/")}) << 1
                         << QStringLiteral("not a URL");
    QTest::newRow("bad duration unit") << add({g, a, QStringLiteral("allow"), h, QStringLiteral("a.com"), QStringLiteral("--for"),
                                               QStringLiteral("10x")})
                                       << 2 << QStringLiteral("invalid duration '10x'");
    QTest::newRow("duration without unit") << add({g, a, QStringLiteral("allow"), h, QStringLiteral("a.com"), QStringLiteral("--for"),
                                                   QStringLiteral("10")})
                                           << 2 << QStringLiteral("has no unit");
    QTest::newRow("zero duration") << add({g, a, QStringLiteral("allow"), h, QStringLiteral("a.com"), QStringLiteral("--for"),
                                           QStringLiteral("0s")})
                                   << 2 << QStringLiteral("longer than zero");
    // A decision on a held request reads its lifetime the same way as a rule.
    QTest::newRow("decision duration without unit")
        << QStringList{QStringLiteral("egress"), QStringLiteral("allow"), QStringLiteral("1"), QStringLiteral("--scope"),
                       QStringLiteral("sandbox"), QStringLiteral("--for"), QStringLiteral("90")}
        << 2 << QStringLiteral("airlockctl: egress allow : --for: invalid duration '90': the number 90 has no unit");
    QTest::newRow("bad port") << add({g, a, QStringLiteral("allow"), h, QStringLiteral("a.com"), QStringLiteral("--port"),
                                      QStringLiteral("70000")})
                              << 2 << QStringLiteral("invalid port '70000'");
    QTest::newRow("bad action") << add({g, a, QStringLiteral("permit"), h, QStringLiteral("a.com")}) << 2
                                << QStringLiteral("--action must be allow or deny");
    QTest::newRow("no scope") << add({a, QStringLiteral("allow"), h, QStringLiteral("a.com")}) << 2
                              << QStringLiteral("exactly one of --sandbox NAME or --global");
    QTest::newRow("both scopes") << add({g, QStringLiteral("--sandbox"), QStringLiteral("agent1"), a, QStringLiteral("allow"), h,
                                         QStringLiteral("a.com")})
                                 << 2 << QStringLiteral("exactly one of");
    QTest::newRow("no host") << add({g, a, QStringLiteral("allow")}) << 2 << QStringLiteral("--host PATTERN is required");
    QTest::newRow("rm not a number") << QStringList{QStringLiteral("rule"), QStringLiteral("rm"), QStringLiteral("abc")} << 2
                                     << QStringLiteral("'abc' is not a rule id");
    QTest::newRow("rm no id") << QStringList{QStringLiteral("rule"), QStringLiteral("rm")} << 2 << QStringLiteral("usage");
}

void TestRuleCli::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const Run before = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")});
    const Run r = ctl(args);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY2(r.err.startsWith(QStringLiteral("airlockctl: ")), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
    // Nothing half-made: the rule list is unchanged.
    QCOMPARE(ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")}).out, before.out);
}

void TestRuleCli::rulesSurviveRestart()
{
    const Run add = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--sandbox"),
                         QStringLiteral("agent1"), QStringLiteral("--action"), QStringLiteral("allow"), QStringLiteral("--host"),
                         QStringLiteral("api.anthropic.com"), QStringLiteral("--port"), QStringLiteral("443")});
    QCOMPARE(add.exitCode, 0);
    const Run before = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")});
    stopDaemon();
    QCOMPARE(m_daemon.exitStatus(), QProcess::NormalExit);
    startDaemon();
    const Run after = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")});
    QCOMPARE(after.exitCode, 0);
    QCOMPARE(after.json(), before.json());
    QVERIFY(after.out.contains("api.anthropic.com"));
}

// A per-user daemon (running as `nobody`) serves two peers: its own user and root. Each rule
// records the peer uid that made it; the non-root peer sees and removes only its own rules and
// can name only its own sandboxes, while root sees everything.
void TestRuleCli::nonRootSeesOnlyOwnRules()
{
    QVERIFY2(::geteuid() == 0, "this test switches to uid 65534 (nobody) and must run as root, as CI does");
    const uint nobody = 65534;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    {
        auto store = Store::open(dir.filePath(QStringLiteral("airlock.db")));
        QVERIFY(store.ok());
        QVERIFY(store->write(QStringLiteral("INSERT INTO images(name, recipe, kernel, initrd, rootfs, created) "
                                            "VALUES ('tiny', 'tiny', 'k', 'i', 'r', 'now')")));
        QVERIFY(store->write(QStringLiteral("INSERT INTO sandboxes(name, owner_uid, image, cpus, memory_mib, disk_gib, mac, created) "
                                            "VALUES ('mine', 65534, 'tiny', 1, 256, 1, '52:54:00:bb:00:01', 'now'), "
                                            "('roots', 0, 'tiny', 1, 256, 1, '52:54:00:bb:00:02', 'now')")));
    }
    QProcess chown;
    chown.start(QStringLiteral("chown"), {QStringLiteral("-R"), QStringLiteral("%1:%1").arg(nobody), dir.path()});
    QVERIFY(chown.waitForFinished() && chown.exitCode() == 0);

    const QStringList asNobody{QStringLiteral("--reuid=%1").arg(nobody), QStringLiteral("--regid=%1").arg(nobody),
                               QStringLiteral("--clear-groups"), QStringLiteral("--")};
    const QString socket = dir.filePath(QStringLiteral("s.sock"));
    QProcess daemon;
    daemon.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    daemon.start(QStringLiteral("setpriv"), asNobody + QStringList{qEnvironmentVariable("AIRLOCKD_BIN"), QStringLiteral("--foreground"),
                                                                  QStringLiteral("--socket"), socket, QStringLiteral("--data-dir"),
                                                                  dir.path()});
    QVERIFY(daemon.waitForStarted());
    auto run = [&](bool root, const QStringList &args) {
        QProcess p;
        const QStringList ctlArgs = QStringList{qEnvironmentVariable("AIRLOCKCTL_BIN"), QStringLiteral("--socket"), socket} + args;
        if (root)
            p.start(ctlArgs.first(), ctlArgs.mid(1));
        else
            p.start(QStringLiteral("setpriv"), asNobody + ctlArgs);
        p.waitForFinished(30000);
        return Run{p.exitCode(), p.readAllStandardOutput(), QString::fromUtf8(p.readAllStandardError())};
    };
    bool up = false;
    for (int i = 0; i < 100 && !up; ++i) {
        up = run(false, {QStringLiteral("status")}).exitCode == 0;
        if (!up)
            QTest::qWait(100);
    }
    auto stop = qScopeGuard([&] {
        daemon.terminate();
        daemon.waitForFinished(10000);
    });
    QVERIFY2(up, "airlockd as nobody did not start");

    const QString action = QStringLiteral("--action"), host = QStringLiteral("--host");
    const Run own = run(false, {QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--sandbox"),
                                QStringLiteral("mine"), action, QStringLiteral("allow"), host, QStringLiteral("own.example")});
    QVERIFY2(own.exitCode == 0, qPrintable(own.err));
    QCOMPARE(own.json().object().value(QLatin1String("owner_uid")).toInteger(), qint64(nobody));
    const Run rootRule = run(true, {QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--sandbox"),
                                    QStringLiteral("roots"), action, QStringLiteral("deny"), host, QStringLiteral("root.example")});
    QVERIFY2(rootRule.exitCode == 0, qPrintable(rootRule.err));
    const qint64 rootId = rootRule.json().object().value(QLatin1String("id")).toInteger();

    // nobody cannot name root's sandbox, and is told why (the peer policy).
    const Run foreign = run(false, {QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--sandbox"), QStringLiteral("roots"),
                                    action, QStringLiteral("allow"), host, QStringLiteral("x.example")});
    QCOMPARE(foreign.exitCode, 1);
    QVERIFY2(foreign.err.contains(QStringLiteral("sandbox roots belongs to another user")), qPrintable(foreign.err));

    const Run mineLs = run(false, {QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")});
    QCOMPARE(mineLs.exitCode, 0);
    QCOMPARE(mineLs.json().array().size(), 1);
    QCOMPARE(mineLs.json().array().first().toObject().value(QLatin1String("pattern")).toString(), QStringLiteral("own.example"));
    const Run rootLs = run(true, {QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")});
    QCOMPARE(rootLs.json().array().size(), 2);

    const Run rm = run(false, {QStringLiteral("rule"), QStringLiteral("rm"), QString::number(rootId)});
    QCOMPARE(rm.exitCode, 1);
    QVERIFY2(rm.err.contains(QStringLiteral("rule %1 belongs to another user").arg(rootId)), qPrintable(rm.err));
    QCOMPARE(run(true, {QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")}).json().array().size(), 2);
}

void TestRuleCli::rawTcpRules()
{
    const QStringList base{QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--global"), QStringLiteral("--action"),
                           QStringLiteral("allow"), QStringLiteral("--host")};
    const Run add = ctl(QStringList{QStringLiteral("--json")} + base +
                        QStringList{QStringLiteral("db.example.com"), QStringLiteral("--port"), QStringLiteral("5432"), QStringLiteral("--raw-tcp")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.err));
    QCOMPARE(add.json().object().value(QLatin1String("raw_tcp")), QJsonValue(true));
    const qint64 id = add.json().object().value(QLatin1String("id")).toInteger();
    const Run ls = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")});
    bool listed = false;
    for (const QJsonValue &v : ls.json().array()) {
        const QJsonObject r = v.toObject();
        QVERIFY2(r.value(QLatin1String("raw_tcp")).isBool(), ls.out.constData());
        listed = listed || (r.value(QLatin1String("id")).toInteger() == id && r.value(QLatin1String("raw_tcp")).toBool());
    }
    QVERIFY2(listed, ls.out.constData());
    const Run text = ctl({QStringLiteral("rule"), QStringLiteral("ls")});
    QVERIFY2(text.out.contains("RAW-TCP"), text.out.constData());
    QVERIFY2(text.out.contains("yes"), text.out.constData());
    // Raw TCP to "everything", a wildcard, or any port of a host: refused, saying why.
    const Run noPort = ctl(base + QStringList{QStringLiteral("db.example.com"), QStringLiteral("--raw-tcp")});
    QCOMPARE(noPort.exitCode, 1);
    QVERIFY2(noPort.err.contains(QStringLiteral("give --port")), qPrintable(noPort.err));
    const Run wildcard = ctl(base + QStringList{QStringLiteral("*.example.com"), QStringLiteral("--port"), QStringLiteral("22"),
                                                QStringLiteral("--raw-tcp")});
    QCOMPARE(wildcard.exitCode, 1);
    QVERIFY2(wildcard.err.contains(QStringLiteral("covers many hosts")), qPrintable(wildcard.err));
    const Run any = ctl(base + QStringList{QStringLiteral("*"), QStringLiteral("--port"), QStringLiteral("22"), QStringLiteral("--raw-tcp")});
    QCOMPARE(any.exitCode, 1);
    QCOMPARE(ctl({QStringLiteral("rule"), QStringLiteral("rm"), QString::number(id)}).exitCode, 0);
}

// Rules of single requests from the command line: stored as they are matched, listed after
// their host, kept over a restart; what cannot be read is refused saying how to write it.
void TestRuleCli::requestRules()
{
    const QStringList base{QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--global"),
                           QStringLiteral("--action"), QStringLiteral("allow"), QStringLiteral("--host")};
    const Run push = ctl(base + QStringList{QStringLiteral("github.com"), QStringLiteral("--git"), QStringLiteral("push"),
                                            QStringLiteral("--repo"), QStringLiteral("myorg/*.git")});
    QVERIFY2(push.exitCode == 0, qPrintable(push.err));
    QCOMPARE(push.json().object().value(QLatin1String("git")).toString(), QStringLiteral("push"));
    QCOMPARE(push.json().object().value(QLatin1String("repo")).toString(), QStringLiteral("myorg/*")); // ".git" is not part of a repo
    const Run get = ctl(base + QStringList{QStringLiteral("api.github.com"), QStringLiteral("--method"), QStringLiteral("get"),
                                           QStringLiteral("--path"), QStringLiteral("/repos/my%6Frg/*")});
    QVERIFY2(get.exitCode == 0, qPrintable(get.err));
    QCOMPARE(get.json().object().value(QLatin1String("method")).toString(), QStringLiteral("GET"));
    QCOMPARE(get.json().object().value(QLatin1String("path")).toString(), QStringLiteral("/repos/myorg/*"));
    QVERIFY(!get.json().object().contains(QLatin1String("git"))); // absent parts stay off the wire
    stopDaemon();
    startDaemon();
    const Run text = ctl({QStringLiteral("rule"), QStringLiteral("ls")});
    QVERIFY2(text.out.contains("github.com git push myorg/*") && text.out.contains("api.github.com GET /repos/myorg/*"), text.out.constData());
    // What the broker could not read, or that says two things at once.
    const QList<std::pair<QStringList, QString>> bad{
        {{QStringLiteral("*"), QStringLiteral("--method"), QStringLiteral("GET")}, QStringLiteral("names a host")},
        {{QStringLiteral("10.0.0.0/8"), QStringLiteral("--git"), QStringLiteral("push")}, QStringLiteral("names a host")},
        {{QStringLiteral("github.com"), QStringLiteral("--git"), QStringLiteral("clone")}, QStringLiteral("write fetch")},
        {{QStringLiteral("github.com"), QStringLiteral("--git"), QStringLiteral("push"), QStringLiteral("--path"), QStringLiteral("/x")},
         QStringLiteral("no method or path")},
        {{QStringLiteral("github.com"), QStringLiteral("--repo"), QStringLiteral("myorg/*")}, QStringLiteral("add --git")},
        {{QStringLiteral("github.com"), QStringLiteral("--path"), QStringLiteral("/a/../b")}, QStringLiteral("dot segment")},
        {{QStringLiteral("github.com"), QStringLiteral("--path"), QStringLiteral("/search?q=*")}, QStringLiteral("no query")},
        {{QStringLiteral("github.com"), QStringLiteral("--port"), QStringLiteral("22"), QStringLiteral("--raw-tcp"), QStringLiteral("--method"),
          QStringLiteral("GET")}, QStringLiteral("neither raw TCP nor once")},
    };
    for (const auto &[args, says] : bad) {
        const Run r = ctl(base + args);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(says), qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + r.err));
    }
    for (const Run &added : {push, get})
        QCOMPARE(ctl({QStringLiteral("rule"), QStringLiteral("rm"), QString::number(added.json().object().value(QLatin1String("id")).toInteger())}).exitCode, 0);
}

void TestRuleCli::syntheticAddressRuleRefused()
{
    for (const QString &pattern : {QStringLiteral("198.18.0.9"), QStringLiteral("198.18.0.0/16")}) {
        const Run r = ctl({QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--global"), QStringLiteral("--action"),
                           QStringLiteral("allow"), QStringLiteral("--host"), pattern});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("synthetic address")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("write a rule for the name")), qPrintable(r.err));
    }
    QVERIFY(!ctl({QStringLiteral("rule"), QStringLiteral("ls")}).out.contains("198.18."));
}

// `--for session`: a rule of one sandbox that lasts until it stops. The sandbox here never runs,
// so a daemon starting again finds its session over and the rule gone; a lasting rule stays.
void TestRuleCli::sessionRuleEndsWhenTheSandboxIsNotRunning()
{
    const QStringList add{QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--action"),
                          QStringLiteral("allow"), QStringLiteral("--port"), QStringLiteral("443")};
    const Run session = ctl(add + QStringList{QStringLiteral("--sandbox"), QStringLiteral("agent1"), QStringLiteral("--host"),
                                              QStringLiteral("session.example.org"), QStringLiteral("--for"), QStringLiteral("session")});
    QVERIFY2(session.exitCode == 0, qPrintable(session.err));
    QCOMPARE(session.json().object().value(QLatin1String("until_stop")), QJsonValue(true));
    const Run lasting = ctl(add + QStringList{QStringLiteral("--sandbox"), QStringLiteral("agent1"), QStringLiteral("--host"),
                                              QStringLiteral("lasting.example.org")});
    QVERIFY2(lasting.exitCode == 0, qPrintable(lasting.err));
    QCOMPARE(lasting.json().object().value(QLatin1String("until_stop")), QJsonValue(false));
    QVERIFY(session.json().object().value(QLatin1String("expires")).isNull());
    const Run text = ctl({QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("agent1")});
    QVERIFY2(text.out.contains("session.example.org") && text.out.contains("on stop"), text.out.constData());

    const Run global = ctl(add + QStringList{QStringLiteral("--global"), QStringLiteral("--host"), QStringLiteral("x.example.org"),
                                             QStringLiteral("--for"), QStringLiteral("session")});
    QCOMPARE(global.exitCode, 1);
    QVERIFY2(global.err.contains(QStringLiteral("belongs to one sandbox")), qPrintable(global.err));

    stopDaemon();
    startDaemon();
    const Run after = ctl({QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("agent1")});
    QCOMPARE(after.exitCode, 0);
    QVERIFY2(!after.out.contains("session.example.org"), after.out.constData());
    QVERIFY2(after.out.contains("lasting.example.org"), after.out.constData());
}

namespace {

QStringList rulesIn(const QJsonDocument &ls, const QString &sandbox)
{
    QStringList out;
    for (const QJsonValue &v : ls.array()) {
        const QJsonObject r = v.toObject();
        if (r.value(QLatin1String("sandbox")).toString() != sandbox)
            continue;
        out << QStringLiteral("%1 %2:%3%4").arg(r.value(QLatin1String("action")).toString(), r.value(QLatin1String("pattern")).toString())
                   .arg(r.value(QLatin1String("port")).toInt())
                   .arg(r.value(QLatin1String("raw_tcp")).toBool() ? QStringLiteral(" raw") : QString());
    }
    out.sort();
    return out;
}

} // namespace

// export -> import: the lasting rules of one sandbox become another's, each saying which file
// it came from; the file is shown as a difference first and applied only when confirmed.
void TestRuleCli::policyFileCarriesRulesToAnotherSandbox()
{
    const QStringList add{QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--sandbox"), QStringLiteral("from1"),
                          QStringLiteral("--action")};
    for (const QStringList &rule : {QStringList{QStringLiteral("allow"), QStringLiteral("--host"), QStringLiteral("api.example.org"),
                                                QStringLiteral("--port"), QStringLiteral("443")},
                                    QStringList{QStringLiteral("allow"), QStringLiteral("--host"), QStringLiteral("db.example.org"),
                                                QStringLiteral("--port"), QStringLiteral("5432"), QStringLiteral("--raw-tcp")},
                                    QStringList{QStringLiteral("deny"), QStringLiteral("--host"), QStringLiteral("*.ads.example")},
                                    QStringList{QStringLiteral("allow"), QStringLiteral("--host"), QStringLiteral("timed.example.org"),
                                                QStringLiteral("--for"), QStringLiteral("1h")}}) {
        const Run r = ctl(add + rule);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }
    const QString file = m_dir.filePath(QStringLiteral("from1.json"));
    const Run exported = ctl({QStringLiteral("policy"), QStringLiteral("export"), QStringLiteral("from1"), QStringLiteral("--output"), file});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
    QVERIFY2(exported.out.contains("wrote 3 rules"), exported.out.constData());
    QVERIFY2(exported.err.contains(QStringLiteral("left out 1")), qPrintable(exported.err)); // the timed rule is a moment, not policy
    QFile written(file);
    QVERIFY(written.open(QIODevice::ReadOnly));
    const QByteArray text = written.readAll();
    QVERIFY2(text.contains("\"from\": \"rule.add (uid 0,"), text.constData());
    QVERIFY2(!text.contains("timed.example.org"), text.constData());

    // The same rules as YAML (the file's name asks for it, or --format), which imports alike.
    const QString yamlFile = m_dir.filePath(QStringLiteral("from1.yml"));
    const Run asYaml = ctl({QStringLiteral("policy"), QStringLiteral("export"), QStringLiteral("from1"), QStringLiteral("--output"), yamlFile});
    QVERIFY2(asYaml.exitCode == 0, qPrintable(asYaml.err));
    QFile yamlWritten(yamlFile);
    QVERIFY(yamlWritten.open(QIODevice::ReadOnly));
    const QByteArray yaml = yamlWritten.readAll();
    QVERIFY2(yaml.contains("\nrules:\n  - action: ") && yaml.contains("    host: \"db.example.org\"\n    port: 5432\n    raw_tcp: true\n"),
             yaml.constData());
    const Run toStdout = ctl({QStringLiteral("policy"), QStringLiteral("export"), QStringLiteral("from1"), QStringLiteral("--format"),
                              QStringLiteral("yaml")});
    QCOMPARE(toStdout.out, yaml);
    const Run badFormat = ctl({QStringLiteral("policy"), QStringLiteral("export"), QStringLiteral("from1"), QStringLiteral("--format"),
                               QStringLiteral("toml")});
    QCOMPARE(badFormat.exitCode, 2);
    QVERIFY2(badFormat.err.contains(QStringLiteral("\"--format\" is \"toml\"; it must be one of json, yaml")), qPrintable(badFormat.err));
    for (const QString &policy : {file, yamlFile}) {
        const Run dry = ctl({QStringLiteral("policy"), QStringLiteral("import"), policy, QStringLiteral("--sandbox"), QStringLiteral("into1"),
                             QStringLiteral("--dry-run")});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QVERIFY2(dry.out.contains("+ allow db.example.org:5432 (raw TCP)") && dry.out.contains("3 to add, 0 to remove"), dry.out.constData());
    }
    const auto ls = [this] { return ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("into1")}).json(); };
    QVERIFY(rulesIn(ls(), QStringLiteral("into1")).isEmpty());
    const Run unasked = ctl({QStringLiteral("policy"), QStringLiteral("import"), file, QStringLiteral("--sandbox"), QStringLiteral("into1")});
    QCOMPARE(unasked.exitCode, 1);
    QVERIFY2(unasked.err.contains(QStringLiteral("give --yes")), qPrintable(unasked.err));
    QVERIFY(rulesIn(ls(), QStringLiteral("into1")).isEmpty());
    const Run applied = ctl({QStringLiteral("policy"), QStringLiteral("import"), file, QStringLiteral("--sandbox"), QStringLiteral("into1"),
                             QStringLiteral("--yes")});
    QVERIFY2(applied.exitCode == 0, qPrintable(applied.err));
    QVERIFY2(applied.out.contains("applied: 3 added"), applied.out.constData());
    const QStringList expected{QStringLiteral("allow api.example.org:443"), QStringLiteral("allow db.example.org:5432 raw"),
                               QStringLiteral("deny *.ads.example:0")};
    QCOMPARE(rulesIn(ls(), QStringLiteral("into1")), expected);
    for (const QJsonValue &v : ls().array())
        if (v.toObject().value(QLatin1String("sandbox")).toString() == QLatin1String("into1"))
            QVERIFY2(v.toObject().value(QLatin1String("origin")).toString().startsWith(QStringLiteral("policy file ") + file),
                     qPrintable(v.toObject().value(QLatin1String("origin")).toString()));

    const Run table = ctl({QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("into1")});
    QVERIFY2(table.out.contains("ORIGIN") && table.out.contains("policy file"), table.out.constData());

    // A file that says the opposite of a rule already there: refused, nothing changes; with
    // --replace the file's rules become the only lasting ones.
    const QString opposite = m_dir.filePath(QStringLiteral("opposite.json"));
    QFile o(opposite);
    QVERIFY(o.open(QIODevice::WriteOnly));
    o.write(R"({"airlock_policy": 1, "rules": [{"action": "deny", "host": "api.example.org", "port": 443, "why": "no more"}]})");
    o.close();
    const Run conflict = ctl({QStringLiteral("policy"), QStringLiteral("import"), opposite, QStringLiteral("--sandbox"), QStringLiteral("into1"),
                              QStringLiteral("--yes")});
    QCOMPARE(conflict.exitCode, 1);
    QVERIFY2(conflict.out.contains("! allow api.example.org:443"), conflict.out.constData());
    QVERIFY2(conflict.err.contains(QStringLiteral("--replace")), qPrintable(conflict.err));
    QCOMPARE(rulesIn(ls(), QStringLiteral("into1")), expected);
    const Run replaced = ctl({QStringLiteral("policy"), QStringLiteral("import"), opposite, QStringLiteral("--sandbox"), QStringLiteral("into1"),
                              QStringLiteral("--replace"), QStringLiteral("--yes")});
    QVERIFY2(replaced.exitCode == 0, qPrintable(replaced.err));
    QVERIFY2(replaced.out.contains("applied: 1 added, 3 removed"), replaced.out.constData());
    QCOMPARE(rulesIn(ls(), QStringLiteral("into1")), QStringList{QStringLiteral("deny api.example.org:443")});
    // The exporting sandbox kept its own.
    QCOMPARE(rulesIn(ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("from1")}).json(),
                     QStringLiteral("from1")).size(), 4);
}

void TestRuleCli::badPolicyFilesChangeNothing_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("says");
    QTest::newRow("not JSON") << QByteArray("{allow everything}") << QStringLiteral("not valid JSON");
    QTest::newRow("a line of text") << QByteArray("allow everything") << QStringLiteral("must be an object");
    QTest::newRow("a YAML alias") << QByteArray("airlock_policy: 1\nrules:\n  - &r {action: allow, host: a.example}\n  - *r\n")
                                  << QStringLiteral("an anchor (&name) or tag (!tag) at line 3");
    QTest::newRow("no version") << QByteArray(R"({"rules": [{"action": "allow", "host": "a.example"}]})")
                                << QStringLiteral("is this an Airlock policy file?");
    QTest::newRow("a typo") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.example", "prot": 22}]})")
                            << QStringLiteral("unknown key 'prot'");
    QTest::newRow("a bad host") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "-bad-.example/x"}]})")
                                << QStringLiteral("rules[0]");
    // A later rule bad: the good ones before it are not applied either.
    QTest::newRow("a synthetic address after a good rule")
        << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "good.example"}, {"action": "allow", "host": "198.18.0.5"}]})")
        << QStringLiteral("synthetic address");
    QTest::newRow("twice the same") << QByteArray(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "a.example"},
                                                    {"action": "allow", "host": "a.example"}]})")
                                    << QStringLiteral("already in the file");
    QTest::newRow("not UTF-8") << QByteArray("{\"airlock_policy\": 1, \"description\": \"\xff\", \"rules\": []}") << QStringLiteral("not UTF-8");
    QTest::newRow("too big") << QByteArray(600 * 1024, ' ') << QStringLiteral("larger than 512 KiB");
}

void TestRuleCli::badPolicyFilesChangeNothing()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, says);
    const QString file = m_dir.filePath(QStringLiteral("bad.json"));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
    f.close();
    const QByteArray before = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")}).out;
    for (const QStringList &scope : {QStringList{QStringLiteral("--sandbox"), QStringLiteral("agent1")}, QStringList{QStringLiteral("--global")}}) {
        const Run r = ctl(QStringList{QStringLiteral("policy"), QStringLiteral("import"), file} + scope + QStringList{QStringLiteral("--yes")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(file), qPrintable(r.err));
        QVERIFY2(r.err.contains(says), qPrintable(r.err));
    }
    QCOMPARE(ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")}).out, before);
    // A sandbox that does not exist, or no scope at all: said so.
    const Run missing = ctl({QStringLiteral("policy"), QStringLiteral("export"), QStringLiteral("nosuch")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains(QStringLiteral("no sandbox named 'nosuch'")), qPrintable(missing.err));
    const Run noScope = ctl({QStringLiteral("policy"), QStringLiteral("import"), file});
    QCOMPARE(noScope.exitCode, 2);
}

// The difference a person saw is what is applied: a rule added between the dry run and the
// apply (it would be removed by --replace) makes the apply refuse, changing nothing.
void TestRuleCli::anImportAppliesOnlyWhatWasShown()
{
    BlockingClient client;
    QVERIFY(client.connectTo(m_socket));
    proto::PolicyImportParams params;
    params.sandbox = QStringLiteral("from1");
    params.policy = QStringLiteral(R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "kept.example.org", "port": 443}]})");
    params.source = QStringLiteral("race.json");
    params.replace = true;
    params.dryRun = true;
    const Result<QJsonValue> dry = client.call(proto::method::PolicyImport, params.toJson());
    QVERIFY2(dry, qPrintable(dry ? QString() : dry.error().message()));
    const Result<proto::PolicyImportResult> shown = proto::PolicyImportResult::fromJson(dry->toObject());
    QVERIFY(shown && !shown->plan.isEmpty());
    const Run late = ctl({QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--sandbox"), QStringLiteral("from1"), QStringLiteral("--action"),
                          QStringLiteral("allow"), QStringLiteral("--host"), QStringLiteral("late.example.org")});
    QCOMPARE(late.exitCode, 0);
    const QByteArray before = ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("from1")}).out;
    params.dryRun = false;
    params.expectPlan = shown->plan;
    const Result<QJsonValue> stale = client.call(proto::method::PolicyImport, params.toJson());
    QVERIFY(!stale);
    QVERIFY2(stale.error().message().contains(QLatin1String("changed since the difference was shown")), qPrintable(stale.error().message()));
    QCOMPARE(ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("from1")}).out, before);
    // Shown again, it applies.
    params.dryRun = true;
    params.expectPlan.clear();
    const Result<QJsonValue> again = client.call(proto::method::PolicyImport, params.toJson());
    QVERIFY(again);
    params.dryRun = false;
    params.expectPlan = proto::PolicyImportResult::fromJson(again->toObject())->plan;
    QVERIFY(params.expectPlan != shown->plan);
    const Result<QJsonValue> applied = client.call(proto::method::PolicyImport, params.toJson());
    QVERIFY2(applied, qPrintable(applied ? QString() : applied.error().message()));
    QCOMPARE(rulesIn(ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("from1")}).json(),
                     QStringLiteral("from1")),
             (QStringList{QStringLiteral("allow kept.example.org:443"), QStringLiteral("allow timed.example.org:0")})); // a timed rule is not policy
}

QTEST_GUILESS_MAIN(TestRuleCli)
#include "test_rule_cli.moc"
