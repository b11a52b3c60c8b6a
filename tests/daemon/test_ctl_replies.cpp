// airlockctl against a daemon that answers what the test says: a reply that is not the
// payload the protocol names is refused with the field that is wrong, and --json prints a
// good reply exactly as it came. The real airlockd cannot send a malformed reply, so this
// stand-in is the only way to make one; the real daemon's replies are covered by
// test_rule_cli, test_vault_cli, test_multiuser and the engine tests.
#include "api/jsonrpc.h"
#include "daemonprocess.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

using namespace airlock;

namespace {

// Answers each request with the reply set for its method (subscribe: the topics asked for),
// one connection at a time, until stopped.
class FakeDaemon {
public:
    explicit FakeDaemon(const QString &path)
    {
        m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        const QByteArray p = QFile::encodeName(path);
        std::memcpy(a.sun_path, p.constData(), size_t(p.size()));
        m_listening = ::bind(m_fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 && ::listen(m_fd, 4) == 0;
        m_thread = std::thread([this] { serve(); });
    }
    ~FakeDaemon()
    {
        m_stop = true;
        m_thread.join();
        ::close(m_fd);
    }
    bool listening() const { return m_listening; }
    void answer(const QString &method, const QJsonValue &reply)
    {
        QMutexLocker lock(&m_lock);
        m_replies.insert(method, reply);
    }

private:
    void serve()
    {
        while (!m_stop) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0)
                continue;
            const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (c >= 0) {
                talk(c);
                ::close(c);
            }
        }
    }
    void talk(int c)
    {
        QByteArray buffer;
        char chunk[65536];
        for (;;) {
            qsizetype nl;
            while ((nl = buffer.indexOf('\n')) >= 0) {
                const QJsonObject request = QJsonDocument::fromJson(buffer.left(nl)).object();
                buffer.remove(0, nl + 1);
                const QByteArray out = replyTo(request);
                if (::send(c, out.constData(), size_t(out.size()), MSG_NOSIGNAL) != out.size())
                    return;
            }
            const ssize_t n = ::recv(c, chunk, sizeof chunk, 0);
            if (n <= 0)
                return;
            buffer.append(chunk, n);
        }
    }
    QByteArray replyTo(const QJsonObject &request)
    {
        const QJsonValue id = request.value(QLatin1String("id"));
        const QString method = request.value(QLatin1String("method")).toString();
        if (method == QLatin1String("subscribe"))
            return rpc::encodeResult(id, request.value(QLatin1String("params")).toObject().value(QLatin1String("topics")));
        QMutexLocker lock(&m_lock);
        if (!m_replies.contains(method))
            return rpc::encodeError(id, -32601, QStringLiteral("the test set no reply for ") + method);
        return rpc::encodeResult(id, m_replies.value(method));
    }

    int m_fd = -1;
    bool m_listening = false;
    std::atomic<bool> m_stop{false};
    QMutex m_lock;
    QHash<QString, QJsonValue> m_replies;
    std::thread m_thread;
};

struct Run {
    int exitCode = -1;
    QByteArray out;
    QString err;
};

QJsonObject object(const char *json) { return QJsonDocument::fromJson(json).object(); }

// One good reply of each method a command reads.
QJsonObject statusReply()
{
    return object("{\"version\": \"9.9.9\", \"libvirt_uri\": \"qemu:///system\", \"accel\": \"tcg\", \"vault\": \"locked\", "
                  "\"sandboxes\": 3, \"egress\": {\"enforcing\": true, \"nft_table\": \"airlock\", \"proxy_port\": 3128, "
                  "\"dns_port\": 5353, \"sandboxes\": 1, \"hold_timeout_s\": 60}}");
}
QJsonObject sandboxReply()
{
    return object("{\"name\": \"agent1\", \"state\": \"running\", \"image\": \"tiny\", \"ip\": \"10.203.0.2\", \"pending\": 2, "
                  "\"cpus\": 1, \"memory_mib\": 256, \"disk_gib\": 2, \"uptime_s\": 5}");
}
QJsonObject ruleReply()
{
    return object("{\"id\": 7, \"scope\": \"global\", \"sandbox\": null, \"action\": \"allow\", \"pattern\": \"*.npmjs.org\", \"port\": 443, "
                  "\"expires\": null, \"once\": false, \"raw_tcp\": false, \"owner_uid\": 0}");
}
QJsonObject imageReply()
{
    return object("{\"name\": \"tiny\", \"kernel\": \"6.1.0\", \"size_bytes\": 52428800, \"created\": \"2026-01-01T00:00:00Z\", "
                  "\"recipe\": \"tiny\"}");
}
QJsonObject snapshotReply()
{
    return object("{\"id\": 4, \"label\": \"before\", \"parent\": null, \"created\": \"2026-01-01T00:00:00Z\", \"current\": true}");
}
QJsonObject templateReply()
{
    return object("{\"name\": \"claude\", \"description\": \"d\", \"image\": \"agent\", \"cpus\": 2, \"memory_mib\": 2048, \"disk_gib\": 8, "
                  "\"presets\": [\"anthropic\"], \"opt_in_presets\": [\"npm\"], \"console\": \"claude\", \"env\": {}, "
                  "\"secret\": {\"name\": \"anthropic\", \"env\": \"ANTHROPIC_API_KEY\", \"hosts\": [\"api.anthropic.com\"], "
                  "\"header\": \"x-api-key: {}\"}}");
}
QJsonObject secretReply()
{
    return object("{\"name\": \"gh\", \"hosts\": [\"api.github.com\"], \"header\": \"Authorization: Bearer {}\", \"used_by\": [\"agent1\"]}");
}

