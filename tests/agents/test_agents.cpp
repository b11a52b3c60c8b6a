// Real agents in a real sandbox: a real airlockd builds the agents image with
// mmdebstrap (from the Debian and npm caches installers/setup.sh fills outside the test
// namespace), boots it under TCG from the claude-code template, and runs the real CLIs:
// `claude --version`, `codex --version`, and `claude -p "say hi"` against a fake Anthropic
// Messages API. That API is a small HTTPS server with its own test CA, in a network namespace
// this test makes (203.0.113.40 on its loopback), reached as api.anthropic.com through
// AIRLOCK_UPSTREAM_HOSTS / AIRLOCK_UPSTREAM_CA exactly as tests/secretsvm does; it answers one
// canned streamed reply and records what it received. Nothing here sends a packet anywhere
// else: every other host the CLI tries is denied by a rule of the sandbox, so nothing waits for
// a decision.
#include "daemonharness.h"
#include "netns.h"
#include "tlstestserver.h"

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

// One Messages API answer: streamed (server-sent events) when the request asked for a stream.
QByteArray messagesAnswer(const TlsTestServer::Request &r)
{
    const QJsonObject request = QJsonDocument::fromJson(r.body).object();
    const QString model = request.value("model"_L1).toString(u"claude-sonnet-4-5"_s);
    const QJsonObject usage{{u"input_tokens"_s, 12}, {u"output_tokens"_s, 9}};
    if (!request.value("stream"_L1).toBool()) {
        const QJsonObject message{{u"id"_s, u"msg_airlock_test"_s}, {u"type"_s, u"message"_s}, {u"role"_s, u"assistant"_s},
                                  {u"model"_s, model},
                                  {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s},
                                                                        {u"text"_s, QString::fromLatin1(kCannedReply)}}}},
                                  {u"stop_reason"_s, u"end_turn"_s}, {u"stop_sequence"_s, QJsonValue()}, {u"usage"_s, usage}};
        const QByteArray body = QJsonDocument(message).toJson(QJsonDocument::Compact);
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nrequest-id: req_airlock_test\r\nContent-Length: " +
               QByteArray::number(body.size()) + "\r\n\r\n" + body;
    }
    auto event = [](const char *name, const QJsonObject &data) -> QByteArray {
        return QByteArray("event: ") + name + "\ndata: " + QJsonDocument(data).toJson(QJsonDocument::Compact) + "\n\n";
    };
    QByteArray body;
    body += event("message_start",
                  {{u"type"_s, u"message_start"_s},
                   {u"message"_s, QJsonObject{{u"id"_s, u"msg_airlock_test"_s}, {u"type"_s, u"message"_s},
                                             {u"role"_s, u"assistant"_s}, {u"model"_s, model}, {u"content"_s, QJsonArray()},
                                             {u"stop_reason"_s, QJsonValue()}, {u"stop_sequence"_s, QJsonValue()},
                                             {u"usage"_s, QJsonObject{{u"input_tokens"_s, 12}, {u"output_tokens"_s, 1}}}}}});
    body += event("content_block_start", {{u"type"_s, u"content_block_start"_s}, {u"index"_s, 0},
                                          {u"content_block"_s, QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u""_s}}}});
    body += event("ping", {{u"type"_s, u"ping"_s}});
    body += event("content_block_delta",
                  {{u"type"_s, u"content_block_delta"_s}, {u"index"_s, 0},
                   {u"delta"_s, QJsonObject{{u"type"_s, u"text_delta"_s}, {u"text"_s, QString::fromLatin1(kCannedReply)}}}});
    body += event("content_block_stop", {{u"type"_s, u"content_block_stop"_s}, {u"index"_s, 0}});
    body += event("message_delta", {{u"type"_s, u"message_delta"_s},
                                    {u"delta"_s, QJsonObject{{u"stop_reason"_s, u"end_turn"_s}, {u"stop_sequence"_s, QJsonValue()}}},
                                    {u"usage"_s, QJsonObject{{u"output_tokens"_s, 9}}}});
    body += event("message_stop", {{u"type"_s, u"message_stop"_s}});
    return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nrequest-id: req_airlock_test\r\n"
           "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

QByteArray fakeAnthropic(const TlsTestServer::Request &r)
{
    if (r.method == "POST" && r.target.startsWith("/v1/messages") && !r.target.startsWith("/v1/messages/count_tokens"))
        return messagesAnswer(r);
    // Anything else the CLI asks the API host for: a clean, quick "no".
    const QByteArray body = R"({"type":"error","error":{"type":"not_found_error","message":"not in this fake"}})";
    return "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) +
           "\r\n\r\n" + body;
}

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
    void aMissingSecretSaysHowToAddItAndMakesNothing();
    void theClaudeCodeTemplateBootsWithItsSettings();
    void theAgentCLIsRun();
    void claudeAnswersThroughTheFakeApiWithTheRealKey();
    void theRealKeyNeverEntersTheGuest();
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
    m_pki->issue({"api.anthropic.com"}, &cert, &key);
    inNamespace(m_outside.name(), [&] { m_api = std::make_unique<TlsTestServer>(cert, key, kOutsideIp, 443); });
    X509_free(cert);
    EVP_PKEY_free(key);
    QCOMPARE(m_api->port(), quint16(443));
    m_api->setResponder(fakeAnthropic);
    QVERIFY2(DaemonHarness::setUpstream(m_dir.path(), "203.0.113.40 api.anthropic.com\n", m_pki->caPem(), &error),
             qPrintable(error));

    // Its own data dir, kept between runs: the agents image is built once per recipe digest.
    const QString dataDir = qEnvironmentVariable("AIRLOCK_AGENTS_TEST_DATA", m_dir.filePath(u"data"_s));
    QDir().mkpath(dataDir);
    QVERIFY2(m_daemon.start(dataDir, &error), qPrintable(error));
    const CtlResult v = m_daemon.initOrUnlockVault(kPassphrase);
    QVERIFY2(v.exitCode == 0, v.err.constData());
    // A run that crashed leaves its sandboxes (which borrow the secret) and the secret in the
    // kept data dir: clear both, or this run would test against the old loan.
    for (const QJsonValue &sandbox : ctl({u"ls"_s}).json().toArray()) {
        const QString name = sandbox.toObject().value("name"_L1).toString();
        if (name.startsWith("agt-"_L1))
            QVERIFY2(m_daemon.killAndRemove(name), qPrintable(u"cannot remove sandbox %1 of an earlier run"_s.arg(name)));
    }
    const CtlResult rm = ctl({u"secret"_s, u"rm"_s, u"anthropic"_s});
    QVERIFY2(rm.exitCode == 0 || rm.err.contains("no secret named"), rm.err.constData());
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

void TestAgents::aMissingSecretSaysHowToAddItAndMakesNothing()
{
    const QString name = uniqueName(u"agt-nokey"_s);
    CtlResult r = ctl({u"create"_s, name, u"--template"_s, u"claude-code"_s});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("secret set anthropic --host api.anthropic.com --header 'x-api-key: {}'"), r.err.constData());
    // Bound the wrong way (a Bearer header) is refused too: the key would never be injected.
    r = ctl({u"secret"_s, u"set"_s, u"anthropic"_s, u"--host"_s, u"api.anthropic.com"_s}, 60000, kRealKey + '\n');
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

QTEST_GUILESS_MAIN(TestAgents)
#include "test_agents.moc"
