// The Network tab's model and view with 100,000 attempts: batched inserts, in-place
// updates, filters and search stay fast; the pending panel dedupes per target and counts
// down; the decision bar builds the egress.decide the user chose.
#include "core/isotime.h"
#include "models/egressmodel.h"
#include "models/pendingmodel.h"
#include "views/egresschart.h"
#include "views/networkview.h"
#include "views/pendingpanel.h"
#include "models/destinationmodel.h"
#include "widgets/decisionbar.h"
#include "widgets/elidedlabel.h"
#include "api/apiclient.h"
#include "residentmemory.h"
#include "screenshot.h"

#include <QAreaSeries>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QLineSeries>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QValueAxis>
#include <QLocale>
#include <QTreeView>

using namespace airlock::ui;
using airlock::Decision;
namespace proto = airlock::proto;

namespace {

const Decision kDecisions[] = {Decision::Allowed, Decision::Denied, Decision::Pending};

// An attempt as the daemon sends it on the wire (the protocol's struct's JSON).
QJsonObject attemptJson(qint64 id, const QString &sandbox, Decision decision, qint64 timeMs)
{
    proto::EgressEvent e;
    e.id = id;
    e.sandbox = sandbox;
    e.time = QDateTime::fromMSecsSinceEpoch(timeMs, Qt::UTC);
    e.proto = id % 7 == 0 ? QStringLiteral("http") : QStringLiteral("tls");
    e.host = QStringLiteral("host-%1.example-%2.com").arg(id % 500).arg(id % 13);
    e.ip = QStringLiteral("198.18.%1.%2").arg((id / 250) % 250).arg(id % 250);
    e.port = id % 7 == 0 ? 80 : 443;
    e.sni = e.host;
    e.method = id % 7 == 0 ? QStringLiteral("GET") : QString();
    e.path = id % 7 == 0 ? QStringLiteral("/v1/items/%1").arg(id) : QString();
    e.decision = decision;
    e.rule = id % 20;
    e.bytesUp = id % 4096;
    e.bytesDown = (id * 37) % 100000;
    return e.toJson();
}

// ...and as DaemonConnection hands it to the models: parsed back by the protocol library.
proto::EgressEvent parsed(const QJsonObject &json)
{
    const airlock::Result<proto::EgressEvent> e = proto::EgressEvent::fromJson(json);
    if (!e)
        qFatal("the protocol refused its own egress event: %s", qPrintable(e.error().message()));
    return e.value();
}

proto::EgressEvent attempt(qint64 id, const QString &sandbox, Decision decision, qint64 timeMs)
{
    return parsed(attemptJson(id, sandbox, decision, timeMs));
}

} // namespace

class TestEgressView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void holdsAndFilters100kRows();
    void updatesInPlaceAndCoalesces();
    void parsesTheDaemonsTimes();
    void newAttemptIsOnScreenWithin100ms();
    void pendingPanelDedupesAndCountsDown();
    void decisionBarBuildsTheDecision();
    void heldRequestsAreDecidedAsRequests();
    void attemptsGroupByDomainHostAndPort();
    void theGuestsProcessReportIsShownAsItsClaim();
    void chartStacksTheDecisions();
};

