// The protocol library (app/protocol): every payload survives toJson -> fromJson; a missing
// required field or a field of the wrong type is an error that names the field; the wire
// names are today's.
#include "protocol/protocol.h"

#include <QJsonDocument>
#include <QTest>

using namespace airlock;
using namespace airlock::proto;
using namespace Qt::StringLiterals;

namespace {

QDateTime at(const char *iso) { return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs); }

// The wire keys "a b c" as a list, for checkPayload's required fields.
QStringList keys(const char *spaced) { return QString::fromLatin1(spaced).split(u' ', Qt::SkipEmptyParts); }

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
    return {.name = u"dev"_s, .state = SandboxState::Running, .image = u"tiny"_s, .ip = u"10.77.0.2"_s, .pending = 2,
            .cpus = 2, .memoryMib = 512, .diskGib = 4, .uptimeS = 61, .disk = DiskUsage{1 << 20, 4 << 20, false}};
}

EgressEvent sampleEvent()
{
    return {.id = 42, .sandbox = u"dev"_s, .time = at("2026-11-30T15:43:37.123Z"), .proto = u"https"_s,
            .host = u"registry.npmjs.org"_s, .ip = u"198.18.0.7"_s, .port = 443, .sni = u"registry.npmjs.org"_s,
            .method = u"GET"_s, .path = u"/left-pad"_s, .decision = Decision::Pending, .rule = 7,
            .reason = u"held for a person"_s, .bytesUp = 10, .bytesDown = 20, .durationMs = 30, .count = 3};
}

RuleInfo sampleRule()
{
    return {.id = 9, .sandbox = u"dev"_s, .allow = true, .pattern = u"*.npmjs.org"_s, .port = 443,
            .expires = at("2026-12-01T00:00:00Z"), .once = true, .rawTcp = true, .ownerUid = 1000};
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
    void portPayloads();
    void egressPayloads();
    void egressEventWireIsFixed();
    void nullRuleIsNoRule();
    void ruleScopeMustAgreeWithSandbox();
    void vaultAndStatusPayloads();
    void eventPayloads();
    void timesAreIsoOnly();
    void listErrorsNameTheItem();
    void namesAreDistinct();
    void timesBefore1970AndPast9999();
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
    const QStringList rowKeys = keys("name state image ip pending cpus memory_mib disk_gib uptime_s disk_total_bytes disk_full");
    checkPayload(sampleRow(), rowKeys);
    SandboxRow eventRow = sampleRow();
    eventRow.disk.reset(); // the `sandbox` event: no disk fields
    checkPayload(eventRow, rowKeys.mid(0, 9));
    QCOMPARE(eventRow.toJson().keys().size(), 9);
    // paused_reason is optional: only a guest QEMU paused on its own has one.
    SandboxRow paused = sampleRow();
    paused.state = SandboxState::Paused;
    paused.pausedReason = u"paused: the host disk holding its overlay (pool airlock, /p) is full"_s;
    QCOMPARE(paused.toJson().value("paused_reason"_L1).toString(), *paused.pausedReason);
    QCOMPARE(SandboxRow::fromJson(paused.toJson()).value(), paused);
    QVERIFY(!sampleRow().toJson().contains("paused_reason"_L1));
    QJsonObject badReason = paused.toJson();
    badReason.insert(u"paused_reason"_s, 3);
    QCOMPARE(SandboxRow::fromJson(badReason).error().why, u"\"paused_reason\" must be a string"_s);

    const SandboxCreateParams create{.name = u"dev"_s, .image = u"agents"_s, .templateName = u"claude"_s, .cpus = 2,
                                     .memoryMib = 1024, .diskGib = 8, .env = {{u"A"_s, u"1"_s}},
                                     .secrets = {SecretLoan{u"gh"_s, u"GH_TOKEN"_s}, SecretLoan{u"npm"_s, std::nullopt}},
                                     .presets = {u"npm"_s}, .start = true, .bootTimeoutS = 300};
    checkPayload(create, keys("name"));
    QCOMPARE(SandboxCreateParams{QStringLiteral("x")}.toJson(), (QJsonObject{{QStringLiteral("name"), QStringLiteral("x")}}));

    checkPayload(SandboxCreated{QStringLiteral("dev"), SandboxState::Stopped, QStringLiteral("tiny"), QStringLiteral("10.77.0.2"),
                                QStringLiteral("claude")},
                 keys("name state image ip"));
    checkPayload(NameParams{QStringLiteral("dev")}, keys("name"));
    checkPayload(SandboxStartParams{QStringLiteral("dev"), false, 60}, keys("name"));
    checkPayload(SandboxStopParams{QStringLiteral("dev"), 5}, keys("name"));
    checkPayload(ExecParams{QStringLiteral("dev"), {QStringLiteral("ls"), QStringLiteral("-l")}, QByteArray("in\0put", 6), 10},
                 keys("name argv"));
    checkPayload(ExecResult{124, QByteArray("out"), QByteArray("\xff\x00", 2), true},
                 keys("exit_code stdout_b64 stderr_b64 timed_out"));
    checkPayload(ForkParams{QStringLiteral("dev"), 3, QStringLiteral("dev2"), true},
                 keys("sandbox id new_name"));
    checkPayload(FilePushParams{QStringLiteral("dev"), QStringLiteral("/tmp/a"), QByteArray("abc"), 3},
                 keys("name path data_b64"));
    checkPayload(WrittenResult{3}, keys("written"));
    checkPayload(FilePullParams{QStringLiteral("dev"), QStringLiteral("/tmp/a"), 0, 4096}, keys("name path"));
    checkPayload(FilePullResult{QByteArray("abc"), true}, keys("data_b64 eof"));

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
    checkPayload(SandboxRow::removed(QStringLiteral("dev")), keys("name state"));
}

