// The protocol library (app/protocol): every payload survives toJson -> fromJson; a missing
// required field or a field of the wrong type is an error that names the field; the wire
// names are today's.
#include "protocol/protocol.h"

#include <QJsonDocument>
#include <QTest>

using namespace airlock;
using namespace airlock::proto;

namespace {

QDateTime at(const char *iso) { return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs); }

// A value of a type no field of `sample` has under `key`.
QJsonValue wrongType(const QJsonValue &v)
{
    if (v.isArray())
        return true;
    if (v.isObject())
        return QJsonArray{};
    return QJsonArray{QStringLiteral("x")};
}

// The full check of one payload: round trip, every field mistyped, every required field
// missing, and no field the struct does not read left over.
template <typename T>
void checkPayload(const T &sample, const QStringList &required)
{
    const QJsonObject wire = sample.toJson();
    Result<T> back = T::fromJson(wire);
    QVERIFY2(back.ok(), qPrintable(back.error().message()));
    QVERIFY2(back.value() == sample, QJsonDocument(wire).toJson(QJsonDocument::Compact).constData());
    QCOMPARE(back->toJson(), wire);

    for (auto it = wire.begin(); it != wire.end(); ++it) {
        QJsonObject bad = wire;
        bad.insert(it.key(), wrongType(it.value()));
        Result<T> r = T::fromJson(bad);
        QVERIFY2(!r.ok(), qPrintable(QStringLiteral("%1 of the wrong type was accepted").arg(it.key())));
        QVERIFY2(r.error().why.startsWith(QStringLiteral("\"%1\"").arg(it.key())), qPrintable(r.error().message()));
        QVERIFY(r.error().what.startsWith(QStringLiteral("invalid ")));
        QCOMPARE(r.error().kind, kInvalidPayload);
    }
    for (const QString &key : required) {
        QVERIFY2(wire.contains(key), qPrintable(key));
        QJsonObject missing = wire;
        missing.remove(key);
        Result<T> r = T::fromJson(missing);
        QVERIFY2(!r.ok(), qPrintable(QStringLiteral("%1 missing was accepted").arg(key)));
        QCOMPARE(r.error().why, QStringLiteral("\"%1\" is missing").arg(key));
    }
}

SandboxRow sampleRow()
{
    SandboxRow r;
    r.name = QStringLiteral("dev");
    r.state = SandboxState::Running;
    r.image = QStringLiteral("tiny");
    r.ip = QStringLiteral("10.77.0.2");
    r.pending = 2;
    r.cpus = 2;
    r.memoryMib = 512;
    r.diskGib = 4;
    r.uptimeS = 61;
    r.disk = DiskUsage{1 << 20, 4 << 20, false};
    return r;
}

EgressEvent sampleEvent()
{
    EgressEvent e;
    e.id = 42;
    e.sandbox = QStringLiteral("dev");
    e.time = at("2026-11-30T15:43:37.123Z");
    e.proto = QStringLiteral("https");
    e.host = QStringLiteral("registry.npmjs.org");
    e.ip = QStringLiteral("198.18.0.7");
    e.port = 443;
    e.sni = QStringLiteral("registry.npmjs.org");
    e.method = QStringLiteral("GET");
    e.path = QStringLiteral("/left-pad");
    e.decision = Decision::Pending;
    e.rule = 7;
    e.reason = QStringLiteral("held for a person");
    e.bytesUp = 10;
    e.bytesDown = 20;
    e.durationMs = 30;
    e.count = 3;
    return e;
}

RuleInfo sampleRule()
{
    RuleInfo r;
    r.id = 9;
    r.sandbox = QStringLiteral("dev");
    r.allow = true;
    r.pattern = QStringLiteral("*.npmjs.org");
    r.port = 443;
    r.expires = at("2026-12-01T00:00:00Z");
    r.once = true;
    r.rawTcp = true;
    r.ownerUid = 1000;
    return r;
}

} // namespace

class TestProtocol : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void enumWireNames();
    void unknownEnumNameIsRefused();
    void sandboxPayloads();
    void removedSandboxNeedsOnlyItsName();
    void imagePayloads();
    void snapshotAndConsolePayloads();
    void egressPayloads();
    void egressEventWireIsFixed();
    void nullRuleIsNoRule();
    void ruleScopeMustAgreeWithSandbox();
    void vaultAndStatusPayloads();
    void eventPayloads();
    void timesAreIsoOnly();
    void listErrorsNameTheItem();
    void namesAreDistinct();
};