void TestEgressView::holdsAndFilters100kRows()
{
    airlock::ApiClient client; // never connected: the view must not need the daemon to show rows
    EgressModel model;
    NetworkView view(&client, &model);
    view.resize(1200, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setSandbox(QStringLiteral("agent-a"));

    constexpr int kRows = 100000;
    constexpr int kBatch = 1000;
    std::vector<QJsonObject> events; // the wire objects: each batch below is parsed as it arrives
    events.reserve(kRows);
    const qint64 start = QDateTime::currentMSecsSinceEpoch() - 25 * 60000;
    for (int i = 1; i <= kRows; ++i)
        events.push_back(attemptJson(i, i % 10 == 0 ? QStringLiteral("agent-b") : QStringLiteral("agent-a"), kDecisions[i % 3],
                                 start + i * 15));

    // The model alone first (parsing and storing), then again with the filter proxy and the table.
    QElapsedTimer timer;
    timer.start();
    {
        EgressModel bare;
        for (int i = 0; i < kRows; i += kBatch) {
            for (int j = i; j < i + kBatch; ++j)
                bare.enqueue(parsed(events[size_t(j)]));
            bare.flush();
        }
        QCOMPARE(bare.rowCount(), kRows);
    }
    const qint64 modelOnlyMs = timer.elapsed();

    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    const qint64 rssBefore = residentKiB();
    timer.restart();
    for (int i = 0; i < kRows; i += kBatch) {
        for (int j = i; j < i + kBatch; ++j)
            model.enqueue(parsed(events[size_t(j)])); // as the `egress` events arrive
        model.flush();                       // the 100 ms timer's work, done now
        QCoreApplication::processEvents();   // the view repaints between batches
    }
    const qint64 insertMs = timer.elapsed();
    const qint64 rssAfter = residentKiB();
    events.clear();
    QCOMPARE(model.rowCount(), kRows);
    QCOMPARE(inserted.count(), kRows / kBatch); // one notification per batch, never per row
    QCOMPARE(view.filterModel()->rowCount(), kRows - kRows / 10);

    // Newest first.
    QCOMPARE(view.filterModel()->index(0, EgressModel::Time).data(EgressModel::RecordIdRole).toLongLong(), qint64(kRows - 1));

    timer.restart();
    view.filterModel()->setSearchText(QStringLiteral("host-42.example"));
    const qint64 searchMs = timer.elapsed();
    // ids with id % 500 == 42 in agent-a
    int expected = 0;
    for (int i = 1; i <= kRows; ++i)
        if (i % 500 == 42 && i % 10 != 0)
            ++expected;
    QCOMPARE(view.filterModel()->rowCount(), expected);

    timer.restart();
    view.filterModel()->setSearchText({});
    view.filterModel()->setShow(EgressFilterModel::Show::Denied);
    const qint64 denyFilterMs = timer.elapsed();
    for (int row = 0; row < std::min(200, view.filterModel()->rowCount()); ++row)
        QCOMPARE(view.filterModel()->index(row, EgressModel::DecisionColumn).data().toString(), QStringLiteral("denied"));
    view.filterModel()->setShow(EgressFilterModel::Show::All);

    timer.restart();
    view.table()->scrollToBottom();
    QCoreApplication::processEvents();
    view.table()->verticalScrollBar()->setValue(view.table()->verticalScrollBar()->maximum() / 2);
    view.repaint();
    const qint64 scrollMs = timer.elapsed();

    timer.restart();
    view.table()->sortByColumn(EgressModel::Host, Qt::AscendingOrder);
    const qint64 sortMs = timer.elapsed();
    view.table()->sortByColumn(EgressModel::Time, Qt::DescendingOrder);

    qInfo("100000 attempts: model alone %lld ms; with proxy and table %lld ms in %d batches, RSS +%lld MiB (now %lld MiB); search %lld ms, "
          "decision filter %lld ms, sort by host %lld ms, scroll+repaint %lld ms",
          modelOnlyMs, insertMs, kRows / kBatch, (rssAfter - rssBefore) / 1024, rssAfter / 1024, searchMs, denyFilterMs, sortMs, scrollMs);
    // The times are printed, not asserted: bench_gui measures speed on a quiet machine, and a test
    // sharing two cores with builds must not fail for being slow.
    QVERIFY2(rssAfter - rssBefore < 150 * 1024, "100,000 attempts use too much memory");

    if (const QString dir = qEnvironmentVariable("AIRLOCK_SCREENSHOT_DIR"); !dir.isEmpty()) {
        view.table()->scrollToTop();
        view.table()->selectRow(1); // a denied row: the decision bar is live
        QCoreApplication::processEvents();
        QTest::qWait(1200); // the chart's throttle
        view.grab().save(dir + QStringLiteral("/widget-network-100k.png"));
    }
}

void TestEgressView::updatesInPlaceAndCoalesces()
{
    EgressModel model;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    model.enqueue(attempt(1, QStringLiteral("a"), Decision::Pending, now));
    model.enqueue(attempt(2, QStringLiteral("a"), Decision::Pending, now));
    model.flush();
    QCOMPARE(model.rowCount(), 2);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.enqueue(attempt(1, QStringLiteral("a"), Decision::Allowed, now));
    model.enqueue(attempt(2, QStringLiteral("a"), Decision::Denied, now));
    model.enqueue(attempt(3, QStringLiteral("a"), Decision::Pending, now));
    model.enqueue(attempt(3, QStringLiteral("a"), Decision::Denied, now)); // changed again before the flush
    model.flush();
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(model.record(model.rowOfId(1)).decision, Decision::Allowed);
    QCOMPARE(model.record(model.rowOfId(2)).decision, Decision::Denied);
    QCOMPARE(model.record(model.rowOfId(3)).decision, Decision::Denied);
    // The chart's counts follow the change: nothing is left pending.
    const auto buckets = model.buckets(QStringLiteral("a"));
    int pending = 0, denied = 0;
    for (const auto &b : buckets) {
        pending += b[2];
        denied += b[1];
    }
    QCOMPARE(pending, 0);
    QCOMPARE(denied, 2);
    // The tooltip holds what the watch layout's narrow list leaves out (NetworkView::setNarrow).
    proto::EgressEvent request = attempt(4, QStringLiteral("a"), Decision::Allowed, now);
    request.rule = 7;
    request.bytesUp = 2048;
    request.bytesDown = 1 << 20;
    request.method = QStringLiteral("POST");
    request.path = QStringLiteral("/v1/messages");
    model.enqueue(parsed(request.toJson()));
    model.flush();
    const QString tip = model.index(model.rowOfId(4), EgressModel::Host).data(Qt::ToolTipRole).toString();
    for (const char *part : {"port", "Rule: ", "Bytes: ↑ 2.0 kB", "POST /v1/messages"})
        QVERIFY2(tip.contains(QString::fromUtf8(part)), qPrintable(QString(tip).replace(QLatin1Char('\n'), QLatin1String(" / "))));
}

void TestEgressView::parsesTheDaemonsTimes()
{
    // The protocol's parser (core/isotime.h) takes a fast path for the daemon's own form;
    // it must agree with QDateTime's general parser wherever both read the text.
    for (const qint64 ms : {qint64(0), qint64(1764518278123), qint64(951782400000) /* 2000-02-29 */, qint64(4102444799999)}) {
        const QString iso = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
        QCOMPARE(airlock::parseIsoTime(iso).toMSecsSinceEpoch(), ms);
        QCOMPARE(airlock::parseIsoTime(airlock::isoTimeMs(QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC))).toMSecsSinceEpoch(), ms);
    }
    QCOMPARE(airlock::parseIsoTime(QStringLiteral("2026-11-30T15:57:58Z")), QDateTime(QDate(2026, 11, 30), QTime(15, 57, 58), Qt::UTC));
    QCOMPARE(airlock::parseIsoTime(QStringLiteral("2026-11-30T15:57:58.5Z")), QDateTime(QDate(2026, 11, 30), QTime(15, 57, 58, 500), Qt::UTC));
    QCOMPARE(airlock::parseIsoTime(QStringLiteral("2026-11-30T15:57:58+01:00")), QDateTime(QDate(2026, 11, 30), QTime(14, 57, 58), Qt::UTC));
    for (const char *bad : {"2026-11-30 15:57:58Z", "2026-02-30T10:00:00Z", "2026-11-30T15:57:58.Z",
                            "2026-11-30T15:5x:58Z", "1764518278"})
        QVERIFY2(!airlock::parseIsoTime(QLatin1String(bad)).isValid(), bad);
}