void TestProtocol::imagePayloads()
{
    checkPayload(ImageInfo{QStringLiteral("tiny"), QStringLiteral("tiny-vmlinuz"), 1234, at("2026-11-30T15:43:37Z"),
                           QStringLiteral("tiny"), true},
                 keys("name kernel size_bytes recipe"));
    checkPayload(ImageBuildParams{QStringLiteral("agents"), QStringLiteral("mine")}, keys("recipe"));
    checkPayload(ImageCancelResult{QStringLiteral("mine"), true}, keys("name cancelled"));
    const TemplateInfo t{.name = u"claude"_s, .description = u"Claude Code"_s, .image = u"agents"_s, .cpus = 2, .memoryMib = 2048,
                         .diskGib = 8, .presets = {u"anthropic"_s}, .optInPresets = {u"npm"_s, u"pypi"_s}, .console = u"claude"_s,
                         .env = {{u"TERM"_s, u"xterm"_s}},
                         .secret = TemplateSecret{u"anthropic"_s, u"ANTHROPIC_API_KEY"_s, {u"api.anthropic.com"_s}, u"x-api-key: {}"_s}};
    checkPayload(t, keys("name description image cpus memory_mib disk_gib presets opt_in_presets console env"));
    QJsonObject badSecret = t.toJson();
    badSecret.insert(QStringLiteral("secret"), QJsonObject{{QStringLiteral("name"), QStringLiteral("x")}});
    QCOMPARE(TemplateInfo::fromJson(badSecret).error().message(), QStringLiteral("invalid template: \"secret\": \"env\" is missing"));

    PresetInfo p{QStringLiteral("npm"), QStringLiteral("the npm registry"),
                 {PresetRuleInfo{QStringLiteral("registry.npmjs.org"), 443, QStringLiteral("packages")},
                  PresetRuleInfo{QStringLiteral("*.npmjs.com"), 0, QStringLiteral("docs")}}};
    checkPayload(p, keys("name description rules"));
    checkPayload(p.rules.first(), keys("host why"));
}

