// `airlockctl run` as a person uses it, on a terminal: a template on the tiny image, a host
// repository copied in, a commit made from the console, Ctrl-] to detach, the patches taken at
// the prompt, and with --rm nothing of the sandbox left in airlockd, libvirt or the store.
// airlockctl runs on a real pseudo-terminal (forkpty), since the console and the prompt need one.
#include "daemonharness.h"
#include "gitrepo.h"
#include "libvirtview.h"
#include "ptysession.h"
#include "sshdprocess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <tuple>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <memory>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

using airlock::test::PtySession;

class TestRun : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void runRefusesBadRequestsBeforeMakingAnything();
    void runOnAFolderTakesThePatchesAndLeavesNothing();
    void ephemeralKeepsNoSnapshotAndIsGoneAfterStop();
    void aTemplatesPolicyComesWithEachSandbox();
    void scriptedRunIntoABranchThenACrashLeavesNothing();
    void cleanupTestCase();

private:
    bool absent(const QString &name) const;
    QString templatePolicy() const { return m_templates + QStringLiteral("/policies/tinypolicy.json"); }
    static bool writeFile(const QString &path, const QByteArray &text)
    {
        QFile f(path);
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
    }
    // "ACTION PATTERN" of each rule of `sandbox`, sorted; every one must name `origin`.
    QStringList sandboxRules(const QString &sandbox, const QString &origin);
    static constexpr const char kTemplatePolicy[] = R"({"airlock_policy": 1, "rules": [
        {"action": "allow", "host": "api.example.org", "port": 443, "why": "the project's API"},
        {"action": "deny", "host": "*.ads.example"}]})";
    bool startDaemon(QString *error);
    bool guarded(const QString &guestIp) const;

    QString m_templates;
    QString m_table; // airlockd's nftables table

    std::unique_ptr<DaemonHarness> m_daemon;
    QTemporaryDir m_tmp;
    QString m_repo;
};

void TestRun::initTestCase()
{
    // A template like `shell`, on the tiny image the engine tests build.
    m_templates = m_tmp.filePath(QStringLiteral("templates"));
    QVERIFY(QDir().mkpath(m_templates));
    QFile t(m_templates + QStringLiteral("/tinyshell.json"));
    QVERIFY(t.open(QIODevice::WriteOnly));
    t.write(R"({"name": "tinyshell", "description": "a shell on the tiny image", "image": "tiny",
               "cpus": 1, "memory_mib": 256, "disk_gib": 2, "console": ""})");
    t.close();
    // And one that brings its project's policy file.
    QVERIFY(QDir().mkpath(m_templates + QStringLiteral("/policies")));
    QFile withPolicy(m_templates + QStringLiteral("/tinypolicy.json"));
    QVERIFY(withPolicy.open(QIODevice::WriteOnly));
    withPolicy.write(R"({"name": "tinypolicy", "description": "the tiny shell with its project's policy", "image": "tiny",
                        "memory_mib": 256, "policy": "policies/tinypolicy.json"})");
    withPolicy.close();
    QVERIFY(writeFile(templatePolicy(), QByteArray(kTemplatePolicy)));
    QString error;
    QVERIFY2(startDaemon(&error), qPrintable(error));
    QVERIFY2(m_daemon->ctl({QStringLiteral("image"), QStringLiteral("ls")}).out.contains("\"tiny\""),
             "the tiny image is missing: test_engine_image builds it (ctest fixture)");
    m_table = m_daemon->ctl({QStringLiteral("status")}).json().toObject().value(QLatin1String("egress")).toObject()
                  .value(QLatin1String("nft_table")).toString();
    QVERIFY2(m_table.startsWith(QLatin1String("airlock_")), qPrintable(m_table));
    m_repo = m_tmp.filePath(QStringLiteral("project"));
    QVERIFY(QDir().mkpath(m_repo));
    QVERIFY2(makeSampleRepository(m_repo, &error), qPrintable(error));
}

