// Real agents in a real sandbox: a real airlockd builds the agents image with
// mmdebstrap (from the Debian and npm caches installers/setup.sh fills outside the test
// namespace), boots it under TCG from the claude-code template, and runs the real CLIs:
// `claude --version`, `codex --version`, and `claude -p "say hi"` against a fake Anthropic
// Messages API. That API is a small HTTPS server with its own test CA, in a network namespace
// this test makes (203.0.113.40 on its loopback), reached as api.anthropic.com through
// AIRLOCK_UPSTREAM_HOSTS / AIRLOCK_UPSTREAM_CA exactly as tests/secretsvm does; it answers one
// canned streamed reply and records what it received. Nothing here sends a packet anywhere
// else: every other host the CLI tries is denied by a rule of the sandbox, so nothing waits for
// a decision. Then, with no API key in the vault, each CLI signs in through the broker (stand-in
// token endpoints and APIs from tests/support/fakeoauth.h), refreshes, and is searched for the
// real tokens: the guest holds only placeholders.
#include "daemonharness.h"
#include "fakeoauth.h"
#include "netns.h"
#include "ptysession.h"
#include "tlstestserver.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <openssl/x509.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace airlock::test;

namespace {

const QString kOutside = u"203.0.113.40"_s;
constexpr quint32 kOutsideIp = 0xCB007128; // 203.0.113.40
const QByteArray kRealKey = "sk-ant-api03-REAL-agents-test-7c1f9e2b4d6a8c0e1f3a5b7d9c2e4f6a";
const QByteArray kPassphrase = "correct horse battery staple agents";
const QByteArray kCannedReply = "Hi from the fake Anthropic API, relayed by Airlock";

QMap<QByteArray, QByteArray> parseEnv(const QByteArray &text)
{
    QMap<QByteArray, QByteArray> vars;
    for (const QByteArray &line : text.split('\n')) {
        const qsizetype eq = line.indexOf('=');
        if (eq > 0)
            vars.insert(line.left(eq), line.mid(eq + 1));
    }
    return vars;
}

} // namespace

class TestAgents : public QObject {
    Q_OBJECT

private:
    DaemonHarness m_daemon;
    QTemporaryDir m_dir;
    OutsideNamespace m_outside;
    std::unique_ptr<TestPki> m_pki;
    std::unique_ptr<TlsTestServer> m_api;
    FakeOAuth m_fake{kCannedReply};
    QString m_dataDir;
    QString m_templates;
    QString m_box;
    QElapsedTimer m_total;