void TestProtocol::enumWireNames()
{
    QCOMPARE(toString(Decision::Allowed), QStringLiteral("allowed"));
    QCOMPARE(toString(Decision::Denied), QStringLiteral("denied"));
    QCOMPARE(toString(Decision::Pending), QStringLiteral("pending"));
    QCOMPARE(toString(Decision::Dropped), QStringLiteral("dropped"));
    QCOMPARE(toString(VaultState::Uninitialised), QStringLiteral("uninitialised"));
    QCOMPARE(toString(VaultState::Locked), QStringLiteral("locked"));
    QCOMPARE(toString(VaultState::Unlocked), QStringLiteral("unlocked"));
    const QStringList states{QStringLiteral("running"), QStringLiteral("paused"), QStringLiteral("stopping"),
                             QStringLiteral("stopped"), QStringLiteral("crashed"), QStringLiteral("suspended"),
                             QStringLiteral("missing"), QStringLiteral("unknown"), QStringLiteral("removed")};
    for (const QString &s : states) {
        Result<SandboxState> r = sandboxStateFromString(s);
        QVERIFY2(r.ok(), qPrintable(s));
        QCOMPARE(toString(r.value()), s);
    }
    for (Decision d : {Decision::Allowed, Decision::Denied, Decision::Pending, Decision::Dropped})
        QCOMPARE(decisionFromString(toString(d)).value(), d);
    for (VaultState v : {VaultState::Uninitialised, VaultState::Locked, VaultState::Unlocked})
        QCOMPARE(vaultStateFromString(toString(v)).value(), v);
}

void TestProtocol::unknownEnumNameIsRefused()
{
    // The GUI once took "allow" and "deny" for decisions and "deleted" for removed: no more.
    for (const char *text : {"allow", "deny", "ask", "", "Allowed"}) {
        Result<Decision> r = decisionFromString(QString::fromLatin1(text));
        QVERIFY2(!r.ok(), text);
        QVERIFY2(r.error().why.startsWith(QStringLiteral("\"decision\" is \"%1\"; it must be one of allowed, denied, pending, dropped")
                                               .arg(QLatin1String(text))),
                 qPrintable(r.error().why));
    }
    QVERIFY(!sandboxStateFromString(QStringLiteral("deleted")).ok());
    QVERIFY(!vaultStateFromString(QStringLiteral("open")).ok());
    QJsonObject row = sampleRow().toJson();
    row.insert(QStringLiteral("state"), QStringLiteral("deleted"));
    Result<SandboxRow> r = SandboxRow::fromJson(row);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().message(), QStringLiteral("invalid sandbox row: \"state\" is \"deleted\"; it must be one of running, paused, "
                                                 "stopping, stopped, crashed, suspended, missing, unknown, removed"));
}