bool TestRun::startDaemon(QString *error)
{
    m_daemon = std::make_unique<DaemonHarness>(); // a fresh socket directory after a crash
    return m_daemon->start(DaemonHarness::sharedDataDir(), error, {}, {QStringLiteral("AIRLOCK_TEMPLATES_DIR=") + m_templates});
}

// airlockd's table holds rules for the sandbox's gateway (the host side of its /30, the
// address below the guest's) exactly while the guest may send.
bool TestRun::guarded(const QString &guestIp) const
{
    const QString gateway = QHostAddress(QHostAddress(guestIp).toIPv4Address() - 1).toString();
    QProcess nft;
    nft.start(QStringLiteral("nft"), {QStringLiteral("list"), QStringLiteral("table"), QStringLiteral("inet"), m_table});
    nft.waitForFinished(10000);
    const QString table = QString::fromUtf8(nft.readAllStandardOutput());
    return table.contains(gateway + QLatin1Char(' ')) || table.contains(gateway + QLatin1Char('\n'));
}

bool TestRun::absent(const QString &name) const
{
    const CtlResult ls = m_daemon->ctl({QStringLiteral("ls")});
    for (const QJsonValue &v : ls.json().toArray())
        if (v.toObject().value(QLatin1String("name")).toString() == name)
            return false;
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + name);
    const QString db = DaemonHarness::sharedDataDir() + QStringLiteral("/airlock.db");
    return ls.exitCode == 0 && view.error.isEmpty() && view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty() &&
           storeRows(db, QStringLiteral("sandboxes"), QStringLiteral("name"), name) == 0;
}

void TestRun::runRefusesBadRequestsBeforeMakingAnything()
{
    const QString name = uniqueName(QStringLiteral("runbad"));
    const QString taken = m_tmp.filePath(QStringLiteral("taken.bundle"));
    QFile f(taken);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write("mine\n") == 5);
    f.close();
    const QList<std::tuple<QStringList, int, QByteArray>> cases = {
        {{QStringLiteral("--changes"), QStringLiteral("zip:x")}, 2, "--changes is patches:DIR, bundle:FILE, branch[:NAME] or none"},
        {{QStringLiteral("--rm")}, 2, "without a terminal, say what --rm should keep"},
        {{QStringLiteral("--changes"), QStringLiteral("branch")}, 2, "needs the host repository"},
        {{QStringLiteral("--workspace"), m_repo, QStringLiteral("--changes"), QStringLiteral("branch:main")}, 2,
         "the branch main already exists"},
        {{QStringLiteral("--workspace"), m_repo, QStringLiteral("--changes"), QStringLiteral("branch:bad..name")}, 2,
         "is not a valid branch name"},
        {{QStringLiteral("--changes"), QStringLiteral("bundle:") + taken}, 2, "already exists; name a new file"},
        {{QStringLiteral("--workspace"), m_tmp.filePath(QStringLiteral("no-such-dir"))}, 1, "no such directory"},
    };
    for (const auto &[extra, code, message] : cases) {
        const CtlResult r = m_daemon->ctl(QStringList{QStringLiteral("run"), QStringLiteral("tinyshell"), QStringLiteral("--name"), name} + extra);
        QVERIFY2(r.exitCode == code && r.err.startsWith("airlockctl: run : ") && r.err.contains(message), r.err.constData());
    }
    const CtlResult unknown = m_daemon->ctl({QStringLiteral("run"), QStringLiteral("no-such-template"), QStringLiteral("--name"), name,
                                             QStringLiteral("--changes"), QStringLiteral("none")});
    QVERIFY2(unknown.exitCode == 1 && unknown.err.contains("no template \"no-such-template\"; there are: tinypolicy, tinyshell"),
             unknown.err.constData());
    QVERIFY2(absent(name), "a refused run left a sandbox");
    QCOMPARE(runGit(m_repo, {QStringLiteral("for-each-ref"), QStringLiteral("refs/heads/bad..name")}).text(), QString());
}