void TestEgressView::newAttemptIsOnScreenWithin100ms()
{
    airlock::ApiClient client;
    EgressModel model;
    NetworkView view(&client, &model);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setSandbox(QStringLiteral("a"));
    QElapsedTimer timer;
    qint64 shownAfter = -1;
    connect(view.filterModel(), &QAbstractItemModel::rowsInserted, this, [&] { shownAfter = timer.elapsed(); });
    timer.start();
    model.enqueue(attempt(7, QStringLiteral("a"), Decision::Pending, QDateTime::currentMSecsSinceEpoch())); // as an event arrives
    QTRY_VERIFY_WITH_TIMEOUT(shownAfter >= 0, 1000);
    qInfo("event to row in the view: %lld ms", shownAfter);
    QVERIFY2(shownAfter < 100, "a new attempt must be on screen within 100 ms");
}

void TestEgressView::pendingPanelDedupesAndCountsDown()
{
    airlock::ApiClient client;
    PendingModel model;
    model.setHoldTimeout(97);
    PendingPanel panel(&client, &model);
    panel.show();
    QSignalSpy fresh(&model, &PendingModel::newRequest);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    // The same target three times, another target once, and another sandbox.
    model.apply(attempt(10, QStringLiteral("a"), Decision::Pending, now));
    proto::EgressEvent again = attempt(10, QStringLiteral("a"), Decision::Pending, now);
    again.id = 510; // id % 500 == 10: same host, same port (not % 7)
    model.apply(again);
    again.id = 1010;
    model.apply(again);
    model.apply(attempt(11, QStringLiteral("a"), Decision::Pending, now));
    model.apply(attempt(10, QStringLiteral("b"), Decision::Pending, now));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(fresh.count(), 3); // one notification per target, not per attempt
    QCOMPARE(model.entry(0).attempts, 3);
    QCOMPARE(model.countsBySandbox().value(QStringLiteral("a")), 2);
    const QString countdown = model.index(0, PendingModel::Default).data().toString();
    QVERIFY2(countdown == QStringLiteral("deny in 97 s") || countdown == QStringLiteral("deny in 96 s"), qPrintable(countdown));
    // The first request is selected, ready for one click.
    QCOMPARE(panel.decisionBar()->targetId(), qint64(10));

    if (const QString dir = qEnvironmentVariable("AIRLOCK_SCREENSHOT_DIR"); !dir.isEmpty()) {
        panel.resize(1000, 260);
        QCoreApplication::processEvents();
        panel.grab().save(dir + QStringLiteral("/widget-pending.png"));
    }
    // A decision on any attempt of the target answers the whole row.
    model.apply(attempt(510, QStringLiteral("a"), Decision::Allowed, now));
    QCOMPARE(model.rowCount(), 2);
    // An attempt already past its timeout never shows up.
    model.apply(attempt(99, QStringLiteral("c"), Decision::Pending, now - 200000));
    QCOMPARE(model.rowCount(), 2);
    // Held until answered (egress hold-timeout until-answered): no countdown, and an old
    // attempt still waits.
    model.setHoldTimeout(0);
    QCOMPARE(model.index(0, PendingModel::Default).data().toString(), QStringLiteral("waits for you"));
    model.apply(attempt(99, QStringLiteral("c"), Decision::Pending, now - 200000));
    QCOMPARE(model.rowCount(), 3);
    QVERIFY(model.index(2, PendingModel::Sandbox).data(Qt::ToolTipRole).toString().contains(QLatin1String("waits until you answer")));
    model.setHoldTimeout(97); // the old one is past 97 s: it goes at the next expiry pass
    model.removeEntry(model.entry(2).key);
}