void TestProtocol::sandboxPayloads()
{
    const QStringList rowKeys{QStringLiteral("name"), QStringLiteral("state"), QStringLiteral("image"), QStringLiteral("ip"),
                              QStringLiteral("pending"), QStringLiteral("cpus"), QStringLiteral("memory_mib"),
                              QStringLiteral("disk_gib"), QStringLiteral("uptime_s"), QStringLiteral("disk_total_bytes"),
                              QStringLiteral("disk_full")};
    checkPayload(sampleRow(), rowKeys);
    SandboxRow eventRow = sampleRow();
    eventRow.disk.reset(); // the `sandbox` event: no disk fields
    checkPayload(eventRow, rowKeys.mid(0, 9));
    QCOMPARE(eventRow.toJson().keys().size(), 9);

    SandboxCreateParams create;
    create.name = QStringLiteral("dev");
    create.image = QStringLiteral("agents");
    create.templateName = QStringLiteral("claude");
    create.cpus = 2;
    create.memoryMib = 1024;
    create.diskGib = 8;
    create.env = {{QStringLiteral("A"), QStringLiteral("1")}};
    create.secrets = {SecretLoan{QStringLiteral("gh"), QStringLiteral("GH_TOKEN")}, SecretLoan{QStringLiteral("npm"), std::nullopt}};
    create.presets = {QStringLiteral("npm")};
    create.start = true;
    create.bootTimeoutS = 300;
    checkPayload(create, {QStringLiteral("name")});
    QCOMPARE(SandboxCreateParams{QStringLiteral("x")}.toJson(), (QJsonObject{{QStringLiteral("name"), QStringLiteral("x")}}));

    checkPayload(SandboxCreated{QStringLiteral("dev"), SandboxState::Stopped, QStringLiteral("tiny"), QStringLiteral("10.77.0.2"),
                                QStringLiteral("claude")},
                 {QStringLiteral("name"), QStringLiteral("state"), QStringLiteral("image"), QStringLiteral("ip")});
    checkPayload(NameParams{QStringLiteral("dev")}, {QStringLiteral("name")});
    checkPayload(SandboxStartParams{QStringLiteral("dev"), false, 60}, {QStringLiteral("name")});
    checkPayload(SandboxStopParams{QStringLiteral("dev"), 5}, {QStringLiteral("name")});
    checkPayload(ExecParams{QStringLiteral("dev"), {QStringLiteral("ls"), QStringLiteral("-l")}, QByteArray("in\0put", 6), 10},
                 {QStringLiteral("name"), QStringLiteral("argv")});
    checkPayload(ExecResult{124, QByteArray("out"), QByteArray("\xff\x00", 2), true},
                 {QStringLiteral("exit_code"), QStringLiteral("stdout_b64"), QStringLiteral("stderr_b64"), QStringLiteral("timed_out")});
    checkPayload(ForkParams{QStringLiteral("dev"), 3, QStringLiteral("dev2"), true},
                 {QStringLiteral("sandbox"), QStringLiteral("id"), QStringLiteral("new_name")});
    checkPayload(FilePushParams{QStringLiteral("dev"), QStringLiteral("/tmp/a"), QByteArray("abc"), 3},
                 {QStringLiteral("name"), QStringLiteral("path"), QStringLiteral("data_b64")});
    checkPayload(WrittenResult{3}, {QStringLiteral("written")});
    checkPayload(FilePullParams{QStringLiteral("dev"), QStringLiteral("/tmp/a"), 0, 4096}, {QStringLiteral("name"), QStringLiteral("path")});
    checkPayload(FilePullResult{QByteArray("abc"), true}, {QStringLiteral("data_b64"), QStringLiteral("eof")});

    QJsonObject notBase64 = FilePullResult{QByteArray("abc"), true}.toJson();
    notBase64.insert(QStringLiteral("data_b64"), QStringLiteral("%%%"));
    QCOMPARE(FilePullResult::fromJson(notBase64).error().why, QStringLiteral("\"data_b64\" must be base64"));
}

void TestProtocol::removedSandboxNeedsOnlyItsName()
{
    const QJsonObject wire{{QStringLiteral("name"), QStringLiteral("dev")}, {QStringLiteral("state"), QStringLiteral("removed")}};
    Result<SandboxRow> r = SandboxRow::fromJson(wire);
    QVERIFY2(r.ok(), qPrintable(r.error().message()));
    QCOMPARE(r.value(), SandboxRow::removed(QStringLiteral("dev")));
    QCOMPARE(r->toJson(), wire);
    checkPayload(SandboxRow::removed(QStringLiteral("dev")), {QStringLiteral("name"), QStringLiteral("state")});
}