// `base` with `key` set to `value` (undefined: removed).
QJsonObject with(QJsonObject base, const char *key, const QJsonValue &value)
{
    if (value.isUndefined())
        base.remove(QLatin1String(key));
    else
        base.insert(QLatin1String(key), value);
    return base;
}

} // namespace

class TestCtlReplies : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase() { m_daemon.reset(); }
    void goodRepliesArePrinted_data();
    void goodRepliesArePrinted();
    void jsonIsTheReplyAsSent_data();
    void jsonIsTheReplyAsSent();
    void execExitsWithTheCommandsCode();
    void malformedRepliesAreRefused_data();
    void malformedRepliesAreRefused();

private:
    Run ctl(const QStringList &args);
    void setGoodReplies();

    QTemporaryDir m_dir;
    QString m_socket;
    std::unique_ptr<FakeDaemon> m_daemon;
};

void TestCtlReplies::initTestCase()
{
    QVERIFY2(!qEnvironmentVariableIsEmpty("AIRLOCKCTL_BIN"), "run through ctest: AIRLOCKCTL_BIN is not set");
    QVERIFY(m_dir.isValid());
    m_socket = m_dir.filePath(QStringLiteral("fake.sock"));
    m_daemon = std::make_unique<FakeDaemon>(m_socket);
    QVERIFY(m_daemon->listening());
}

void TestCtlReplies::setGoodReplies()
{
    m_daemon->answer(QStringLiteral("status"), statusReply());
    m_daemon->answer(QStringLiteral("sandbox.list"), QJsonArray{sandboxReply()});
    m_daemon->answer(QStringLiteral("sandbox.start"), sandboxReply());
    m_daemon->answer(QStringLiteral("sandbox.remove"), object("{\"name\": \"agent1\", \"state\": \"removed\"}"));
    m_daemon->answer(QStringLiteral("sandbox.create"), object("{\"name\": \"agent2\", \"state\": \"stopped\", \"image\": \"tiny\", "
                  "\"ip\": \"10.203.0.6\", \"template\": \"claude\"}"));
    m_daemon->answer(QStringLiteral("sandbox.fork"), object("{\"name\": \"agent3\", \"state\": \"stopped\", \"image\": \"tiny\", "
                  "\"ip\": \"10.203.0.10\"}"));
    m_daemon->answer(QStringLiteral("image.list"), QJsonArray{imageReply()});
    m_daemon->answer(QStringLiteral("image.build"), with(imageReply(), "cached", true));
    m_daemon->answer(QStringLiteral("snapshot.list"), QJsonArray{snapshotReply()});
    m_daemon->answer(QStringLiteral("snapshot.create"), with(with(snapshotReply(), "sandbox", QStringLiteral("agent1")), "current",
                                                             QJsonValue::Undefined));
    m_daemon->answer(QStringLiteral("template.list"), QJsonArray{templateReply()});
    m_daemon->answer(QStringLiteral("secret.list"), QJsonArray{secretReply()});
    m_daemon->answer(QStringLiteral("rule.list"), QJsonArray{ruleReply()});
    m_daemon->answer(QStringLiteral("rule.add"), ruleReply());
    m_daemon->answer(QStringLiteral("vault.status"), object("{\"vault\": \"unlocked\", \"keyring\": false}"));
    m_daemon->answer(QStringLiteral("sandbox.exec"), object("{\"exit_code\": 3, \"stdout_b64\": \"aGVsbG8K\", \"stderr_b64\": \"\", "
                  "\"timed_out\": false}"));
}