void TestProtocol::snapshotAndConsolePayloads()
{
    checkPayload(SnapshotInfo{5, QStringLiteral("dev"), QStringLiteral("clean"), 4, at("2026-11-30T15:43:37Z"), true},
                 keys("id label created"));
    checkPayload(SnapshotInfo{5, std::nullopt, QStringLiteral("first"), std::nullopt, at("2026-11-30T15:43:37Z"), false}, {});
    QVERIFY(SnapshotInfo{}.toJson().value(QLatin1String("parent")).isNull()); // the first snapshot's parent is null
    // A checkpoint adds memory and memory_bytes; a disk-only snapshot's wire is as it was.
    checkPayload(SnapshotInfo{5, QStringLiteral("dev"), QStringLiteral("mid"), 4, at("2026-11-30T15:43:37Z"), true, true, qint64(256) << 20},
                 keys("id label created"));
    QVERIFY(!SnapshotInfo{}.toJson().contains(QLatin1String("memory")));
    checkPayload(SnapshotCreateParams{QStringLiteral("dev"), QStringLiteral("clean")}, keys("sandbox"));
    checkPayload(SnapshotCreateParams{QStringLiteral("dev"), QStringLiteral("mid"), true}, keys("sandbox"));
    QVERIFY(!(SnapshotCreateParams{QStringLiteral("dev"), QStringLiteral("clean")}.toJson().contains(QLatin1String("memory"))));
    checkPayload(SnapshotRef{QStringLiteral("dev"), 5}, keys("sandbox"));
    checkPayload(ConsoleAttachResult{QByteArray("$ "), topic::console(QStringLiteral("dev")), SandboxState::Running},
                 keys("history_b64 topic state"));
    QCOMPARE(topic::console(QStringLiteral("dev")), QStringLiteral("console:dev"));
    checkPayload(ConsoleWriteParams{QStringLiteral("dev"), QByteArray("ls\n")}, keys("name data_b64"));
    checkPayload(ConsoleSize{QStringLiteral("dev"), 24, 80}, keys("rows cols"));
    checkPayload(ConsoleOutput{QByteArray("\x1b[0m", 4)}, keys("data_b64"));
}

void TestProtocol::portPayloads()
{
    checkPayload(PortExposeParams{QStringLiteral("dev"), 8080, 18080}, keys("sandbox guest_port"));
    QVERIFY(!PortExposeParams::fromJson(QJsonObject{{QStringLiteral("sandbox"), QStringLiteral("dev")}}));
    checkPayload(PortRef{QStringLiteral("dev"), 8080}, keys("sandbox guest_port"));
    ExposedPortInfo open{QStringLiteral("dev"), 8080, 18080};
    open.listening = true;
    open.connections = 2;
    checkPayload(open, keys("sandbox guest_port host_port address listening"));
    QCOMPARE(open.toJson().value(QLatin1String("address")).toString(), QStringLiteral("127.0.0.1"));
    QVERIFY(!open.toJson().contains(QLatin1String("error"))); // only when it could not listen
    ExposedPortInfo busy = open;
    busy.listening = false;
    busy.error = QStringLiteral("in use by another program");
    checkPayload(busy, keys("sandbox guest_port host_port address listening"));
    checkPayload(PortsChanged{QStringLiteral("dev"), {open, busy}}, keys("sandbox ports"));
}

