// The GUI's end of the protocol: each payload the GUI reads is built with the protocol
// library (the daemon serialises with the same structs), sent as wire JSON the way an event
// reaches the window (ApiClient::event -> DaemonConnection -> the models), and checked by
// what a person sees: a row's text, a state, the status bar. A field renamed or retyped on
// one end fails here instead of leaving a blank cell.
#include "api/apiclient.h"
#include "connection/daemonconnection.h"
#include "models/egressmodel.h"
#include "models/pendingmodel.h"
#include "models/sandboxmodel.h"
#include "protocol/protocol.h"
#include "views/mainwindow.h"

#include <QStatusBar>
#include <QTest>

using namespace airlock::ui;
using airlock::Decision;
namespace proto = airlock::proto;
using namespace Qt::StringLiterals;

namespace {

QString cell(QAbstractItemModel *model, int row, int column) { return model->index(row, column).data().toString(); }

proto::SandboxRow sandboxRow(const QString &name, proto::SandboxState state)
{
    return {.name = name, .state = state, .image = u"agents"_s, .ip = u"10.77.0.2"_s, .cpus = 2, .memoryMib = 2048, .diskGib = 8,
            .uptimeS = 125};
}

proto::EgressEvent heldRequest(qint64 id)
{
    return {.id = id, .sandbox = u"agent-1"_s, .time = QDateTime::currentDateTimeUtc(), .proto = u"https"_s,
            .host = u"registry.npmjs.org"_s, .ip = u"198.18.0.9"_s, .port = 443, .sni = u"registry.npmjs.org"_s,
            .decision = Decision::Pending, .reason = u"no rule matches: asking"_s};
}

} // namespace

class TestGuiProtocol : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void statusReachesTheStatusBar();
    void sandboxEventsUpdateTheirRow();
    void egressEventsFillTheNetworkAndPendingRows();
    void imageProgressIsInTheStatusBar();

private:
    // An event as airlockd sends it: topic and the struct's wire JSON.
    template <typename T>
    void send(const QString &topic, const T &payload)
    {
        Q_EMIT m_connection->client()->event(topic, payload.toJson());
    }

    DaemonConnection *m_connection = nullptr;
    MainWindow *m_window = nullptr;
};

void TestGuiProtocol::init()
{
    m_connection = new DaemonConnection(QStringLiteral("/nonexistent/airlockd.sock")); // never connected
    m_window = new MainWindow(m_connection);
}

void TestGuiProtocol::cleanup()
{
    delete m_window;
    delete m_connection;
}

void TestGuiProtocol::statusReachesTheStatusBar()
{
    const proto::DaemonStatus status{.version = u"9.8.7"_s, .libvirtUri = u"qemu:///system"_s, .accel = u"tcg"_s,
                                     .vault = airlock::VaultState::Locked, .sandboxes = 3,
                                     .egress = proto::EgressStatus{true, u"airlock"_s, 15001, 15053, 3, 45}};
    // What DaemonConnection does with the `status` answer.
    const airlock::Result<proto::DaemonStatus> parsed = proto::DaemonStatus::fromJson(status.toJson());
    QVERIFY2(parsed, qPrintable(parsed.error().message()));
    Q_EMIT m_connection->statusChanged(parsed.value());
    const QString text = m_window->statusText();
    for (const char *expected : {"airlockd 9.8.7", "libvirt qemu:///system", "TCG emulation", "vault locked"})
        QVERIFY2(text.contains(QLatin1String(expected)), qPrintable(text));
    QCOMPARE(m_window->pendingModel()->holdTimeout(), 45); // the countdown is the broker's
}