void TestRun::runOnAFolderTakesThePatchesAndLeavesNothing()
{
    const QString refsBefore = runGit(m_repo, {QStringLiteral("for-each-ref")}).text();
    const QString name = uniqueName(QStringLiteral("run"));
    const QString patches = m_tmp.filePath(QStringLiteral("patches"));
    PtySession run;
    QVERIFY(run.start(qEnvironmentVariable("AIRLOCKCTL_BIN"), {QStringLiteral("--socket"), m_daemon->socketPath(), QStringLiteral("run"),
                                                               QStringLiteral("tinyshell"), QStringLiteral("--workspace"), m_repo,
                                                               QStringLiteral("--rm"), QStringLiteral("--name"), name}));
    QVERIFY2(run.waitFor("Ctrl-] detaches", 300000), run.transcript().constData());
    // The agent's part, typed on the console; the shell's echo of the line has no "42", its output has.
    run.type("cd /workspace && echo 'from the console' >> src/hello.txt && git commit -qam 'agent: from the console' && "
             "echo RUN-$((6*7))\r");
    QVERIFY2(run.waitFor("RUN-42", 120000), run.transcript().constData());
    run.type("\x1d"); // Ctrl-]
    QVERIFY2(run.waitFor("Choice [b/p/f/n]: ", 60000), run.transcript().constData());
    run.type("p\r");
    QVERIFY2(run.waitFor("Directory for the patches", 10000), run.transcript().constData());
    run.type(patches.toLocal8Bit() + "\r");
    QCOMPARE(run.finish(240000), 0);
    QVERIFY2(run.transcript().contains(QByteArray("removed " + name.toUtf8())), run.transcript().constData());

    // The patch applies to the original and says what the agent did.
    const QStringList files = QDir(patches).entryList(QDir::Files);
    QCOMPARE(files, QStringList{QStringLiteral("0001-agent-from-the-console.patch")});
    const QString apply = m_tmp.filePath(QStringLiteral("apply"));
    QCOMPARE(runGit(m_tmp.path(), {QStringLiteral("clone"), QStringLiteral("-q"), m_repo, apply}).exitCode, 0);
    const GitResult am = runGit(apply, {QStringLiteral("am"), QStringLiteral("-q"), QDir(patches).filePath(files.first())});
    QVERIFY2(am.exitCode == 0, am.err.constData());
    QFile hello(apply + QStringLiteral("/src/hello.txt"));
    QVERIFY(hello.open(QIODevice::ReadOnly));
    QCOMPARE(hello.readAll(), QByteArray("hello from the host\nfrom the console\n"));

    // --rm: nothing of the sandbox is left; the host repository was never written.
    QVERIFY2(absent(name), "the sandbox is still there after run --rm");
    QCOMPARE(runGit(m_repo, {QStringLiteral("for-each-ref")}).text(), refsBefore);
    QCOMPARE(runGit(m_repo, {QStringLiteral("status"), QStringLiteral("--porcelain")}).text(), QString());
}

void TestRun::ephemeralKeepsNoSnapshotAndIsGoneAfterStop()
{
    const QString name = uniqueName(QStringLiteral("eph"));
    const CtlResult created = m_daemon->ctl({QStringLiteral("create"), name, QStringLiteral("--memory"), QStringLiteral("256"),
                                            QStringLiteral("--ephemeral"), QStringLiteral("--start")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
    QVERIFY(guarded(created.json().toObject().value(QLatin1String("ip")).toString()));
    const CtlResult snapshot = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("create"), name});
    QCOMPARE(snapshot.exitCode, 1);
    QVERIFY2(snapshot.err.contains("is ephemeral") && snapshot.err.contains("without --ephemeral"), snapshot.err.constData());
    const CtlResult stopped = m_daemon->ctl({QStringLiteral("stop"), name});
    QVERIFY2(stopped.exitCode == 0, stopped.err.constData());
    QCOMPARE(stopped.json().toObject().value(QLatin1String("state")).toString(), QStringLiteral("removed"));
    QVERIFY2(absent(name), "an ephemeral sandbox is still there after stop");
    QVERIFY(!guarded(created.json().toObject().value(QLatin1String("ip")).toString()));
}