void TestProtocol::imagePayloads()
{
    checkPayload(ImageInfo{QStringLiteral("tiny"), QStringLiteral("tiny-vmlinuz"), 1234, at("2026-11-30T15:43:37Z"),
                           QStringLiteral("tiny"), true},
                 {QStringLiteral("name"), QStringLiteral("kernel"), QStringLiteral("size_bytes"), QStringLiteral("recipe")});
    checkPayload(ImageBuildParams{QStringLiteral("agents"), QStringLiteral("mine")}, {QStringLiteral("recipe")});
    checkPayload(ImageCancelResult{QStringLiteral("mine"), true}, {QStringLiteral("name"), QStringLiteral("cancelled")});
    TemplateInfo t;
    t.name = QStringLiteral("claude");
    t.description = QStringLiteral("Claude Code");
    t.image = QStringLiteral("agents");
    t.cpus = 2;
    t.memoryMib = 2048;
    t.diskGib = 8;
    t.presets = {QStringLiteral("anthropic")};
    t.optInPresets = {QStringLiteral("npm"), QStringLiteral("pypi")};
    t.console = QStringLiteral("claude");
    t.env = {{QStringLiteral("TERM"), QStringLiteral("xterm")}};
    t.secret = TemplateSecret{QStringLiteral("anthropic"), QStringLiteral("ANTHROPIC_API_KEY"), {QStringLiteral("api.anthropic.com")},
                              QStringLiteral("x-api-key: {}")};
    checkPayload(t, {QStringLiteral("name"), QStringLiteral("description"), QStringLiteral("image"), QStringLiteral("cpus"),
                     QStringLiteral("memory_mib"), QStringLiteral("disk_gib"), QStringLiteral("presets"),
                     QStringLiteral("opt_in_presets"), QStringLiteral("console"), QStringLiteral("env")});
    QJsonObject badSecret = t.toJson();
    badSecret.insert(QStringLiteral("secret"), QJsonObject{{QStringLiteral("name"), QStringLiteral("x")}});
    QCOMPARE(TemplateInfo::fromJson(badSecret).error().message(), QStringLiteral("invalid template: \"secret\": \"env\" is missing"));

    PresetInfo p{QStringLiteral("npm"), QStringLiteral("the npm registry"),
                 {PresetRuleInfo{QStringLiteral("registry.npmjs.org"), 443, QStringLiteral("packages")},
                  PresetRuleInfo{QStringLiteral("*.npmjs.com"), 0, QStringLiteral("docs")}}};
    checkPayload(p, {QStringLiteral("name"), QStringLiteral("description"), QStringLiteral("rules")});
    checkPayload(p.rules.first(), {QStringLiteral("host"), QStringLiteral("why")});
}

void TestProtocol::snapshotAndConsolePayloads()
{
    checkPayload(SnapshotInfo{5, QStringLiteral("dev"), QStringLiteral("clean"), 4, at("2026-11-30T15:43:37Z"), true},
                 {QStringLiteral("id"), QStringLiteral("label"), QStringLiteral("created")});
    checkPayload(SnapshotInfo{5, std::nullopt, QStringLiteral("first"), std::nullopt, at("2026-11-30T15:43:37Z"), false}, {});
    QVERIFY(SnapshotInfo{}.toJson().value(QLatin1String("parent")).isNull()); // the first snapshot's parent is null
    checkPayload(SnapshotCreateParams{QStringLiteral("dev"), QStringLiteral("clean")}, {QStringLiteral("sandbox")});
    checkPayload(SnapshotRef{QStringLiteral("dev"), 5}, {QStringLiteral("sandbox")});
    checkPayload(ConsoleAttachResult{QByteArray("$ "), topic::console(QStringLiteral("dev")), SandboxState::Running},
                 {QStringLiteral("history_b64"), QStringLiteral("topic"), QStringLiteral("state")});
    QCOMPARE(topic::console(QStringLiteral("dev")), QStringLiteral("console:dev"));
    checkPayload(ConsoleWriteParams{QStringLiteral("dev"), QByteArray("ls\n")}, {QStringLiteral("name"), QStringLiteral("data_b64")});
    checkPayload(ConsoleSize{QStringLiteral("dev"), 24, 80}, {QStringLiteral("rows"), QStringLiteral("cols")});
    checkPayload(ConsoleOutput{QByteArray("\x1b[0m", 4)}, {QStringLiteral("data_b64")});
}

void TestProtocol::egressPayloads()
{
    checkPayload(sampleEvent(), {QStringLiteral("id"), QStringLiteral("sandbox"), QStringLiteral("time"), QStringLiteral("proto"),
                                 QStringLiteral("host"), QStringLiteral("ip"), QStringLiteral("port"), QStringLiteral("sni"),
                                 QStringLiteral("method"), QStringLiteral("path"), QStringLiteral("decision"),
                                 QStringLiteral("reason"), QStringLiteral("bytes_up"), QStringLiteral("bytes_down"),
                                 QStringLiteral("duration_ms")});
    checkPayload(EgressListParams{QStringLiteral("dev"), true, 50, 1000}, {});
    checkPayload(EgressDecideParams{42, QStringLiteral("allow"), QStringLiteral("sandbox"), QStringLiteral("domain"), 3600, true},
                 {QStringLiteral("id"), QStringLiteral("action")});
    const QStringList ruleKeys{QStringLiteral("id"), QStringLiteral("scope"), QStringLiteral("action"), QStringLiteral("pattern"),
                               QStringLiteral("port"), QStringLiteral("once"), QStringLiteral("raw_tcp"), QStringLiteral("owner_uid")};
    checkPayload(sampleRule(), ruleKeys);
    RuleInfo global = sampleRule();
    global.sandbox.reset();
    global.expires.reset();
    global.allow = false;
    checkPayload(global, ruleKeys);
    QCOMPARE(global.toJson().value(QLatin1String("scope")).toString(), QStringLiteral("global"));
    QVERIFY(global.toJson().value(QLatin1String("sandbox")).isNull());
    QVERIFY(global.toJson().value(QLatin1String("expires")).isNull());
    checkPayload(RuleListParams{QStringLiteral("dev")}, {});
    checkPayload(RuleAddParams{QStringLiteral("dev"), false, QStringLiteral("allow"), QStringLiteral("example.com"), 443, 60, true, true},
                 {QStringLiteral("action"), QStringLiteral("host")});
    checkPayload(IdParams{7}, {QStringLiteral("id")});
}