    CtlResult ctl(const QStringList &args, int timeoutMs = 300000, const QByteArray &input = {})
    {
        return m_daemon.ctl(args, timeoutMs, input);
    }
    // exec's --json answer, turned back into the guest command's exit code and output.
    static CtlResult decoded(CtlResult r)
    {
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        if (o.contains("stdout_b64"_L1)) {
            r.out = QByteArray::fromBase64(o.value("stdout_b64"_L1).toString().toLatin1());
            r.err += QByteArray::fromBase64(o.value("stderr_b64"_L1).toString().toLatin1());
        }
        return r;
    }
    CtlResult guest(const QString &script, int timeoutS = 240, const QByteArray &input = {})
    {
        QStringList args{u"exec"_s, m_box, u"--timeout"_s, QString::number(timeoutS)};
        if (!input.isEmpty())
            args << u"--stdin"_s;
        return decoded(ctl(args + QStringList{u"--"_s, u"bash"_s, u"-lc"_s, script}, (timeoutS + 30) * 1000, input));
    }
    QList<TlsTestServer::Request> messages()
    {
        QList<TlsTestServer::Request> out;
        for (const auto &r : m_api->requests())
            if (r.method == "POST" && r.target.startsWith("/v1/messages"))
                out << r;
        return out;
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void buildsTheAgentsImage();
    void listsTheTemplates();
    void anUnknownTemplateIsAClearErrorAndMakesNothing();
    void aMisboundSecretIsRefusedAndMakesNothing();
    void theClaudeCodeTemplateBootsWithItsSettings();
    void theAgentCLIsRun();
    void claudeAnswersThroughTheFakeApiWithTheRealKey();
    void theRealKeyNeverEntersTheGuest();
    void claudeSignsInAndRefreshesWithNoRealTokenInTheGuest();
    void secretLoginSignsInInAThrowAwaySandbox();
    void aLaterClaudeSandboxStartsSignedIn();
    void runNeedsNoKeyWhenTheVaultHoldsASignIn();
    void codexSignsInAndRefreshesWithNoRealTokenInTheGuest();
    void aLaterCodexSandboxStartsSignedIn();
    void claudeCodeRunsOnAnImportedImageWithNode();

private:
    void startLoginSandbox(const QString &templateName, const QStringList &loginHosts);
    void searchEverywhereFor(const QList<QByteArray> &values);
    void expectLoginRows(const QString &templateName, const QStringList &names);
    void startCodexSandbox();
    bool writeTemplates(QString *error);
    QJsonObject guestJson(const QString &path);
};

void TestAgents::initTestCase()
{
    m_total.start();
    const QString missing = missingVmTestPrerequisite(
        u"test_agents"_s, u"libvirt's system connection, nftables, network namespaces, mmdebstrap"_s, u"-L agents"_s);
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    QVERIFY(m_dir.isValid());

    // The outside: a namespace of its own with 203.0.113.40 on its loopback, over a veth pair.
    QString error;
    QVERIFY2(m_outside.create(u"agt"_s, kOutside, u"192.0.2.4"_s, &error), qPrintable(error));

    m_pki = std::make_unique<TestPki>();
    X509 *cert = nullptr;
    EVP_PKEY *key = nullptr;
    m_pki->issue({"api.anthropic.com", "platform.claude.com", "auth.openai.com", "chatgpt.com", "api.openai.com"}, &cert, &key);
    inNamespace(m_outside.name(), [&] { m_api = std::make_unique<TlsTestServer>(cert, key, kOutsideIp, 443); });
    X509_free(cert);
    EVP_PKEY_free(key);
    QCOMPARE(m_api->port(), quint16(443));
    m_api->setResponder([this](const TlsTestServer::Request &r) { return m_fake.answer(r); });
    QVERIFY2(DaemonHarness::setUpstream(m_dir.path(),
                                        "203.0.113.40 api.anthropic.com\n203.0.113.40 platform.claude.com\n"
                                        "203.0.113.40 auth.openai.com\n203.0.113.40 chatgpt.com\n203.0.113.40 api.openai.com\n",
                                        m_pki->caPem(), &error),
             qPrintable(error));

    // Its own data dir, kept between runs: the agents image is built once per recipe digest.
    m_dataDir = qEnvironmentVariable("AIRLOCK_AGENTS_TEST_DATA", m_dir.filePath(u"data"_s));
    QDir().mkpath(m_dataDir);
    QVERIFY2(writeTemplates(&error), qPrintable(error));
    QVERIFY2(m_daemon.start(m_dataDir, &error, {}, {u"AIRLOCK_TEMPLATES_DIR="_s + m_templates}), qPrintable(error));
    const CtlResult v = m_daemon.initOrUnlockVault(kPassphrase);
    QVERIFY2(v.exitCode == 0, v.err.constData());
    // A run that crashed leaves its sandboxes (which borrow the secret) and the secret in the
    // kept data dir: clear both, or this run would test against the old loan.
    for (const QJsonValue &sandbox : ctl({u"ls"_s}).json().toArray()) {
        const QString name = sandbox.toObject().value("name"_L1).toString();
        if (name.startsWith("agt-"_L1))
            QVERIFY2(m_daemon.killAndRemove(name), qPrintable(u"cannot remove sandbox %1 of an earlier run"_s.arg(name)));
    }
    for (const QJsonValue &row : ctl({u"secret"_s, u"ls"_s}).json().toArray()) {
        if (!row.toObject().value("login"_L1).toString().isEmpty())
            ctl({u"secret"_s, u"rm"_s, row.toObject().value("name"_L1).toString()});
    }
    for (const QString &secret : {u"anthropic"_s, u"openai"_s}) {
        const CtlResult rm = ctl({u"secret"_s, u"rm"_s, secret});
        QVERIFY2(rm.exitCode == 0 || rm.err.contains("no secret named"), rm.err.constData());
    }
}

void TestAgents::cleanupTestCase()
{
    const bool removed = m_box.isEmpty() || m_daemon.killAndRemove(m_box);
    m_daemon.stop();
    m_api.reset();
    m_outside.remove();
    qInfo("test_agents: %.1f s in all", double(m_total.elapsed()) / 1000);
    QVERIFY2(removed, "the test's sandbox could not be removed: it would be left running");
}

void TestAgents::buildsTheAgentsImage()
{
    QElapsedTimer t;
    t.start();
    const CtlResult built = ctl({u"image"_s, u"build"_s, u"agents"_s}, 1800 * 1000);
    QVERIFY2(built.exitCode == 0, QByteArray(built.err + "\n" + m_daemon.log().right(3000)).constData());
    const QJsonObject image = built.json().toObject();
    QCOMPARE(image.value("name"_L1).toString(), u"agents"_s);
    qInfo("agents image: %s in %.1f s, %.0f MiB", image.value("cached"_L1).toBool() ? "cached" : "built",
          double(t.elapsed()) / 1000, double(image.value("size_bytes"_L1).toInteger()) / (1 << 20));
    const CtlResult ls = ctl({u"image"_s, u"ls"_s});
    bool listed = false;
    for (const QJsonValue &v : ls.json().toArray())
        listed = listed || (v.toObject().value("name"_L1).toString() == "agents"_L1 &&
                            v.toObject().value("size_bytes"_L1).toInteger() > 100 * (1 << 20));
    QVERIFY2(listed, ls.out.constData());
    // A second build of the same recipe is the cached image.
    const CtlResult again = ctl({u"image"_s, u"build"_s, u"agents"_s}, 60000);
    QCOMPARE(again.exitCode, 0);
    QVERIFY(again.json().toObject().value("cached"_L1).toBool());
}

void TestAgents::listsTheTemplates()
{
    const CtlResult ls = ctl({u"template"_s, u"ls"_s});
    QVERIFY2(ls.exitCode == 0, ls.err.constData());
    QMap<QString, QJsonObject> byName;
    for (const QJsonValue &v : ls.json().toArray())
        byName.insert(v.toObject().value("name"_L1).toString(), v.toObject());
    QCOMPARE(byName.keys(), QStringList({u"claude-code"_s, u"codex"_s, u"shell"_s}));
    const QJsonObject claude = byName.value(u"claude-code"_s);
    QCOMPARE(claude.value("image"_L1).toString(), u"agents"_s);
    QCOMPARE(claude.value("console"_L1).toString(), u"claude"_s);
    QCOMPARE(claude.value("secret"_L1).toObject().value("header"_L1).toString(), u"x-api-key: {}"_s);
    QCOMPARE(claude.value("secret"_L1).toObject().value("hosts"_L1).toArray(), QJsonArray{u"api.anthropic.com"_s});
    const QJsonObject codex = byName.value(u"codex"_s);
    QCOMPARE(codex.value("secret"_L1).toObject().value("header"_L1).toString(), u"Authorization: Bearer {}"_s);
    QCOMPARE(codex.value("secret"_L1).toObject().value("hosts"_L1).toArray(), QJsonArray{u"api.openai.com"_s});
    QVERIFY(byName.value(u"shell"_s).value("secret"_L1).isUndefined());
    // Package registries are offered, never opened by the template itself.
    QVERIFY(claude.value("opt_in_presets"_L1).toArray().contains(u"npm"_s));
    QVERIFY(!claude.value("presets"_L1).toArray().contains(u"npm"_s));
}

void TestAgents::anUnknownTemplateIsAClearErrorAndMakesNothing()
{
    const QString name = uniqueName(u"agt-bad"_s);
    const CtlResult r = ctl({u"create"_s, name, u"--template"_s, u"no-such-agent"_s});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("no agent template named \"no-such-agent\"") && r.err.contains("claude-code, codex, shell"),
             r.err.constData());
    const CtlResult ls = ctl({u"ls"_s});
    QVERIFY2(!ls.out.contains(name.toUtf8()), ls.out.constData());
}

// With no API key in the vault the template signs in instead (the login cases below); a key
// bound the wrong way (a Bearer header) is still refused: it would never be injected.
void TestAgents::aMisboundSecretIsRefusedAndMakesNothing()
{
    const QString name = uniqueName(u"agt-badkey"_s);
    CtlResult r = ctl({u"secret"_s, u"set"_s, u"anthropic"_s, u"--host"_s, u"api.anthropic.com"_s}, 60000, kRealKey + '\n');
    QVERIFY2(r.exitCode == 0, r.err.constData());
    r = ctl({u"create"_s, name, u"--template"_s, u"claude-code"_s});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("x-api-key"), r.err.constData());
    const CtlResult ls = ctl({u"ls"_s});
    QVERIFY2(!ls.out.contains(name.toUtf8()), ls.out.constData());
    const CtlResult rules = ctl({u"rule"_s, u"ls"_s});
    QVERIFY2(!rules.out.contains(name.toUtf8()), "a refused create left rules behind");
    // Now as the template expects it.
    r = ctl({u"secret"_s, u"set"_s, u"anthropic"_s, u"--host"_s, u"api.anthropic.com"_s, u"--header"_s, u"x-api-key: {}"_s},
            60000, kRealKey + '\n');
    QVERIFY2(r.exitCode == 0, r.err.constData());
}