void TestEgressView::theGuestsProcessReportIsShownAsItsClaim()
{
    airlock::ApiClient client;
    PendingModel model;
    PendingPanel panel(&client, &model);
    panel.show();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    // Held before the guest's report came: no process yet.
    proto::EgressEvent held = attempt(10, QStringLiteral("a"), Decision::Pending, now);
    model.apply(held);
    QCOMPARE(panel.decisionBar()->targetId(), qint64(10));
    QCOMPARE(panel.decisionBar()->processText(), QString());
    // The same event again with the report: the bar shows it, labelled as the guest's.
    held.guestProcess = proto::GuestProcess{812, 640, QStringLiteral("curl"), QStringLiteral("sh"), QStringLiteral("curl -s http://x/"),
                                            {QStringLiteral("claude"), QStringLiteral("node"), QStringLiteral("sh")}};
    model.apply(parsed(held.toJson()));
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(panel.decisionBar()->processText(),
             QStringLiteral("the guest reports: claude → node → sh → curl (pid 812, parent 640): curl -s http://x/"));
    QVERIFY(model.index(0, PendingModel::Target).data(Qt::ToolTipRole).toString().contains(QStringLiteral("claude → node → sh → curl")));
    panel.resize(420, 520);
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    saveScreenshot(&panel, QStringLiteral("pending-with-process"));
    // The Network tab has a column for it.
    EgressModel egress;
    egress.enqueue(parsed(held.toJson()));
    egress.flush();
    NetworkView view(&client, &egress);
    view.resize(1400, 500);
    view.setSandbox(QStringLiteral("a"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    saveScreenshot(&view, QStringLiteral("network-with-process"));
    QCOMPARE(egress.headerData(EgressModel::Process, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("Process (reported by the guest)"));
    QCOMPARE(egress.index(0, EgressModel::Process).data().toString(), held.guestProcess->describe());
}

void TestEgressView::decisionBarBuildsTheDecision()
{
    airlock::ApiClient client;
    DecisionBar bar(&client);
    bar.setTarget(42, QStringLiteral("a"), QStringLiteral("api.github.com"), QStringLiteral("198.18.0.5"), 443);
    auto combos = bar.findChildren<QComboBox *>();
    QComboBox *lifetime = nullptr, *match = nullptr, *scope = nullptr;
    for (QComboBox *c : combos) {
        if (c->accessibleName() == QLatin1String("Lifetime")) lifetime = c;
        if (c->accessibleName() == QLatin1String("Match")) match = c;
        if (c->accessibleName() == QLatin1String("Scope")) scope = c;
    }
    QVERIFY(lifetime && match && scope);
    // A name: host or its domain (the daemon reads the Public Suffix List and names the
    // patterns in its answer); no IP choice, the dialled one is synthetic.
    QCOMPARE(match->count(), 2);
    QCOMPARE(match->itemText(0), QStringLiteral("only this host"));
    QCOMPARE(match->itemText(1), QStringLiteral("its whole domain"));
    QCOMPARE(match->itemData(1).toString(), QStringLiteral("domain"));
    QVERIFY(match->itemData(0, Qt::ToolTipRole).toString().contains(QLatin1String("api.github.com")));
    // A long name changes the tooltip, not the width the choice needs: nothing gets squeezed.
    const int width = match->sizeHint().width();
    bar.setTarget(43, QStringLiteral("a"), QStringLiteral("a-very-long-name.of-some-service.eu-west-1.example.co.uk"),
                  QStringLiteral("198.18.0.6"), 443);
    QCOMPARE(match->sizeHint().width(), width);
    QVERIFY(match->itemData(1, Qt::ToolTipRole).toString().contains(QLatin1String("a-very-long-name")));
    bar.setTarget(45, QStringLiteral("a"), QString(), QStringLiteral("203.0.113.9"), 443);
    QCOMPARE(match->count(), 1);
    QCOMPARE(match->itemText(0), QStringLiteral("only this IP"));
    bar.setTarget(42, QStringLiteral("a"), QStringLiteral("api.github.com"), QStringLiteral("198.18.0.5"), 443);
    match->setCurrentIndex(0);

    // Default: this host, forever, this sandbox.
    QJsonObject p = bar.decideParams(QStringLiteral("allow"));
    QCOMPARE(p.value(QLatin1String("id")).toInteger(), 42);
    QCOMPARE(p.value(QLatin1String("action")).toString(), QStringLiteral("allow"));
    QCOMPARE(p.value(QLatin1String("scope")).toString(), QStringLiteral("sandbox"));
    QCOMPARE(p.value(QLatin1String("match")).toString(), QStringLiteral("host"));
    QVERIFY(!p.contains(QLatin1String("for_s")));

    match->setCurrentIndex(1);
    lifetime->setCurrentIndex(lifetime->findText(QStringLiteral("for 10 minutes")));
    scope->setCurrentIndex(1);
    p = bar.decideParams(QStringLiteral("deny"));
    QCOMPARE(p.value(QLatin1String("scope")).toString(), QStringLiteral("global"));
    QCOMPARE(p.value(QLatin1String("match")).toString(), QStringLiteral("domain"));
    QCOMPARE(p.value(QLatin1String("for_s")).toInt(), 600);

    // Raw TCP belongs to a lasting rule on the host (not the domain, not a once decision).
    QCheckBox *rawTcp = nullptr;
    for (QCheckBox *c : bar.findChildren<QCheckBox *>())
        if (c->accessibleName() == QLatin1String("Raw TCP"))
            rawTcp = c;
    QVERIFY(rawTcp);
    QVERIFY(!rawTcp->isEnabled()); // "domain" is chosen
    match->setCurrentIndex(0);
    QVERIFY(rawTcp->isEnabled());
    rawTcp->setChecked(true);
    QCOMPARE(bar.decideParams(QStringLiteral("allow")).value(QLatin1String("raw_tcp")), QJsonValue(true));

    lifetime->setCurrentIndex(0); // once: a one-off, no rule
    QVERIFY(!scope->isEnabled());
    QVERIFY(!rawTcp->isEnabled());
    QVERIFY(!bar.decideParams(QStringLiteral("allow")).contains(QLatin1String("raw_tcp")));
    bar.setTarget(45, QStringLiteral("a"), QString(), QStringLiteral("203.0.113.9"), 443);
    match->setCurrentIndex(0);
    p = bar.decideParams(QStringLiteral("allow"));
    QCOMPARE(p.value(QLatin1String("scope")).toString(), QStringLiteral("once"));
    QCOMPARE(p.value(QLatin1String("match")).toString(), QStringLiteral("ip"));

    // "Until the sandbox stops" is a rule of this sandbox, whatever scope was chosen before.
    scope->setCurrentIndex(scope->findData(QStringLiteral("global")));
    lifetime->setCurrentIndex(lifetime->findText(QStringLiteral("until the sandbox stops")));
    QVERIFY(lifetime->currentIndex() >= 0);
    QVERIFY(!scope->isEnabled());
    p = bar.decideParams(QStringLiteral("allow"));
    QCOMPARE(p.value(QLatin1String("scope")).toString(), QStringLiteral("sandbox"));
    QCOMPARE(p.value(QLatin1String("until_stop")), QJsonValue(true));
    QVERIFY(!p.contains(QLatin1String("for_s")));
}

// A held single request: a row of its own per method and path (not joined with another path
// to the same host), and a decision bar that names it and decides it as a request.
void TestEgressView::heldRequestsAreDecidedAsRequests()
{
    airlock::ApiClient client;
    PendingModel model;
    PendingPanel panel(&client, &model);
    panel.resize(1100, 260);
    panel.show();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const auto held = [&](qint64 id, const QString &method, const QString &path) {
        proto::EgressEvent e = attempt(id, QStringLiteral("agent"), Decision::Pending, now);
        e.host = QStringLiteral("github.com");
        e.port = 443;
        e.proto = QStringLiteral("https");
        e.method = method;
        e.path = path;
        e.request = true;
        return e;
    };
    model.apply(held(20, QStringLiteral("POST"), QStringLiteral("/myorg/tool.git/git-receive-pack")));
    model.apply(held(21, QStringLiteral("POST"), QStringLiteral("/other/tool.git/git-receive-pack")));
    model.apply(held(22, QStringLiteral("POST"), QStringLiteral("/myorg/tool.git/git-receive-pack"))); // the same request again
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.entry(0).attempts, 2);
    QCOMPARE(model.index(0, PendingModel::Request).data().toString(), QStringLiteral("POST /myorg/tool.git/git-receive-pack"));
    DecisionBar *bar = panel.decisionBar();
    // The first request of the row: deciding any of its ids answers the whole row.
    QCOMPARE(bar->targetId(), qint64(20));
    // The request beside the target, whole in its tooltip when the bar is narrow.
    ElidedLabel *request = nullptr;
    for (ElidedLabel *l : bar->findChildren<ElidedLabel *>())
        if (l->accessibleName() == QLatin1String("Request"))
            request = l;
    QVERIFY(request && request->isVisible());
    QCOMPARE(request->fullText(), QStringLiteral("POST /myorg/tool.git/git-receive-pack"));
    QComboBox *match = nullptr;
    for (QComboBox *c : bar->findChildren<QComboBox *>())
        if (c->accessibleName() == QLatin1String("Match"))
            match = c;
    QVERIFY(match);
    QCOMPARE(match->itemText(0), QStringLiteral("only this request"));
    QCOMPARE(match->itemText(1), QStringLiteral("the whole host"));
    QJsonObject p = bar->decideParams(QStringLiteral("allow"));
    QCOMPARE(p.value(QLatin1String("match")).toString(), QStringLiteral("host"));
    QVERIFY(!p.contains(QLatin1String("whole_host")));
    match->setCurrentIndex(1);
    p = bar->decideParams(QStringLiteral("allow"));
    QCOMPARE(p.value(QLatin1String("whole_host")), QJsonValue(true));
    QTest::qWait(50); // the layout takes the new choices' width, as the running app does
    saveScreenshot(&panel, QStringLiteral("pending-request"));
    // A connection again: the usual choices, nothing of a request left in the parameters.
    bar->setTarget(30, QStringLiteral("agent"), QStringLiteral("api.github.com"), QStringLiteral("198.18.0.5"), 443);
    QCOMPARE(match->itemText(0), QStringLiteral("only this host"));
    QVERIFY(!bar->decideParams(QStringLiteral("allow")).contains(QLatin1String("whole_host")));
    QVERIFY(!request->isVisible());
}

// The Network tab's second layout: domain → host → port with counts, bytes each way, the last
// decision and its rule; a denied host answered from the decision bar; the flat list one click
// away. Rows change in place as attempts come, so what is expanded stays expanded.
void TestEgressView::attemptsGroupByDomainHostAndPort()
{
    airlock::ApiClient client;
    EgressModel model;
    NetworkView view(&client, &model);
    view.setSandbox(QStringLiteral("agent"));
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    qint64 id = 1;
    const auto add = [&](const QString &host, int port, Decision decision, qint64 up, qint64 down, qint64 rule = 0) {
        proto::EgressEvent e = attempt(id, QStringLiteral("agent"), decision, now + id);
        e.id = id++;
        e.host = host;
        e.ip = host.startsWith(QLatin1String("203.")) ? host : QStringLiteral("198.18.0.9");
        if (host.startsWith(QLatin1String("203.")))
            e.host.clear();
        e.port = port;
        e.bytesUp = up;
        e.bytesDown = down;
        e.rule = rule;
        e.proto = QStringLiteral("tls");
        model.enqueue(e);
    };
    add(QStringLiteral("registry.npmjs.org"), 443, Decision::Allowed, 1000, 50000, 3);
    add(QStringLiteral("registry.npmjs.org"), 443, Decision::Allowed, 1000, 70000, 3);
    add(QStringLiteral("www.npmjs.org"), 443, Decision::Denied, 0, 0, 7);
    add(QStringLiteral("registry.npmjs.org"), 80, Decision::Denied, 0, 0);
    add(QStringLiteral("api.github.com"), 443, Decision::Pending, 0, 0);
    add(QStringLiteral("203.0.113.9"), 22, Decision::Denied, 0, 0);
    proto::EgressEvent other = attempt(99, QStringLiteral("someone-else"), Decision::Allowed, now);
    model.enqueue(other); // another sandbox's: not here
    model.flush();
    view.resize(1100, 620);
    view.show();
    view.showGrouped(true);
    DestinationModel *groups = view.destinationModel();
    QStringList domains;
    for (int r = 0; r < groups->rowCount(); ++r)
        domains << groups->index(r, DestinationModel::Destination).data().toString();
    QCOMPARE(domains, QStringList({QStringLiteral("npmjs.org"), QStringLiteral("github.com"), QStringLiteral("IP addresses")}));
    const QModelIndex npm = groups->index(0, 0);
    QCOMPARE(groups->index(0, DestinationModel::Attempts).data().toInt(), 4);
    QCOMPARE(groups->index(0, DestinationModel::DeniedCount).data().toInt(), 2);
    QCOMPARE(groups->rowCount(npm), 2); // registry.npmjs.org, www.npmjs.org
    const QModelIndex registry = groups->index(0, 0, npm);
    QCOMPARE(registry.data().toString(), QStringLiteral("registry.npmjs.org"));
    QCOMPARE(groups->rowCount(registry), 2); // ports 443 and 80
    const QModelIndex https = groups->index(0, 0, registry);
    QCOMPARE(https.data().toString(), QStringLiteral("port 443"));
    QCOMPARE(groups->index(0, DestinationModel::Attempts, registry).data().toInt(), 2);
    QCOMPARE(groups->index(0, DestinationModel::BytesDown, registry).data().toString(), QLocale().formattedDataSize(120000));
    QCOMPARE(groups->index(0, DestinationModel::LastDecision, registry).data().toString(), EgressModel::decisionText(Decision::Allowed));
    QCOMPARE(groups->index(0, DestinationModel::LastRule, registry).data().toString(), QStringLiteral("rule #3"));
    // The denied host, selected: its attempt is what Allow and Deny answer.
    const QModelIndex www = groups->index(1, 0, npm);
    QCOMPARE(www.data().toString(), QStringLiteral("www.npmjs.org"));
    view.destinations()->expandAll();
    view.destinations()->setCurrentIndex(www);
    QCOMPARE(view.decisionBar()->targetId(), qint64(3));
    // More attempts: the same rows count them, nothing collapses.
    add(QStringLiteral("registry.npmjs.org"), 443, Decision::Allowed, 10, 10, 3);
    model.flush();
    QCOMPARE(groups->index(0, DestinationModel::Attempts, registry).data().toInt(), 3);
    QVERIFY(view.destinations()->isExpanded(registry));
    QCOMPARE(view.destinations()->currentIndex(), www);
    QTest::qWait(50);
    saveScreenshot(&view, QStringLiteral("network-by-destination"));
    // One click back to the flat list.
    view.showGrouped(false);
    QVERIFY(view.table()->isVisible());
    QVERIFY(!view.destinations()->isVisible());
}


// The chart stacks allowed, denied and pending per minute: each band's top edge is the sum of the
// bands below it, so equal counts never hide each other and the top is the total.
void TestEgressView::chartStacksTheDecisions()
{
    EgressModel model;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    qint64 id = 1;
    for (const auto &[decision, n] : {std::pair{Decision::Allowed, 3}, {Decision::Denied, 2}, {Decision::Pending, 1}})
        for (int i = 0; i < n; ++i)
            model.enqueue(attempt(id++, QStringLiteral("a"), decision, now));
    model.flush();
    EgressChart chart(&model);
    chart.setSandbox(QStringLiteral("a"));
    QList<QAreaSeries *> bands;
    for (QAbstractSeries *s : chart.chart()->series())
        if (auto *area = qobject_cast<QAreaSeries *>(s))
            bands << area;
    QCOMPARE(bands.size(), 3);
    QCOMPARE(bands[0]->name(), QStringLiteral("allowed"));
    QCOMPARE(bands[2]->name(), QStringLiteral("pending"));
    const QList<qreal> expectedTops{3, 5, 6};
    for (int i = 0; i < 3; ++i) {
        const QList<QPointF> top = bands[i]->upperSeries()->points();
        QVERIFY(!top.isEmpty());
        QCOMPARE(top.last().y(), expectedTops[i]);
        const qreal bottom = bands[i]->lowerSeries()->points().last().y();
        QCOMPARE(bottom, i == 0 ? 0.0 : expectedTops[i - 1]);
    }
    auto *axisY = qobject_cast<QValueAxis *>(chart.chart()->axes(Qt::Vertical).value(0));
    QVERIFY(axisY);
    QVERIFY2(axisY->max() >= 6, "the axis must reach the total, not only the largest band");
}

QTEST_MAIN(TestEgressView)
#include "test_egress_view.moc"