void TestProtocol::egressEventWireIsFixed()
{
    // Byte for byte what the daemon sent before the library: scripts read it.
    const QByteArray wire = QJsonDocument(sampleEvent().toJson()).toJson(QJsonDocument::Compact);
    QCOMPARE(wire, QByteArray(R"({"bytes_down":20,"bytes_up":10,"count":3,"decision":"pending","duration_ms":30,)"
                              R"("host":"registry.npmjs.org","id":42,"ip":"198.18.0.7","method":"GET","path":"/left-pad",)"
                              R"("port":443,"proto":"https","reason":"held for a person","rule":7,"sandbox":"dev",)"
                              R"("sni":"registry.npmjs.org","time":"2026-11-30T15:43:37.123Z"})"));
    const QByteArray rule = QJsonDocument(sampleRule().toJson()).toJson(QJsonDocument::Compact);
    QCOMPARE(rule, QByteArray(R"({"action":"allow","expires":"2026-12-01T00:00:00Z","id":9,"once":true,"owner_uid":1000,)"
                              R"("pattern":"*.npmjs.org","port":443,"raw_tcp":true,"sandbox":"dev","scope":"sandbox"})"));
}

void TestProtocol::nullRuleIsNoRule()
{
    EgressEvent e = sampleEvent();
    e.rule = 0;
    QVERIFY(e.toJson().value(QLatin1String("rule")).isNull());
    QCOMPARE(EgressEvent::fromJson(e.toJson()).value().rule, 0);
}

void TestProtocol::ruleScopeMustAgreeWithSandbox()
{
    QJsonObject o = sampleRule().toJson();
    o.insert(QStringLiteral("scope"), QStringLiteral("global"));
    QCOMPARE(RuleInfo::fromJson(o).error().why, QStringLiteral("\"scope\" must be sandbox when \"sandbox\" names one, else global"));
    o = sampleRule().toJson();
    o.insert(QStringLiteral("action"), QStringLiteral("allowed"));
    QCOMPARE(RuleInfo::fromJson(o).error().why, QStringLiteral("\"action\" must be allow or deny"));
}

void TestProtocol::vaultAndStatusPayloads()
{
    checkPayload(VaultStatus{VaultState::Unlocked, true}, {QStringLiteral("vault"), QStringLiteral("keyring")});
    checkPayload(VaultUnlockParams{QStringLiteral("pass phrase"), true}, {});
    checkPayload(VaultChangePassphraseParams{QStringLiteral("a"), QStringLiteral("b")}, {QStringLiteral("old"), QStringLiteral("new")});
    checkPayload(VaultKeyringParams{true}, {QStringLiteral("enable")});
    checkPayload(SecretInfo{QStringLiteral("gh"), {QStringLiteral("api.github.com")}, QStringLiteral("Authorization: Bearer {}"),
                            {QStringLiteral("dev")}},
                 {QStringLiteral("name"), QStringLiteral("hosts"), QStringLiteral("header"), QStringLiteral("used_by")});
    checkPayload(SecretSetParams{QStringLiteral("gh"), QStringLiteral("v"), {QStringLiteral("api.github.com")}, QStringLiteral("{}")},
                 {QStringLiteral("name"), QStringLiteral("value")});
    const EgressStatus egress{true, QStringLiteral("airlock"), 15001, 15053, 2, 120};
    checkPayload(egress, {QStringLiteral("enforcing"), QStringLiteral("nft_table"), QStringLiteral("proxy_port"),
                          QStringLiteral("dns_port"), QStringLiteral("sandboxes"), QStringLiteral("hold_timeout_s")});
    checkPayload(DaemonStatus{QStringLiteral("0.1.0"), QStringLiteral("qemu:///system"), QStringLiteral("kvm"), VaultState::Locked, 3, egress},
                 {QStringLiteral("version"), QStringLiteral("libvirt_uri"), QStringLiteral("accel"), QStringLiteral("vault"),
                  QStringLiteral("sandboxes")});
    QJsonObject nested = DaemonStatus{QStringLiteral("0.1.0"), {}, {}, VaultState::Locked, 0, egress}.toJson();
    QJsonObject e = nested.value(QLatin1String("egress")).toObject();
    e.remove(QStringLiteral("hold_timeout_s"));
    nested.insert(QStringLiteral("egress"), e);
    QCOMPARE(DaemonStatus::fromJson(nested).error().message(), QStringLiteral("invalid status: \"egress\": \"hold_timeout_s\" is missing"));
}