void TestAgents::theClaudeCodeTemplateBootsWithItsSettings()
{
    m_box = uniqueName(u"agt"_s);
    // Smaller than the template's defaults: two TCG guests' worth of memory is not to be had here.
    CtlResult r = ctl({u"create"_s, m_box, u"--template"_s, u"claude-code"_s, u"--cpus"_s, u"2"_s, u"--memory"_s, u"1536"_s});
    QVERIFY2(r.exitCode == 0, QByteArray(r.err + m_daemon.log().right(3000)).constData());
    QCOMPARE(r.json().toObject().value("image"_L1).toString(), u"agents"_s);
    // The template's preset: the API host, port 443, for this sandbox only.
    const CtlResult rules = ctl({u"rule"_s, u"ls"_s, m_box});
    bool apiAllowed = false;
    for (const QJsonValue &v : rules.json().toArray()) {
        const QJsonObject o = v.toObject();
        apiAllowed = apiAllowed || (o.value("pattern"_L1).toString() == "api.anthropic.com"_L1 &&
                                    o.value("action"_L1).toString() == "allow"_L1 && o.value("port"_L1).toInt() == 443 &&
                                    o.value("sandbox"_L1).toString() == m_box);
    }
    QVERIFY2(apiAllowed, rules.out.constData());
    // Everything else the CLI might try is refused at once instead of waiting for a person.
    r = ctl({u"rule"_s, u"add"_s, u"--sandbox"_s, m_box, u"--action"_s, u"deny"_s, u"--host"_s, u"*"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());

    QElapsedTimer t;
    t.start();
    r = ctl({u"start"_s, m_box}, 300000);
    QVERIFY2(r.exitCode == 0, QByteArray(r.err + m_daemon.log().right(3000)).constData());
    qInfo("agents guest: guest agent answered %.1f s after start (TCG)", double(t.elapsed()) / 1000);

    const CtlResult env = guest(u"env"_s, 60);
    QCOMPARE(env.exitCode, 0);
    const QMap<QByteArray, QByteArray> vars = parseEnv(env.out);
    QCOMPARE(vars.value("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), QByteArray("1"));
    QCOMPARE(vars.value("DISABLE_TELEMETRY"), QByteArray("1"));
    QCOMPARE(vars.value("NODE_EXTRA_CA_CERTS"), QByteArray("/etc/ssl/certs/ca-certificates.crt"));
    QCOMPARE(vars.value("AIRLOCK_CONSOLE_COMMAND"), QByteArray("claude"));
    QCOMPARE(vars.value("ANTHROPIC_API_KEY").size(), kRealKey.size()); // the placeholder
    QVERIFY(vars.value("ANTHROPIC_API_KEY") != kRealKey);
}

void TestAgents::theAgentCLIsRun()
{
    QElapsedTimer t;
    t.start();
    CtlResult r = guest(u"claude --version"_s);
    QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
    QVERIFY2(r.out.contains("2.1.54"), r.out.constData());
    qInfo("claude --version: %.1f s", double(t.elapsed()) / 1000);
    t.restart();
    r = guest(u"codex --version"_s);
    QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
    QVERIFY2(r.out.contains("0.171.0"), r.out.constData());
    qInfo("codex --version: %.1f s", double(t.elapsed()) / 1000);
    // The tools the image promises.
    r = guest(u"git --version && node --version && npm --version && python3 --version && rg --version && gcc --version"_s);
    QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
    // The template's console command runs on the console (the interactive agent).
    r = guest(u"ps -t ttyS0 -o args="_s, 60);
    bool agentOnConsole = false;
    for (const QByteArray &line : r.out.split('\n'))
        agentOnConsole = agentOnConsole || (line.contains("claude") && !line.startsWith("bash"));
    QVERIFY2(r.exitCode == 0 && agentOnConsole, QByteArray("processes on the console: " + r.out + r.err).constData());
}

void TestAgents::claudeAnswersThroughTheFakeApiWithTheRealKey()
{
    QElapsedTimer t;
    t.start();
    const CtlResult r = guest(u"cd /root && claude -p 'say hi' 2>&1"_s, 480); // 130-270 s under TCG on a busy 2-core host
    const QByteArray egress = ctl({u"egress"_s, u"ls"_s, m_box}).out;
    QVERIFY2(r.exitCode == 0 && r.out.contains(kCannedReply),
             QByteArray(r.out + r.err + "\negress: " + egress.right(3000) + "\n" + m_daemon.log().right(3000)).constData());
    qInfo("claude -p 'say hi': %.1f s", double(t.elapsed()) / 1000);
    const auto got = messages();
    QVERIFY2(!got.isEmpty(), egress.right(3000).constData());
    for (const auto &m : got)
        QCOMPARE(m.header("x-api-key"), kRealKey);
    bool prompted = false;
    for (const auto &m : got)
        prompted = prompted || m.body.contains("say hi");
    QVERIFY(prompted);
    // What else the CLI tried: every attempt decided at once (none left pending).
    for (const QJsonValue &v : QJsonDocument::fromJson(egress).array())
        QVERIFY2(v.toObject().value("decision"_L1).toString() != "pending"_L1, egress.constData());
    // The images' helper names the process behind the API requests, from the agent down.
    QStringList reported;
    for (const QJsonValue &v : QJsonDocument::fromJson(egress).array()) {
        const QJsonObject process = v.toObject().value("process"_L1).toObject();
        if (v.toObject().value("host"_L1).toString() == "api.anthropic.com"_L1 && !process.isEmpty())
            reported << (process.value("chain"_L1).toVariant().toStringList() << process.value("comm"_L1).toString()).join(u" → "_s);
    }
    reported.removeDuplicates();
    qInfo("the guest reports these processes behind the API requests: %s", qPrintable(reported.join(u"; "_s)));
    QVERIFY2(!reported.isEmpty(), egress.right(3000).constData());
    QVERIFY2(reported.join(u" "_s).contains(u"claude"_s) || reported.join(u" "_s).contains(u"node"_s), qPrintable(reported.join(u"; "_s)));
}

void TestAgents::theRealKeyNeverEntersTheGuest()
{
    CtlResult r = guest(u"env; cat /proc/cmdline"_s, 60);
    QCOMPARE(r.exitCode, 0);
    QVERIFY(!r.out.contains(kRealKey));
    QVERIFY(r.out.contains("ANTHROPIC_API_KEY="));
    // Everywhere the CLI and the system write; the key comes in on stdin, never on a command line.
    r = guest(u"grep -rlF -f /proc/self/fd/0 /root /tmp /run /etc /var /home /usr/local/etc 2>/dev/null; sync; echo searched"_s,
              240, kRealKey + '\n');
    QVERIFY2(r.out.trimmed() == "searched", QByteArray(r.out + r.err).constData());
    // Positive control: the same search finds what the CLI did write (its config under /root).
    r = guest(u"grep -rlF -f /proc/self/fd/0 /root"_s, 120, "hasCompletedOnboarding\n");
    QVERIFY2(r.out.contains("/root/.claude.json"), r.out.constData());
    // The overlay disk on the host, raw bytes, after the guest synced.
    const QDir pool(u"/var/lib/libvirt/images/airlock"_s);
    const QStringList disks = pool.entryList({u"*-sbx-%1-*.qcow2"_s.arg(m_box)}, QDir::Files);
    QCOMPARE(disks.size(), 1);
    QByteArray count;
    run(u"grep"_s, {u"-c"_s, u"-a"_s, u"-F"_s, QString::fromLatin1(kRealKey), pool.filePath(disks.first())}, &count);
    QCOMPARE(count.trimmed(), QByteArray("0"));
}

// A sandbox from a login template with no API key in the vault, made the way the earlier
// cases made theirs (one TCG guest at a time: the previous one goes first).
void TestAgents::startLoginSandbox(const QString &templateName, const QStringList &loginHosts)
{
    if (!m_box.isEmpty()) {
        QVERIFY2(m_daemon.killAndRemove(m_box), qPrintable(u"cannot remove sandbox %1"_s.arg(m_box)));
        m_box.clear();
    }
    for (const QString &secret : {u"anthropic"_s, u"openai"_s}) {
        const CtlResult rm = ctl({u"secret"_s, u"rm"_s, secret});
        QVERIFY2(rm.exitCode == 0 || rm.err.contains("no secret named"), rm.err.constData());
    }
    const QString name = uniqueName(u"agt-login"_s);
    CtlResult r = ctl({u"create"_s, name, u"--template"_s, templateName, u"--cpus"_s, u"2"_s, u"--memory"_s, u"1536"_s});
    QVERIFY2(r.exitCode == 0, QByteArray(r.err + m_daemon.log().right(3000)).constData());
    m_box = name;
    // The sign-in hosts may already be the template's; an explicit allow changes nothing then.
    for (const QString &host : loginHosts)
        ctl({u"rule"_s, u"add"_s, u"--sandbox"_s, m_box, u"--action"_s, u"allow"_s, u"--host"_s, host, u"--port"_s, u"443"_s});
    r = ctl({u"rule"_s, u"add"_s, u"--sandbox"_s, m_box, u"--action"_s, u"deny"_s, u"--host"_s, u"*"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QElapsedTimer t;
    t.start();
    r = ctl({u"start"_s, m_box}, 300000);
    QVERIFY2(r.exitCode == 0, QByteArray(r.err + m_daemon.log().right(3000)).constData());
    qInfo("%s login guest: up %.1f s after start", qPrintable(templateName), double(t.elapsed()) / 1000);
}

// Every real value the stand-in handed out, looked for in the guest (files, environment), in
// its disk image on the host, in the daemon's data dir and in its log: none may be there.
void TestAgents::searchEverywhereFor(const QList<QByteArray> &values)
{
    QVERIFY(!values.isEmpty());
    const QByteArray patterns = values.join('\n') + '\n';
    CtlResult r = guest(u"env; cat /proc/cmdline"_s, 60);
    QCOMPARE(r.exitCode, 0);
    for (const QByteArray &v : values)
        QVERIFY2(!r.out.contains(v), QByteArray("a real token in the guest's environment: " + v).constData());
    r = guest(u"grep -rlF -f /proc/self/fd/0 /root /tmp /run /etc /var /home /usr/local 2>/dev/null; sync; echo searched"_s, 300,
              patterns);
    QVERIFY2(r.out.trimmed() == "searched", QByteArray("real tokens in the guest: " + r.out + r.err).constData());
    const QString patternFile = m_dir.filePath(u"issued-tokens"_s);
    QFile f(patternFile);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write(patterns) == patterns.size());
    f.close();
    const QDir pool(u"/var/lib/libvirt/images/airlock"_s);
    const QStringList disks = pool.entryList({u"*-sbx-%1-*.qcow2"_s.arg(m_box)}, QDir::Files);
    QCOMPARE(disks.size(), 1);
    QByteArray found;
    run(u"grep"_s, {u"-c"_s, u"-a"_s, u"-F"_s, u"-f"_s, patternFile, pool.filePath(disks.first())}, &found, 120000);
    QCOMPARE(found.trimmed(), QByteArray("0"));
    // The vault holds them encrypted; in clear, nowhere in the data dir.
    found.clear();
    run(u"grep"_s, {u"-rlaF"_s, u"-f"_s, patternFile, m_dataDir}, &found, 300000);
    QVERIFY2(found.trimmed().isEmpty(), QByteArray("real tokens in the daemon's data dir: " + found).constData());
    const QByteArray log = m_daemon.log();
    for (const QByteArray &v : values)
        QVERIFY2(!log.contains(v), QByteArray("a real token in the daemon's log: " + v).constData());
}

void TestAgents::expectLoginRows(const QString &templateName, const QStringList &names)
{
    const CtlResult ls = ctl({u"secret"_s, u"ls"_s});
    QVERIFY2(ls.exitCode == 0, ls.err.constData());
    QMap<QString, QJsonObject> rows;
    for (const QJsonValue &v : ls.json().toArray())
        rows.insert(v.toObject().value("name"_L1).toString(), v.toObject());
    for (const QString &name : names) {
        const QJsonObject row = rows.value(templateName + u'.' + name);
        QVERIFY2(!row.isEmpty(), qPrintable(u"no row %1.%2 in secret ls: %3"_s.arg(templateName, name, QString::fromUtf8(ls.out))));
        QCOMPARE(row.value("login"_L1).toString(), templateName);
        QVERIFY2(row.contains("expires"_L1), ls.out.constData());
    }
    // The access token came with expires_in: its row says when it runs out.
    const QString expires = rows.value(templateName + u".access"_s).value("expires"_L1).toString();
    QVERIFY2(QDateTime::fromString(expires, Qt::ISODate).isValid(), ls.out.constData());
}

// The shipped templates, except that Claude Code signs in with `claude auth login` (its
// redirect to a listener in the guest is what this test can play) where a person signs in
// from Claude Code's own first run (its pasted code needs the interactive TUI).
bool TestAgents::writeTemplates(QString *error)
{
    m_templates = m_dir.filePath(u"templates"_s);
    QDir().mkpath(m_templates);
    for (const QString &name : {u"claude-code"_s, u"codex"_s, u"shell"_s}) {
        QFile shipped(QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/templates/") + name + u".json"_s);
        if (!shipped.open(QIODevice::ReadOnly)) {
            *error = u"cannot read the shipped template "_s + shipped.fileName();
            return false;
        }
        QJsonObject t = QJsonDocument::fromJson(shipped.readAll()).object();
        if (name == "claude-code"_L1) {
            QJsonObject login = t.value("login"_L1).toObject();
            login.insert(u"command"_s, u"claude auth login"_s);
            t.insert(u"login"_s, login);
        }
        QFile copy(m_templates + u'/' + name + u".json"_s);
        if (!copy.open(QIODevice::WriteOnly) || copy.write(QJsonDocument(t).toJson()) <= 0) {
            *error = u"cannot write "_s + copy.fileName();
            return false;
        }
    }
    return true;
}

// A Codex sandbox. Codex's own ChatGPT route first asks chatgpt.com which backend the
// workspace lives on (workspace routing discovery), which this stand-in does not answer; a
// provider of the same ChatGPT backend with the sign-in's token skips that and nothing else.
void TestAgents::startCodexSandbox()
{
    startLoginSandbox(u"codex"_s, {u"auth.openai.com"_s, u"chatgpt.com"_s});
    if (QTest::currentTestFailed())
        return;
    const CtlResult r = guest(u"mkdir -p /root/.codex && cat > /root/.codex/config.toml"_s, 60,
                              "model_provider = \"chatgpt_direct\"\n[model_providers.chatgpt_direct]\nname = \"ChatGPT\"\n"
                              "base_url = \"https://chatgpt.com/backend-api/codex\"\nwire_api = \"responses\"\n"
                              "requires_openai_auth = true\n");
    QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
}

QJsonObject TestAgents::guestJson(const QString &path)
{
    const CtlResult r = guest(u"cat "_s + path, 60);
    return r.exitCode == 0 ? QJsonDocument::fromJson(r.out).object() : QJsonObject();
}

void TestAgents::claudeSignsInAndRefreshesWithNoRealTokenInTheGuest()
{
    startLoginSandbox(u"claude-code"_s, {u"platform.claude.com"_s});
    if (QTest::currentTestFailed())
        return;
    CtlResult r = guest(u"env"_s, 60);
    // With an API key in its environment Claude Code would never use the sign-in.
    QVERIFY2(!parseEnv(r.out).contains("ANTHROPIC_API_KEY"), r.out.constData());

    // `claude auth login` opens $BROWSER on the sign-in URL and waits on localhost for the
    // redirect; this "browser" answers that redirect with a code, as the person's would.
    const QByteArray browser = R"sh(#!/bin/sh
url="$1"
state=$(printf '%s' "$url" | sed -n 's/.*[?&]state=\([^&]*\).*/\1/p')
port=$(printf '%s' "$url" | sed -n 's/.*redirect_uri=http%3A%2F%2Flocalhost%3A\([0-9]*\)%2Fcallback.*/\1/p')
[ -n "$port" ] || exit 0
(sleep 1; curl -sS -o /dev/null "http://localhost:$port/callback?code=airlock-test-code&state=$state") >/dev/null 2>&1 &
)sh";
    r = guest(u"cat > /usr/local/bin/airlock-test-browser && chmod 755 /usr/local/bin/airlock-test-browser"_s, 60, browser);
    QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
    QElapsedTimer t;
    t.start();
    r = guest(u"cd /root && BROWSER=/usr/local/bin/airlock-test-browser claude auth login </dev/null 2>&1"_s, 300);
    const QByteArray egress = ctl({u"egress"_s, u"ls"_s, m_box}).out;
    QVERIFY2(r.exitCode == 0 && r.out.contains("Login successful"),
             QByteArray(r.out + r.err + "\negress: " + egress.right(3000) + "\n" + m_daemon.log().right(3000)).constData());
    qInfo("claude auth login: %.1f s", double(t.elapsed()) / 1000);
    const FakeOAuth::Issued first = m_fake.lastIssued(FakeOAuth::Cli::Claude);
    QCOMPARE(first.grant, QByteArray("authorization_code"));
    r = guest(u"cat /root/.claude/.credentials.json"_s, 60);
    const QJsonObject stored = QJsonDocument::fromJson(r.out).object().value("claudeAiOauth"_L1).toObject();
    const QByteArray guestAccess = stored.value("accessToken"_L1).toString().toUtf8();
    QVERIFY2(!guestAccess.isEmpty() && guestAccess != first.access, r.out.constData());
    QCOMPARE(guestAccess.size(), first.access.size());
    QVERIFY(stored.value("refreshToken"_L1).toString().toUtf8() != first.refresh);
    expectLoginRows(u"claude-code"_s, {u"access"_s, u"refresh"_s});

    // A request: the API gets the real access token, swapped in for the guest's placeholder.
    const qsizetype before = messages().size();
    t.restart();
    r = guest(u"cd /root && claude -p 'say hi' 2>&1"_s, 480);
    QVERIFY2(r.exitCode == 0 && r.out.contains(kCannedReply), QByteArray(r.out + r.err).constData());
    qInfo("claude -p (signed in): %.1f s", double(t.elapsed()) / 1000);
    QList<TlsTestServer::Request> got = messages().mid(before);
    QVERIFY(!got.isEmpty());
    for (const auto &m : got)
        QCOMPARE(m.header("authorization"), "Bearer " + first.access);

    // Expired in the guest's eyes: the next run refreshes first, with the real refresh token
    // reaching the token endpoint, and then uses the new real access token.
    r = guest(uR"sh(python3 -c "import json; p='/root/.claude/.credentials.json'; d=json.load(open(p)); d['claudeAiOauth']['expiresAt']=0; json.dump(d, open(p, 'w'))")sh"_s, 60);
    QCOMPARE(r.exitCode, 0);
    const qsizetype before2 = messages().size();
    t.restart();
    r = guest(u"cd /root && claude -p 'say hi again' 2>&1"_s, 480);
    QVERIFY2(r.exitCode == 0 && r.out.contains(kCannedReply), QByteArray(r.out + r.err).constData());
    qInfo("claude -p (after a refresh): %.1f s", double(t.elapsed()) / 1000);
    const FakeOAuth::Issued second = m_fake.lastIssued(FakeOAuth::Cli::Claude);
    QCOMPARE(second.grant, QByteArray("refresh_token"));
    bool refreshedWithTheRealToken = false;
    for (const auto &req : m_api->requests())
        if (req.target == "/v1/oauth/token" && FakeOAuth::field(req, "grant_type") == "refresh_token")
            refreshedWithTheRealToken = refreshedWithTheRealToken || FakeOAuth::field(req, "refresh_token") == first.refresh;
    QVERIFY2(refreshedWithTheRealToken, "the token endpoint never got the real refresh token");
    got = messages().mid(before2);
    QVERIFY(!got.isEmpty());
    for (const auto &m : got)
        QCOMPARE(m.header("authorization"), "Bearer " + second.access);

    searchEverywhereFor(m_fake.issuedValues());
    expectLoginRows(u"claude-code"_s, {u"access"_s, u"refresh"_s});
}

// `secret login claude-code` on a terminal, as a person runs it: a throw-away sandbox runs the
// sign-in on its console; the test plays the browser (the redirect to the CLI's listener in the
// guest, through exec); Ctrl-] ends it, the sandbox is gone and the vault holds the new tokens.
void TestAgents::secretLoginSignsInInAThrowAwaySandbox()
{
    if (!m_box.isEmpty()) { // one TCG guest at a time
        QVERIFY2(m_daemon.killAndRemove(m_box), qPrintable(u"cannot remove sandbox %1"_s.arg(m_box)));
        m_box.clear();
    }
    // What the CLI tries besides its sign-in is refused at once instead of waiting for a person.
    const QString policy = m_dir.filePath(u"deny-the-rest.json"_s);
    QFile f(policy);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"airlock_policy": 1, "rules": [{"action": "deny", "host": "*"}]})");
    f.close();
    const QString name = uniqueName(u"agt-signin"_s);
    const qsizetype issuedBefore = m_fake.issued().size();
    PtySession login;
    QElapsedTimer t;
    t.start();
    QVERIFY(login.start(qEnvironmentVariable("AIRLOCKCTL_BIN"),
                        {u"--socket"_s, m_daemon.socketPath(), u"secret"_s, u"login"_s, u"claude-code"_s, u"--name"_s, name,
                         u"--cpus"_s, u"2"_s, u"--memory"_s, u"1536"_s, u"--policy"_s, policy}));
    QVERIFY2(login.waitFor("If the browser didn't open, visit: ", 600000), login.transcript().right(3000).constData());
    QVERIFY2(login.waitFor("\n", 60000), login.transcript().right(3000).constData());
    const QByteArray shown = login.transcript().mid(login.transcript().lastIndexOf("visit: "));
    const qsizetype at = shown.indexOf("state=");
    QVERIFY2(at > 0, shown.constData());
    const QByteArray state = shown.mid(at + 6).split('&').first().split('\r').first().split('\n').first();
    // The browser's redirect reaches the CLI's listener in the guest.
    const CtlResult redirect = decoded(ctl({u"exec"_s, name, u"--timeout"_s, u"60"_s, u"--"_s, u"bash"_s, u"-c"_s,
                                            uR"sh(port=$(ss -ltnpH | grep -E '"(node|claude)"' | awk '{print $4}' | sed 's/.*://' | head -1)
curl -sS -o /dev/null -w '%{http_code}' "http://localhost:$port/callback?code=airlock-test-code&state=%1")sh"_s
                                                .arg(QString::fromLatin1(state))},
                                           90000));
    QVERIFY2(redirect.exitCode == 0, QByteArray(redirect.out + redirect.err).constData());
    QVERIFY2(login.waitFor("Login successful", 180000), login.transcript().right(3000).constData());
    login.type("\x1d"); // Ctrl-]
    const int exitCode = login.finish(180000);
    QVERIFY2(exitCode == 0, QByteArray("exit " + QByteArray::number(exitCode) + ":\n" + login.transcript().right(3000) + "\n" +
                                       m_daemon.log().right(3000)).constData());
    qInfo("secret login claude-code: %.1f s", double(t.elapsed()) / 1000);
    QVERIFY2(login.transcript().contains("signed in to claude-code"), login.transcript().right(3000).constData());
    QVERIFY(m_fake.issued().size() > issuedBefore);
    QCOMPARE(m_fake.lastIssued(FakeOAuth::Cli::Claude).grant, QByteArray("authorization_code"));
    for (const QJsonValue &v : ctl({u"ls"_s}).json().toArray())
        QVERIFY2(v.toObject().value("name"_L1).toString() != name, "the throw-away sandbox is still there");
    expectLoginRows(u"claude-code"_s, {u"access"_s, u"refresh"_s});
}

// One sign-in serves the sandboxes made after it: the new guest's credentials file holds
// placeholders of its own, and the API gets the vault's latest real token.
void TestAgents::aLaterClaudeSandboxStartsSignedIn()
{
    startLoginSandbox(u"claude-code"_s, {u"platform.claude.com"_s});
    if (QTest::currentTestFailed())
        return;
    const FakeOAuth::Issued latest = m_fake.lastIssued(FakeOAuth::Cli::Claude);
    QVERIFY(!latest.access.isEmpty()); // the sign-in above
    const QJsonObject stored = guestJson(u"/root/.claude/.credentials.json"_s).value("claudeAiOauth"_L1).toObject();
    const QByteArray guestAccess = stored.value("accessToken"_L1).toString().toUtf8();
    QVERIFY2(!guestAccess.isEmpty(), "the later sandbox has no sign-in file");
    QCOMPARE(guestAccess.size(), latest.access.size());
    QVERIFY(!m_fake.issuedValues().contains(guestAccess));
    QVERIFY(!m_fake.issuedValues().contains(stored.value("refreshToken"_L1).toString().toUtf8()));
    QVERIFY(stored.value("expiresAt"_L1).toDouble() > double(QDateTime::currentMSecsSinceEpoch()));
    const qsizetype before = messages().size();
    const qsizetype issuedBefore = m_fake.issued().size();
    QElapsedTimer t;
    t.start();
    const CtlResult r = guest(u"cd /root && claude -p 'say hi from the later sandbox' 2>&1"_s, 480);
    QVERIFY2(r.exitCode == 0 && r.out.contains(kCannedReply), QByteArray(r.out + r.err + "\n" + m_daemon.log().right(3000)).constData());
    qInfo("claude -p (signed in by an earlier sandbox): %.1f s", double(t.elapsed()) / 1000);
    QCOMPARE(m_fake.issued().size(), issuedBefore); // no second sign-in, no refresh: the token was still good
    const QList<TlsTestServer::Request> got = messages().mid(before);
    QVERIFY(!got.isEmpty());
    for (const auto &m : got)
        QCOMPARE(m.header("authorization"), "Bearer " + latest.access);
    searchEverywhereFor(m_fake.issuedValues());
    // The vault says who uses the sign-in now.
    bool used = false;
    for (const QJsonValue &v : ctl({u"secret"_s, u"ls"_s}).json().toArray())
        used = used || (v.toObject().value("name"_L1).toString() == "claude-code.access"_L1 &&
                        v.toObject().value("used_by"_L1).toArray().contains(m_box));
    QVERIFY(used);
}

// `run claude-code` without a terminal and without an API key in the vault: the sign-in the
// vault holds will do (no key is asked for or required), and --rm leaves nothing.
void TestAgents::runNeedsNoKeyWhenTheVaultHoldsASignIn()
{
    if (!m_box.isEmpty()) { // one TCG guest at a time
        QVERIFY2(m_daemon.killAndRemove(m_box), qPrintable(u"cannot remove sandbox %1"_s.arg(m_box)));
        m_box.clear();
    }
    const QString name = uniqueName(u"agt-run"_s);
    const CtlResult r = m_daemon.ctlText({u"run"_s, u"claude-code"_s, u"--name"_s, name, u"--rm"_s, u"--changes"_s, u"none"_s,
                                         u"--cpus"_s, u"2"_s, u"--memory"_s, u"1536"_s}, 300000);
    QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
    QVERIFY2(r.out.contains(QByteArray("removed " + name.toUtf8())), r.out.constData());
    QVERIFY2(!r.err.contains("needs the secret"), r.err.constData());
    for (const QJsonValue &v : ctl({u"ls"_s}).json().toArray())
        QVERIFY2(v.toObject().value("name"_L1).toString() != name, "run --rm left its sandbox");
}

void TestAgents::codexSignsInAndRefreshesWithNoRealTokenInTheGuest()
{
    startCodexSandbox();
    if (QTest::currentTestFailed())
        return;
    CtlResult r;
    // `codex login` prints the sign-in URL and waits on 127.0.0.1:1455 for the redirect; curl
    // plays the browser, following it to the success page that ends the login.
    QElapsedTimer t;
    t.start();
    r = guest(uR"sh(cd /root && codex login >/tmp/codex-login.out 2>&1 </dev/null & pid=$!
for i in $(seq 1 120); do grep -q 'state=' /tmp/codex-login.out && break; sleep 1; done
state=$(grep -o '[?&]state=[^& ]*' /tmp/codex-login.out | head -1 | cut -d= -f2)
curl -sS -L -o /dev/null -w 'callback %{http_code}\n' "http://127.0.0.1:1455/auth/callback?code=airlock-test-code&state=$state"
wait $pid; status=$?; cat /tmp/codex-login.out; exit $status)sh"_s, 300);
    const QByteArray egress = ctl({u"egress"_s, u"ls"_s, m_box}).out;
    QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err + "\negress: " + egress.right(3000) + "\n" + m_daemon.log().right(3000)).constData());
    qInfo("codex login: %.1f s", double(t.elapsed()) / 1000);
    QList<FakeOAuth::Issued> issued = m_fake.issued();
    const FakeOAuth::Issued first = m_fake.lastIssued(FakeOAuth::Cli::Codex);
    QCOMPARE(first.grant, QByteArray("authorization_code"));
    // The API key exchange got the real id token, swapped in for the guest's placeholder.
    QByteArray apiKey;
    for (const auto &i : issued)
        if (i.cli == FakeOAuth::Cli::Codex && !i.apiKey.isEmpty())
            apiKey = i.apiKey;
    QVERIFY2(!apiKey.isEmpty(), "codex login never exchanged its id token for an API key");
    bool exchangedTheRealIdToken = false;
    for (const auto &req : m_api->requests())
        if (FakeOAuth::field(req, "grant_type") == "urn:ietf:params:oauth:grant-type:token-exchange")
            exchangedTheRealIdToken = exchangedTheRealIdToken || FakeOAuth::field(req, "subject_token") == first.id;
    QVERIFY(exchangedTheRealIdToken);
    r = guest(u"cat /root/.codex/auth.json"_s, 60);
    const QJsonObject auth = QJsonDocument::fromJson(r.out).object();
    // The shape the codex template's credentials_file follows (names only, never a value).
    QStringList shape;
    for (auto it = auth.begin(); it != auth.end(); ++it)
        shape << (it.value().isObject() ? it.key() + u'{' + it.value().toObject().keys().join(u',') + u'}' : it.key());
    qInfo("codex keeps its sign-in as: %s", qPrintable(shape.join(u", "_s)));
    const QJsonObject tokens = auth.value("tokens"_L1).toObject();
    const QByteArray guestAccess = tokens.value("access_token"_L1).toString().toUtf8();
    QVERIFY2(!guestAccess.isEmpty() && guestAccess != first.access, r.out.constData());
    QCOMPARE(guestAccess.size(), first.access.size());
    // A JWT placeholder keeps what Codex reads from it: the account and plan.
    QCOMPARE(jwtClaims(guestAccess), jwtClaims(first.access));
    QCOMPARE(tokens.value("account_id"_L1).toString(), QLatin1StringView(FakeOAuth::kCodexAccountId));
    QVERIFY(tokens.value("refresh_token"_L1).toString().toUtf8() != first.refresh);
    QVERIFY(auth.value("OPENAI_API_KEY"_L1).toString().toUtf8() != apiKey);
    expectLoginRows(u"codex"_s, {u"id"_s, u"access"_s, u"refresh"_s, u"api-key"_s});

    // The prompts of `codex exec` below, by their text: the agent on the console (codex, started
    // once the sandbox CA is in place) talks to the same API with the tokens it loaded itself.
    auto responses = [this](const QByteArray &prompt) {
        QList<TlsTestServer::Request> out;
        for (const auto &req : m_api->requests())
            if (req.method == "POST" && req.target.startsWith("/backend-api/codex/responses") && req.body.contains(prompt))
                out << req;
        return out;
    };
    t.restart();
    r = guest(u"cd /root && codex exec --skip-git-repo-check 'say hi' </dev/null 2>&1"_s, 300);
    QVERIFY2(r.exitCode == 0 && r.out.contains(kCannedReply), QByteArray(r.out + r.err).constData());
    qInfo("codex exec (signed in): %.1f s", double(t.elapsed()) / 1000);
    const QList<TlsTestServer::Request> got = responses("say hi");
    QVERIFY(!got.isEmpty());
    for (const auto &req : got) {
        QCOMPARE(req.header("authorization"), "Bearer " + first.access);
        QCOMPARE(req.header("chatgpt-account-id"), QByteArray(FakeOAuth::kCodexAccountId));
    }

    // Codex refreshes when its access token's exp has passed (not on last_refresh): make it so.
    r = guest(uR"sh(python3 - <<'EOF'
import base64, json
p = '/root/.codex/auth.json'
d = json.load(open(p))
h, c, s = d['tokens']['access_token'].split('.')
claims = json.loads(base64.urlsafe_b64decode(c + '=' * (-len(c) % 4)))
claims['exp'] = 1000000000
c = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b'=').decode()
d['tokens']['access_token'] = '.'.join([h, c, s])
json.dump(d, open(p, 'w'), indent=2)
EOF)sh"_s, 60);
    QCOMPARE(r.exitCode, 0);
    t.restart();
    r = guest(u"cd /root && codex exec --skip-git-repo-check 'say hi again' </dev/null 2>&1"_s, 300);
    QVERIFY2(r.exitCode == 0 && r.out.contains(kCannedReply), QByteArray(r.out + r.err).constData());
    qInfo("codex exec (after a refresh): %.1f s", double(t.elapsed()) / 1000);
    QCOMPARE(m_fake.lastIssued(FakeOAuth::Cli::Codex).grant, QByteArray("refresh_token"));
    bool refreshedWithTheRealToken = false;
    for (const auto &req : m_api->requests())
        if (req.target == "/oauth/token" && FakeOAuth::field(req, "grant_type") == "refresh_token")
            refreshedWithTheRealToken = refreshedWithTheRealToken || FakeOAuth::field(req, "refresh_token") == first.refresh;
    QVERIFY2(refreshedWithTheRealToken, "the token endpoint never got the real refresh token");
    // More than one of Codex's processes may refresh; each prompt the API took must carry a real
    // token one of those refreshes issued, never the one from before. A prompt may also go out
    // first with the token altered above (no placeholder, so sent as the guest wrote it): the
    // API refuses it and Codex refreshes.
    QList<QByteArray> refreshed;
    for (const auto &i : m_fake.issued())
        if (i.cli == FakeOAuth::Cli::Codex && i.grant == "refresh_token")
            refreshed << "Bearer " + i.access;
    int taken = 0, refused = 0;
    for (const auto &req : responses("say hi again")) {
        if (!m_fake.isIssuedAccess(FakeOAuth::Cli::Codex, req.header("authorization"))) {
            ++refused;
            continue;
        }
        ++taken;
        QVERIFY2(refreshed.contains(req.header("authorization")), "a prompt after the refresh carried the old real token");
    }
    QVERIFY(taken > 0);
    qInfo("codex prompts after the refresh: %d taken, %d refused (sent with the altered token)", taken, refused);

    searchEverywhereFor(m_fake.issuedValues());
    expectLoginRows(u"codex"_s, {u"id"_s, u"access"_s, u"refresh"_s, u"api-key"_s});
}