Run TestCtlReplies::ctl(const QStringList &args)
{
    const DaemonProcess::CtlResult r = DaemonProcess::ctlAt(m_socket, args, {}, 30000);
    return {r.exitCode, r.out, QString::fromUtf8(r.err)};
}

void TestCtlReplies::goodRepliesArePrinted_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("lines"); // each must appear in the output
    auto row = [](const char *name, const QString &args, const QStringList &lines) {
        QTest::newRow(name) << args.split(QLatin1Char(' ')) << lines;
    };
    row("status", QStringLiteral("status"), {QStringLiteral("airlockd 9.9.9"), QStringLiteral("  libvirt:    qemu:///system (tcg)"),
                                             QStringLiteral("  vault:      locked"), QStringLiteral("  sandboxes:  3")});
    row("ls", QStringLiteral("ls"), {QStringLiteral("agent1                   running   tiny         10.203.0.2       2")});
    row("start", QStringLiteral("start agent1"), {QStringLiteral("agent1: running, image tiny, ip 10.203.0.2")});
    row("create", QStringLiteral("create agent2"), {QStringLiteral("agent2: stopped, image tiny, ip 10.203.0.6")});
    row("fork", QStringLiteral("fork agent1 4 agent3"), {QStringLiteral("agent3: stopped, ip 10.203.0.10")});
    row("image ls", QStringLiteral("image ls"), {QStringLiteral("tiny                 50.0 MiB     2026-01-01T00:00:00Z   6.1.0")});
    row("image build", QStringLiteral("image build tiny"), {QStringLiteral("image tiny ready (50.0 MiB) [cached]")});
    row("snapshot ls", QStringLiteral("snapshot ls agent1"), {QStringLiteral("4      -       2026-01-01T00:00:00Z   *        -         before")});
    row("snapshot create", QStringLiteral("snapshot create agent1"), {QStringLiteral("snapshot 4 of agent1")});
    row("template ls", QStringLiteral("template ls"),
        {QStringLiteral("claude       agent    anthropic  anthropic=ANTHROPIC_API_KEY claude     npm")});
    row("secret ls", QStringLiteral("secret ls"),
        {QStringLiteral("gh                   api.github.com                   Authorization: Bearer {}       -                      agent1")});
    row("rule ls", QStringLiteral("rule ls"),
        {QStringLiteral("7      global   -                allow  *.npmjs.org                        443    never    -")});
    row("vault status", QStringLiteral("vault status"), {QStringLiteral("vault: unlocked")});
}

void TestCtlReplies::goodRepliesArePrinted()
{
    QFETCH(QStringList, args);
    QFETCH(QStringList, lines);
    setGoodReplies();
    const Run r = ctl(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString out = QString::fromUtf8(r.out).simplified(); // the columns' padding is not the point
    for (const QString &line : lines)
        QVERIFY2(out.contains(line.simplified()), qPrintable(QStringLiteral("no \"%1\" in:\n%2").arg(line, QString::fromUtf8(r.out))));
}

void TestCtlReplies::jsonIsTheReplyAsSent_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("method");
    QTest::newRow("status") << QStringList{QStringLiteral("status")} << QStringLiteral("status");
    QTest::newRow("ls") << QStringList{QStringLiteral("ls")} << QStringLiteral("sandbox.list");
    QTest::newRow("rm") << QStringList{QStringLiteral("rm"), QStringLiteral("agent1")} << QStringLiteral("sandbox.remove");
    QTest::newRow("rule add") << QStringList{QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--global"),
                                             QStringLiteral("--action"), QStringLiteral("allow"), QStringLiteral("--host"),
                                             QStringLiteral("x.org")}
                              << QStringLiteral("rule.add");
    QTest::newRow("template ls") << QStringList{QStringLiteral("template"), QStringLiteral("ls")} << QStringLiteral("template.list");
}