void TestProtocol::egressPayloads()
{
    checkPayload(EgressConfigureParams{0}, keys("hold_timeout_s")); // 0: held until answered
    checkPayload(EgressConfigureParams{600}, keys("hold_timeout_s"));
    checkPayload(sampleEvent(), keys("id sandbox time proto host ip port sni method path decision reason bytes_up bytes_down duration_ms"));
    // The guest's process report: an optional object, absent when the guest reported none.
    EgressEvent reported = sampleEvent();
    reported.guestProcess = GuestProcess{812, 640, QStringLiteral("curl"), QStringLiteral("sh"), QStringLiteral("curl -s http://x/")};
    checkPayload(reported, keys("id sandbox time proto host ip port sni method path decision reason bytes_up bytes_down duration_ms"));
    checkPayload(*reported.guestProcess, keys("pid ppid comm"));
    QCOMPARE(reported.guestProcess->describe(), QStringLiteral("the guest reports: curl (pid 812, parent sh 640): curl -s http://x/"));
    // With its ancestors (a v2 helper), the chain reads from the agent down to the process.
    reported.guestProcess->chain = QStringList{QStringLiteral("claude"), QStringLiteral("node"), QStringLiteral("sh")};
    checkPayload(*reported.guestProcess, keys("pid ppid comm"));
    QCOMPARE(reported.guestProcess->describe(),
             QStringLiteral("the guest reports: claude → node → sh → curl (pid 812, parent 640): curl -s http://x/"));
    checkPayload(EgressListParams{QStringLiteral("dev"), true, 50, 1000}, {});
    checkPayload(EgressDecideParams{42, QStringLiteral("allow"), QStringLiteral("sandbox"), QStringLiteral("domain"), 3600, true},
                 keys("id action"));
    const QStringList ruleKeys = keys("id scope action pattern port once raw_tcp owner_uid");
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
                 keys("action host"));
    checkPayload(IdParams{7}, keys("id"));
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
                              R"("pattern":"*.npmjs.org","port":443,"raw_tcp":true,"sandbox":"dev","scope":"sandbox","until_stop":false})"));
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
    checkPayload(VaultStatus{VaultState::Unlocked, true}, keys("vault keyring"));
    checkPayload(VaultUnlockParams{QStringLiteral("pass phrase"), true}, {});
    checkPayload(VaultChangePassphraseParams{QStringLiteral("a"), QStringLiteral("b")}, keys("old new"));
    checkPayload(VaultKeyringParams{true}, keys("enable"));
    checkPayload(SecretInfo{QStringLiteral("gh"), {QStringLiteral("api.github.com")}, QStringLiteral("Authorization: Bearer {}"),
                            {QStringLiteral("dev")}},
                 keys("name hosts header used_by"));
    checkPayload(SecretSetParams{QStringLiteral("gh"), QStringLiteral("v"), {QStringLiteral("api.github.com")}, QStringLiteral("{}")},
                 keys("name value"));
    const EgressStatus egress{true, QStringLiteral("airlock"), 15001, 15053, 2, 120, 7, QStringLiteral("the disk is full")};
    checkPayload(egress, keys("enforcing nft_table proxy_port dns_port sandboxes hold_timeout_s"));
    checkPayload(DaemonStatus{QStringLiteral("0.1.0"), QStringLiteral("qemu:///system"), QStringLiteral("kvm"), VaultState::Locked, 3, egress},
                 keys("version libvirt_uri accel vault sandboxes"));
    QJsonObject nested = DaemonStatus{QStringLiteral("0.1.0"), {}, {}, VaultState::Locked, 0, egress}.toJson();
    QJsonObject e = nested.value(QLatin1String("egress")).toObject();
    e.remove(QStringLiteral("hold_timeout_s"));
    nested.insert(QStringLiteral("egress"), e);
    QCOMPARE(DaemonStatus::fromJson(nested).error().message(), QStringLiteral("invalid status: \"egress\": \"hold_timeout_s\" is missing"));
}

void TestProtocol::eventPayloads()
{
    checkPayload(EventEnvelope{QString(topic::Sandbox), sampleRow().toJson()}, keys("topic data"));
    checkPayload(ImageProgress{QStringLiteral("tiny"), QStringLiteral("building"), 40, QStringLiteral("debootstrap")},
                 keys("name phase percent message"));
    checkPayload(SnapshotProgress{QStringLiteral("dev"), QStringLiteral("done"), 100},
                 keys("sandbox phase percent"));
    checkPayload(Alert{QStringLiteral("dev"), QStringLiteral("disk_full"), QStringLiteral("the disk is full")},
                 keys("sandbox kind message"));
    checkPayload(TopicsParams{{QStringLiteral("sandbox"), QStringLiteral("egress")}}, keys("topics"));
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

// The writer floors to the second (a time before 1970 is not written as "...00.-750Z"), and a
// time whose UTC year has five digits is refused: it could not be written back as it is read.
void TestProtocol::timesBefore1970AndPast9999()
{
    EgressEvent e = sampleEvent();
    e.time = at("1969-12-31T23:59:59.250Z");
    QCOMPARE(e.toJson().value(QLatin1String("time")).toString(), u"1969-12-31T23:59:59.250Z"_s);
    QCOMPARE(EgressEvent::fromJson(e.toJson()).value(), e);
    QCOMPARE(SnapshotInfo{.created = at("1969-12-31T23:59:59.250Z")}.toJson().value(QLatin1String("created")).toString(),
             u"1969-12-31T23:59:59Z"_s);
    QJsonObject o = sampleEvent().toJson();
    o.insert(u"time"_s, u"9999-12-31T23:30:00.000-01:00"_s);
    QCOMPARE(EgressEvent::fromJson(o).error().why, u"\"time\" must be an ISO 8601 time such as 2026-11-30T15:43:37Z"_s);
    o.insert(u"time"_s, u"9999-12-31T23:30:00.000+01:00"_s); // the same year in UTC is a time
    QCOMPARE(EgressEvent::fromJson(o).value().time, at("9999-12-31T22:30:00Z"));
}

QTEST_GUILESS_MAIN(TestProtocol)
#include "test_protocol.moc"