void TestAgents::aLaterCodexSandboxStartsSignedIn()
{
    startCodexSandbox();
    if (QTest::currentTestFailed())
        return;
    QList<QByteArray> refreshedAccess;
    for (const auto &i : m_fake.issued())
        if (i.cli == FakeOAuth::Cli::Codex && !i.access.isEmpty())
            refreshedAccess << i.access;
    QVERIFY(!refreshedAccess.isEmpty());
    const QJsonObject auth = guestJson(u"/root/.codex/auth.json"_s);
    const QJsonObject tokens = auth.value("tokens"_L1).toObject();
    const QByteArray guestAccess = tokens.value("access_token"_L1).toString().toUtf8();
    QVERIFY2(!guestAccess.isEmpty(), "the later sandbox has no sign-in file");
    QVERIFY(!m_fake.issuedValues().contains(guestAccess));
    QCOMPARE(jwtClaims(guestAccess), jwtClaims(refreshedAccess.last())); // what Codex reads stays readable
    QCOMPARE(tokens.value("account_id"_L1).toString(), QLatin1StringView(FakeOAuth::kCodexAccountId));
    const qsizetype before = m_api->requests().size();
    QElapsedTimer t;
    t.start();
    const CtlResult r = guest(u"cd /root && codex exec --skip-git-repo-check 'say hi from the later sandbox' </dev/null 2>&1"_s, 300);
    QVERIFY2(r.exitCode == 0 && r.out.contains(kCannedReply), QByteArray(r.out + r.err + "\n" + m_daemon.log().right(3000)).constData());
    qInfo("codex exec (signed in by an earlier sandbox): %.1f s", double(t.elapsed()) / 1000);
    QList<QByteArray> allAccess;
    for (const auto &i : m_fake.issued())
        if (i.cli == FakeOAuth::Cli::Codex && !i.access.isEmpty())
            allAccess << "Bearer " + i.access;
    int prompts = 0;
    for (const auto &req : m_api->requests().mid(before)) {
        if (req.method != "POST" || !req.target.startsWith("/backend-api/codex/responses"))
            continue;
        ++prompts;
        QVERIFY2(allAccess.contains(req.header("authorization")), req.header("authorization").left(60).constData());
        QCOMPARE(req.header("chatgpt-account-id"), QByteArray(FakeOAuth::kCodexAccountId));
    }
    QVERIFY(prompts > 0);
    searchEverywhereFor(m_fake.issuedValues());
}