// --json is a contract: the reply field for field, also a field this airlockctl does not know.
void TestCtlReplies::jsonIsTheReplyAsSent()
{
    QFETCH(QStringList, args);
    QFETCH(QString, method);
    setGoodReplies();
    const Run plain = ctl(QStringList{QStringLiteral("--json")} + args);
    QVERIFY2(plain.exitCode == 0, qPrintable(plain.err));
    const QJsonDocument printed = QJsonDocument::fromJson(plain.out);
    QVERIFY(!printed.isNull());

    // The same reply with one more field (in the object, or in the array's first row).
    QJsonValue extended;
    if (printed.isArray()) {
        QJsonArray rows = printed.array();
        rows.replace(0, with(rows.first().toObject(), "from_a_newer_daemon", 1));
        extended = rows;
    } else {
        extended = with(printed.object(), "from_a_newer_daemon", 1);
    }
    m_daemon->answer(method, extended);
    const Run r = ctl(QStringList{QStringLiteral("--json")} + args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonDocument again = QJsonDocument::fromJson(r.out);
    QCOMPARE(again.isArray() ? QJsonValue(again.array()) : QJsonValue(again.object()), extended);
}

void TestCtlReplies::execExitsWithTheCommandsCode()
{
    setGoodReplies();
    const Run r = ctl({QStringLiteral("exec"), QStringLiteral("agent1"), QStringLiteral("--"), QStringLiteral("true")});
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(r.out, QByteArray("hello\n"));
}

void TestCtlReplies::malformedRepliesAreRefused_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("method");
    QTest::addColumn<QJsonValue>("reply");
    QTest::addColumn<QString>("field"); // the error names it
    auto row = [](const char *name, const QString &args, const char *method, const QJsonValue &reply, const char *field) {
        QTest::newRow(name) << args.split(QLatin1Char(' ')) << QString::fromLatin1(method) << reply << QString::fromLatin1(field);
    };
    row("status", QStringLiteral("status"), "status", with(statusReply(), "sandboxes", QStringLiteral("three")), "\"sandboxes\"");
    row("status vault", QStringLiteral("status"), "status", with(statusReply(), "vault", QStringLiteral("open")), "vault");
    row("ls", QStringLiteral("ls"), "sandbox.list", QJsonArray{with(sandboxReply(), "ip", QJsonValue::Undefined)}, "\"ip\"");
    row("ls not an array", QStringLiteral("ls"), "sandbox.list", sandboxReply(), "array");
    row("start", QStringLiteral("start agent1"), "sandbox.start", with(sandboxReply(), "state", QStringLiteral("exploded")), "state");
    row("create", QStringLiteral("create agent2"), "sandbox.create", with(sandboxReply(), "image", 5), "\"image\"");
    row("fork", QStringLiteral("fork agent1 4 agent3"), "sandbox.fork", with(sandboxReply(), "ip", QJsonValue::Undefined), "\"ip\"");
    row("exec", QStringLiteral("exec agent1 -- true"), "sandbox.exec", object("{\"exit_code\": \"x\", \"stdout_b64\": \"\", "
                  "\"stderr_b64\": \"\", \"timed_out\": false}"),
        "\"exit_code\"");
    row("image ls", QStringLiteral("image ls"), "image.list", QJsonArray{with(imageReply(), "size_bytes", QStringLiteral("big"))},
        "\"size_bytes\"");
    row("image build", QStringLiteral("image build tiny"), "image.build", with(imageReply(), "name", QJsonValue::Undefined),
        "\"name\"");
    row("snapshot ls", QStringLiteral("snapshot ls agent1"), "snapshot.list",
        QJsonArray{with(snapshotReply(), "created", QStringLiteral("yesterday"))}, "\"created\"");
    row("snapshot create", QStringLiteral("snapshot create agent1"), "snapshot.create",
        with(snapshotReply(), "id", QJsonValue::Undefined), "\"id\"");
    row("template ls", QStringLiteral("template ls"), "template.list",
        QJsonArray{with(templateReply(), "presets", QJsonValue::Undefined)}, "\"presets\"");
    row("secret ls", QStringLiteral("secret ls"), "secret.list", QJsonArray{with(secretReply(), "hosts", QStringLiteral("a.com"))},
        "\"hosts\"");
    row("rule ls", QStringLiteral("rule ls"), "rule.list", QJsonArray{with(ruleReply(), "action", QStringLiteral("maybe"))},
        "\"action\"");
    row("rule add", QStringLiteral("rule add --global --action allow --host x.org"), "rule.add",
        with(ruleReply(), "id", QJsonValue::Undefined), "\"id\"");
    row("vault status", QStringLiteral("vault status"), "vault.status", object("{\"vault\": \"open\", \"keyring\": false}"), "vault");
}

void TestCtlReplies::malformedRepliesAreRefused()
{
    QFETCH(QStringList, args);
    QFETCH(QString, method);
    QFETCH(QJsonValue, reply);
    QFETCH(QString, field);
    setGoodReplies();
    m_daemon->answer(method, reply);
    const Run r = ctl(args);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QStringLiteral("cannot read the daemon's %1 reply").arg(method)), qPrintable(r.err));
    QVERIFY2(r.err.contains(field), qPrintable(r.err));
    QVERIFY2(r.out.isEmpty(), r.out.constData()); // nothing half-read is printed
}

QTEST_GUILESS_MAIN(TestCtlReplies)
#include "test_ctl_replies.moc"