void TestRun::scriptedRunIntoABranchThenACrashLeavesNothing()
{
    // A script drives run without a terminal: commands on stdin, the commits into a new branch.
    // It runs on a remote host (a real sshd on loopback stands for the other machine): the
    // repository is here, the sandbox there, and console and changes go through ssh.
    SshdProcess sshd;
    QVERIFY2(sshd.start(), qPrintable(sshd.error()));
    QTemporaryDir config;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
    const QString ctl = qEnvironmentVariable("AIRLOCKCTL_BIN");
    QProcess add;
    add.setProcessEnvironment(env);
    add.start(ctl, QStringList{QStringLiteral("remote"), QStringLiteral("add"), QStringLiteral("box"), QStringLiteral("--")} +
                       sshd.sshCommand({ctl, QStringLiteral("--socket"), m_daemon->socketPath(), QStringLiteral("proxy")}));
    QVERIFY(add.waitForFinished(10000) && add.exitCode() == 0);

    const QString name = uniqueName(QStringLiteral("ephrun"));
    const QString branch = QStringLiteral("airlock/") + name;
    QProcess run;
    run.setProcessEnvironment(env);
    run.start(ctl, {QStringLiteral("--remote"), QStringLiteral("box"), QStringLiteral("run"),
                    QStringLiteral("tinyshell"), QStringLiteral("--workspace"), m_repo,
                    QStringLiteral("--ephemeral"), QStringLiteral("--name"), name,
                    QStringLiteral("--changes"), QStringLiteral("branch")});
    QVERIFY(run.waitForStarted(5000));
    run.write("cd /workspace && echo scripted > scripted.txt && git add scripted.txt && git commit -qm 'agent: scripted' && "
              "echo RUN-$((6*7))\n");
    QByteArray out;
    QElapsedTimer t;
    t.start();
    while (!out.contains("RUN-42") && t.elapsed() < 400000 && run.state() == QProcess::Running) {
        run.waitForReadyRead(1000);
        out += run.readAllStandardOutput();
    }
    QVERIFY2(out.contains("RUN-42"), QByteArray(out + run.readAllStandardError()).constData());
    run.closeWriteChannel(); // the end of stdin detaches
    QVERIFY(run.waitForFinished(240000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
    QCOMPARE(runGit(m_repo, {QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%s"), branch}).text(),
             QStringLiteral("agent: scripted"));
    QCOMPARE(runGit(m_repo, {QStringLiteral("symbolic-ref"), QStringLiteral("--short"), QStringLiteral("HEAD")}).text(), QStringLiteral("main"));
    QVERIFY2(sshd.log().contains(QStringLiteral("Accepted publickey")), qPrintable(sshd.log()));

    // Without --rm the ephemeral sandbox runs on; airlockd dies hard under it.
    const QString ip = [&] {
        for (const QJsonValue &v : m_daemon->ctl({QStringLiteral("ls")}).json().toArray())
            if (v.toObject().value(QLatin1String("name")).toString() == name)
                return v.toObject().value(QLatin1String("ip")).toString();
        return QString();
    }();
    QVERIFY2(!ip.isEmpty(), "the ephemeral sandbox did not keep running after run ended");
    m_daemon->killHard();
    QVERIFY(!m_daemon->running());
    QVERIFY2(guarded(ip), "the guest's nftables rules went with airlockd: nothing left to clean");
    QVERIFY2(!libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + name).domains.isEmpty(),
             "the crash took the domain along: nothing left to clean");
    QString error;
    QVERIFY2(startDaemon(&error), qPrintable(error));
    QVERIFY2(absent(name), "an ephemeral sandbox is still there after a crash of airlockd and a restart");
    QVERIFY(!guarded(ip));
}

QStringList TestRun::sandboxRules(const QString &sandbox, const QString &origin)
{
    QStringList got;
    for (const QJsonValue &v : m_daemon->ctl({QStringLiteral("rule"), QStringLiteral("ls"), sandbox}).json().toArray()) {
        const QJsonObject o = v.toObject();
        if (o.value(QLatin1String("sandbox")).toString() != sandbox)
            continue;
        got << o.value(QLatin1String("action")).toString() + QLatin1Char(' ') + o.value(QLatin1String("pattern")).toString();
        if (!o.value(QLatin1String("origin")).toString().contains(origin))
            got << QStringLiteral("(origin: %1)").arg(o.value(QLatin1String("origin")).toString());
    }
    got.sort();
    return got;
}

// A template that names a policy file gives each sandbox made from it the file's rules;
// `--policy FILE` replaces it; a broken file makes no sandbox.
void TestRun::aTemplatesPolicyComesWithEachSandbox()
{
    const CtlResult listed = m_daemon->ctl({QStringLiteral("template"), QStringLiteral("ls")});
    QString shown;
    for (const QJsonValue &v : listed.json().toArray())
        if (v.toObject().value(QLatin1String("name")).toString() == QLatin1String("tinypolicy"))
            shown = v.toObject().value(QLatin1String("policy")).toString();
    QCOMPARE(shown, QStringLiteral("policies/tinypolicy.json"));

    const QString name = uniqueName(QStringLiteral("tpol"));
    const CtlResult created = m_daemon->ctl({QStringLiteral("create"), name, QStringLiteral("--template"), QStringLiteral("tinypolicy")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
    QCOMPARE(sandboxRules(name, templatePolicy()), (QStringList{QStringLiteral("allow api.example.org"), QStringLiteral("deny *.ads.example")}));

    const QString own = m_tmp.filePath(QStringLiteral("own-policy.json"));
    QVERIFY(writeFile(own, R"({"airlock_policy": 1, "rules": [{"action": "allow", "host": "other.example"}]})"));
    const QString replaced = uniqueName(QStringLiteral("tpolown"));
    const CtlResult mine = m_daemon->ctl({QStringLiteral("create"), replaced, QStringLiteral("--template"), QStringLiteral("tinypolicy"),
                                          QStringLiteral("--policy"), own});
    QVERIFY2(mine.exitCode == 0, mine.err.constData());
    QCOMPARE(sandboxRules(replaced, own), QStringList{QStringLiteral("allow other.example")});

    QVERIFY(writeFile(templatePolicy(), R"({"airlock_policy": 1, "rules": [{"action": "allow", "hots": "x.example"}]})"));
    const QString refused = uniqueName(QStringLiteral("tpolbad"));
    const CtlResult bad = m_daemon->ctl({QStringLiteral("create"), refused, QStringLiteral("--template"), QStringLiteral("tinypolicy")});
    QVERIFY(writeFile(templatePolicy(), QByteArray(kTemplatePolicy)));
    QVERIFY2(bad.exitCode == 1 && bad.err.contains(templatePolicy().toUtf8()) && bad.err.contains("unknown key 'hots'"), bad.err.constData());
    QVERIFY2(absent(refused), "a template with a broken policy file left a sandbox");
    // Read as `--policy FILE` is: bytes that are not UTF-8 are refused, not replaced.
    QVERIFY(writeFile(templatePolicy(), "{\"airlock_policy\": 1, \"rules\": [{\"action\": \"allow\", \"host\": \"x.example\", \"why\": \"\xff\"}]}"));
    const CtlResult notText = m_daemon->ctl({QStringLiteral("create"), refused, QStringLiteral("--template"), QStringLiteral("tinypolicy")});
    QVERIFY(writeFile(templatePolicy(), QByteArray(kTemplatePolicy)));
    QVERIFY2(notText.exitCode == 1 && notText.err.contains("it is not UTF-8 text"), notText.err.constData());
    QVERIFY2(absent(refused), "a template whose policy file is not UTF-8 left a sandbox");
    for (const QString &n : {name, replaced})
        QCOMPARE(m_daemon->ctl({QStringLiteral("rm"), n}).exitCode, 0);
}

void TestRun::cleanupTestCase()
{
    if (m_daemon)
        m_daemon->stop();
}

QTEST_GUILESS_MAIN(TestRun)
#include "test_run.moc"