// Claude Code's template on a person's own image: Debian with node (made here offline with
// mmdebstrap from the agents image's package cache, the pinned claude-code tarball laid out as
// npm would), imported as an OCI image, booted with the template: it starts signed in (the
// sign-ins above) and answers through the broker.
void TestAgents::claudeCodeRunsOnAnImportedImageWithNode()
{
    if (!m_box.isEmpty()) { // one TCG guest at a time
        QVERIFY2(m_daemon.killAndRemove(m_box), qPrintable(u"cannot remove sandbox %1"_s.arg(m_box)));
        m_box.clear();
    }
    const QString cache = qEnvironmentVariable("AIRLOCK_AGENTS_CACHE", u"/var/cache/airlock/agents"_s);
    const QStringList debs = QDir(cache).entryList({u"debs-*"_s}, QDir::Dirs);
    QVERIFY2(!debs.isEmpty(), "no Debian package cache of the agents image: run installers/setup.sh test");
    const QString out = m_dir.filePath(u"nodeimage"_s);
    QElapsedTimer t;
    t.start();
    QByteArray log;
    const int made = run(u"bash"_s, {u"-c"_s, QStringLiteral(R"sh(set -euo pipefail
out=$1 debs=$2 npm=$3 root=$1/rootfs
mkdir -p "$out"
mmdebstrap --quiet --variant=apt --include=nodejs,ca-certificates,bash bookworm "$root" "deb [trusted=yes] copy://$debs ./"
app="$root/usr/local/lib/node_modules/@anthropic-ai/claude-code"
mkdir -p "$app" "$root/usr/local/bin"
tar -xzf "$npm"/claude-code-*.tgz -C "$app" --strip-components=1 --no-same-owner
ln -s ../lib/node_modules/@anthropic-ai/claude-code/cli.js "$root/usr/local/bin/claude"
cd "$out"
umoci init --layout layout
umoci new --image layout:node
umoci unpack --image layout:node bundle >/dev/null
rm -rf bundle/rootfs && mv "$root" bundle/rootfs
umoci repack --image layout:node bundle >/dev/null
umoci config --image layout:node --os linux --architecture amd64 --config.env PATH=/usr/local/bin:/usr/bin:/bin --config.workingdir /root
rm -rf bundle)sh"), u"make-node-image"_s, out, cache + u'/' + debs.first(), cache + u"/npm"_s},
                         &log, 900000, &log);
    QVERIFY2(made == 0, log.right(3000).constData());
    qInfo("a Debian image with node and claude-code made in %.1f s", double(t.elapsed()) / 1000);
    t.restart();
    const QString image = uniqueName(u"agt-node"_s);
    CtlResult r = ctl({u"image"_s, u"import"_s, image, u"--oci"_s, out + u"/layout:node"_s}, 1800000);
    QVERIFY2(r.exitCode == 0, QByteArray(r.err + m_daemon.log().right(2000)).constData());
    qInfo("imported in %.1f s", double(t.elapsed()) / 1000);

    m_box = uniqueName(u"agt-onnode"_s);
    r = ctl({u"create"_s, m_box, u"--template"_s, u"claude-code"_s, u"--image"_s, image, u"--cpus"_s, u"2"_s, u"--memory"_s, u"1536"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(ctl({u"rule"_s, u"add"_s, u"--sandbox"_s, m_box, u"--action"_s, u"deny"_s, u"--host"_s, u"*"_s}).exitCode, 0);
    r = ctl({u"start"_s, m_box}, 300000);
    QVERIFY2(r.exitCode == 0, QByteArray(r.err + m_daemon.log().right(3000)).constData());
    const QJsonObject signIn = guestJson(u"/root/.claude/.credentials.json"_s).value("claudeAiOauth"_L1).toObject();
    QVERIFY2(!signIn.value("accessToken"_L1).toString().isEmpty(), "the imported image's sandbox has no sign-in file");
    const qsizetype before = messages().size();
    t.restart();
    r = guest(u"cd /root && claude -p 'say hi from an imported image' 2>&1"_s, 480);
    QVERIFY2(r.exitCode == 0 && r.out.contains(kCannedReply), QByteArray(r.out + r.err + "\n" + m_daemon.log().right(3000)).constData());
    qInfo("claude -p on the imported image: %.1f s", double(t.elapsed()) / 1000);
    const QList<TlsTestServer::Request> got = messages().mid(before);
    QVERIFY(!got.isEmpty());
    for (const auto &m : got)
        QCOMPARE(m.header("authorization"), "Bearer " + m_fake.lastIssued(FakeOAuth::Cli::Claude).access);
    searchEverywhereFor(m_fake.issuedValues());
    QVERIFY(m_daemon.killAndRemove(m_box));
    m_box.clear();
    QCOMPARE(ctl({u"image"_s, u"rm"_s, image}).exitCode, 0);
}

QTEST_GUILESS_MAIN(TestAgents)
#include "test_agents.moc"