void TestGuiProtocol::sandboxEventsUpdateTheirRow()
{
    SandboxModel *model = m_window->sandboxModel();
    model->setRows({sandboxRow(QStringLiteral("agent-1"), proto::SandboxState::Running)});
    QCOMPARE(cell(model, 0, SandboxModel::Name), QStringLiteral("agent-1"));
    QCOMPARE(cell(model, 0, SandboxModel::State), QStringLiteral("running"));
    QCOMPARE(cell(model, 0, SandboxModel::Ip), QStringLiteral("10.77.0.2"));
    QCOMPARE(cell(model, 0, SandboxModel::Resources), QStringLiteral("2 CPU(s) / 2048 MiB"));
    QCOMPARE(cell(model, 0, SandboxModel::Uptime), QStringLiteral("2 min"));

    proto::SandboxRow paused = sandboxRow(QStringLiteral("agent-1"), proto::SandboxState::Paused);
    paused.memoryMib = 4096;
    send(proto::topic::Sandbox, paused);
    QCOMPARE(cell(model, 0, SandboxModel::State), QStringLiteral("paused"));
    QCOMPARE(cell(model, 0, SandboxModel::Resources), QStringLiteral("2 CPU(s) / 4096 MiB"));
    QVERIFY(!model->isRunning(QStringLiteral("agent-1")));
    QCOMPARE(model->index(0, SandboxModel::State).data(Qt::ToolTipRole), QVariant());

    // QEMU paused it for the host's disk: the state says so and the tooltip what to do.
    proto::SandboxRow full = paused;
    full.pausedReason = u"paused: the host disk holding its overlay (pool airlock, /p) is full; free space there "
                        u"(see `df -h /p`) and it goes on by itself (or `airlockctl resume agent-1`)"_s;
    send(proto::topic::Sandbox, full);
    QCOMPARE(cell(model, 0, SandboxModel::State), QStringLiteral("paused (host disk full)"));
    QCOMPARE(model->index(0, SandboxModel::State).data(Qt::ToolTipRole).toString(), *full.pausedReason);
    send(proto::topic::Sandbox, paused); // resumed and paused again by a person: no reason left
    QCOMPARE(cell(model, 0, SandboxModel::State), QStringLiteral("paused"));

    // A state the protocol does not know (the old "deleted") is refused whole: the row stays.
    QJsonObject unknown = paused.toJson();
    unknown[QStringLiteral("state")] = QStringLiteral("deleted");
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("ignored a \"sandbox\" event: .*\"state\"")));
    Q_EMIT m_connection->client()->event(proto::topic::Sandbox, unknown);
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(cell(model, 0, SandboxModel::State), QStringLiteral("paused"));
}

void TestGuiProtocol::egressEventsFillTheNetworkAndPendingRows()
{
    m_window->pendingModel()->setHoldTimeout(45);
    EgressModel *egress = m_window->egressModel();
    PendingModel *pending = m_window->pendingModel();
    const proto::EgressEvent held = heldRequest(17);
    send(proto::topic::Egress, held);
    egress->flush();
    QCOMPARE(egress->rowCount(), 1);
    QCOMPARE(cell(egress, 0, EgressModel::Sandbox), QStringLiteral("agent-1"));
    QCOMPARE(cell(egress, 0, EgressModel::Host), QStringLiteral("registry.npmjs.org"));
    QCOMPARE(cell(egress, 0, EgressModel::Port), QStringLiteral("443"));
    QCOMPARE(cell(egress, 0, EgressModel::DecisionColumn), QStringLiteral("pending"));
    QCOMPARE(cell(egress, 0, EgressModel::Rule), QStringLiteral("no rule matches: asking"));
    QCOMPARE(pending->rowCount(), 1);
    QCOMPARE(cell(pending, 0, PendingModel::Target), QStringLiteral("registry.npmjs.org:443"));
    const QString countdown = cell(pending, 0, PendingModel::Default);
    QVERIFY2(countdown == QStringLiteral("deny in 45 s") || countdown == QStringLiteral("deny in 44 s"), qPrintable(countdown));

    // The same flow decided by a rule (egress.decide's answer, then its `egress` event).
    proto::EgressEvent decided = held;
    decided.decision = Decision::Allowed;
    decided.rule = 12;
    decided.reason = QStringLiteral("rule 12: allow registry.npmjs.org (sandbox)");
    decided.bytesUp = 2048;
    decided.bytesDown = 3 * 1024 * 1024;
    send(proto::topic::Egress, decided);
    egress->flush();
    QCOMPARE(egress->rowCount(), 1); // the same id: updated in place
    QCOMPARE(cell(egress, 0, EgressModel::DecisionColumn), QStringLiteral("allowed"));
    QCOMPARE(cell(egress, 0, EgressModel::Rule), QStringLiteral("rule #12"));
    QVERIFY2(cell(egress, 0, EgressModel::Bytes).contains(QStringLiteral("↓ 3.0 MB")), qPrintable(cell(egress, 0, EgressModel::Bytes)));
    QCOMPARE(pending->rowCount(), 0);

    // Identical denials folded into one row say how many they were.
    proto::EgressEvent folded = heldRequest(18);
    folded.decision = Decision::Denied;
    folded.reason = QStringLiteral("denied by rule");
    folded.count = 7;
    send(proto::topic::Egress, folded);
    egress->flush();
    QCOMPARE(cell(egress, 1, EgressModel::DecisionColumn), QStringLiteral("denied"));
    QCOMPARE(cell(egress, 1, EgressModel::Rule), QStringLiteral("denied by rule (×7)"));
}

void TestGuiProtocol::imageProgressIsInTheStatusBar()
{
    send(proto::topic::Image, proto::ImageProgress{QStringLiteral("tiny"), QStringLiteral("building"), 40, QStringLiteral("debootstrap")});
    QCOMPARE(m_window->statusBar()->currentMessage(), QStringLiteral("Image tiny: building (40%) — debootstrap"));
}

QTEST_MAIN(TestGuiProtocol)
#include "test_gui_protocol.moc"