void TestProtocol::eventPayloads()
{
    checkPayload(EventEnvelope{QString(topic::Sandbox), sampleRow().toJson()}, {QStringLiteral("topic"), QStringLiteral("data")});
    checkPayload(ImageProgress{QStringLiteral("tiny"), QStringLiteral("building"), 40, QStringLiteral("debootstrap")},
                 {QStringLiteral("name"), QStringLiteral("phase"), QStringLiteral("percent"), QStringLiteral("message")});
    checkPayload(SnapshotProgress{QStringLiteral("dev"), QStringLiteral("done"), 100},
                 {QStringLiteral("sandbox"), QStringLiteral("phase"), QStringLiteral("percent")});
    checkPayload(Alert{QStringLiteral("dev"), QStringLiteral("disk_full"), QStringLiteral("the disk is full")},
                 {QStringLiteral("sandbox"), QStringLiteral("kind"), QStringLiteral("message")});
    checkPayload(TopicsParams{{QStringLiteral("sandbox"), QStringLiteral("egress")}}, {QStringLiteral("topics")});
}

void TestProtocol::timesAreIsoOnly()
{
    QJsonObject o = sampleEvent().toJson();
    for (const QJsonValue &bad : {QJsonValue(1764517417), QJsonValue(QStringLiteral("1764517417123")),
                                  QJsonValue(QStringLiteral("2026-11-30")), QJsonValue(QStringLiteral("yesterday"))}) {
        o.insert(QStringLiteral("time"), bad);
        Result<EgressEvent> r = EgressEvent::fromJson(o);
        QVERIFY2(!r.ok(), qPrintable(bad.toVariant().toString()));
        QVERIFY(r.error().why.startsWith(QStringLiteral("\"time\" must be")));
    }
    o.insert(QStringLiteral("time"), QStringLiteral("2026-11-30T16:43:37.5+01:00")); // an offset is read as the same instant
    QCOMPARE(EgressEvent::fromJson(o).value().time, at("2026-11-30T15:43:37.500Z"));
}

void TestProtocol::listErrorsNameTheItem()
{
    QJsonArray rows{sampleRow().toJson(), QJsonObject{{QStringLiteral("name"), QStringLiteral("x")}}};
    Result<QList<SandboxRow>> r = listFromJson<SandboxRow>(rows);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().message(), QStringLiteral("invalid sandbox row: item 1: \"state\" is missing"));
    QVERIFY(!listFromJson<SandboxRow>(QJsonObject{}).ok());
    QCOMPARE(listFromJson<SandboxRow>(QJsonArray{sampleRow().toJson()}).value(), QList<SandboxRow>{sampleRow()});
    QCOMPARE(toJsonArray(QList<SandboxRow>{sampleRow()}), (QJsonArray{sampleRow().toJson()}));
    QVERIFY(!fromReply<SandboxRow>(QJsonArray{}).ok());
}

void TestProtocol::namesAreDistinct()
{
    const QList<QLatin1String> methods = allMethods();
    QCOMPARE(QSet<QLatin1String>(methods.begin(), methods.end()).size(), methods.size());
    QVERIFY(methods.contains(method::PresetList));
    QCOMPARE(QString(method::SandboxList), QStringLiteral("sandbox.list"));
    QCOMPARE(QString(topic::Pending), QStringLiteral("pending"));
}

QTEST_GUILESS_MAIN(TestProtocol)
#include "test_protocol.moc"
