// The crash matrix: airlockd dies (SIGKILL, at a fault point through AIRLOCK_TEST_CRASH_AT,
// core/crashpoint.h) in each step of create, fork, snapshot, restore, stop, start, rm, image
// build, secret set, vault change-passphrase and workspace import; the next airlockd
// reconciles. After each: the store passes PRAGMA integrity_check, the subject's rows,
// libvirt objects, volumes, bridge and nftables rules are all there or all gone, the vault
// opens with the passphrase that was in force, and the operation runs again. The matrix
// (step | point | after restart | rerun) is printed at the end. While airlockd is down, a
// running guest reaches nothing (asked through its guest agent straight over libvirt).
// AIRLOCK_CRASH_MATRIX=full adds the points whose outcome another one already covers.
#include "daemonharness.h"
#include "guestagent.h"
#include "libvirtview.h"
#include "netns.h"
#include "recordinghttpserver.h"
#include "virhandle.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>
#include <QUuid>
#include <libvirt/libvirt.h>
#include <memory>

namespace {

const QString kOutside = QStringLiteral("203.0.113.20");
const QByteArray kPassphrase = "correct horse battery staple crash";
const QByteArray kNewPassphrase = "correct horse battery staple crash two";

bool fullMatrix() { return qEnvironmentVariable("AIRLOCK_CRASH_MATRIX") == QLatin1String("full"); }

// The data rows of a case with two fault points: `flag` says what each point has already made
// durable. A point that is not `bounded` runs only in the full matrix.
struct Point {
    const char *row, *step;
    bool flag, bounded;
};
void addPoints(const char *flag, std::initializer_list<Point> points)
{
    QTest::addColumn<QString>("step");
    QTest::addColumn<bool>(flag);
    for (const Point &p : points)
        if (p.bounded || fullMatrix())
            QTest::newRow(p.row) << QString::fromLatin1(p.step) << p.flag;
}

// One line of the printed matrix; a case that fails half-way leaves its row saying so.
struct MatrixRow {
    QString step, point, after = QStringLiteral("CHECK FAILED"), rerun = QStringLiteral("not reached");
    qint64 seconds = 0;
};
QList<MatrixRow> g_matrix;
class Row {
public:
    Row(const QString &step, const QString &point) : m_row{step, point} { m_clock.start(); }
    ~Row()
    {
        if (QTest::currentTestFailed()) // a helper's failed check returns from the helper only
            m_row.rerun = QStringLiteral("CASE FAILED (see the FAIL above)");
        m_row.seconds = m_clock.elapsed() / 1000;
        g_matrix.append(m_row);
    }
    void after(const QString &what) { m_row.after = what; m_row.rerun = QStringLiteral("CHECK FAILED"); }
    void rerun(const QString &what) { m_row.rerun = what; }
private:
    MatrixRow m_row;
    QElapsedTimer m_clock;
};

QString runText(const QString &program, const QStringList &args, int *rc = nullptr)
{
    QProcess p;
    p.start(program, args);
    p.waitForFinished(30000);
    if (rc)
        *rc = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    return QString::fromUtf8(p.readAllStandardOutput());
}

QString integrityCheck(const QString &dbPath)
{
    QString result;
    const QString conn = QUuid::createUuid().toString();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), conn);
        db.setDatabaseName(dbPath);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=10000"));
        if (!db.open())
            return QStringLiteral("cannot open ") + dbPath;
        QSqlQuery q(db);
        if (!q.exec(QStringLiteral("PRAGMA integrity_check")))
            return QStringLiteral("integrity_check did not run");
        while (q.next())
            result += q.value(0).toString();
    }
    QSqlDatabase::removeDatabase(conn);
    return result;
}

// The sandbox's bridge and gateway, as its store row says ({} when it has none).
QPair<QString, QString> bridgeAndGateway(const QString &dbPath, const QString &sandbox)
{
    QPair<QString, QString> out;
    const QString conn = QUuid::createUuid().toString();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), conn);
        db.setDatabaseName(dbPath);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=10000"));
        if (db.open()) {
            QSqlQuery q(db);
            q.prepare(QStringLiteral("SELECT n.bridge, n.gateway FROM sandboxes s JOIN networks n ON n.name = s.network WHERE s.name = ?"));
            q.addBindValue(sandbox);
            if (q.exec() && q.next())
                out = {q.value(0).toString(), q.value(1).toString()};
        }
    }
    QSqlDatabase::removeDatabase(conn);
    return out;
}

bool bridgeExists(const QString &bridge)
{
    int rc = -1;
    runText(QStringLiteral("ip"), {QStringLiteral("link"), QStringLiteral("show"), QStringLiteral("dev"), bridge}, &rc);
    return rc == 0;
}

} // namespace

class TestEngineCrash : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void createInterrupted_data();
    void createInterrupted();
    void forkInterrupted();
    void snapshotInterruptedIsFinished();
    void liveMergeInterruptedIsFinished();
    void liveCommitInterruptedIsFinished();
    void restoreInterruptedIsFinished();
    void crashWindowGuestReachesNothing();
    void stopInterrupted();
    void startInterrupted_data();
    void startInterrupted();
    void removeInterruptedIsFinished();
    void imageBuildInterrupted_data();
    void imageBuildInterrupted();
    void secretSetInterrupted_data();
    void secretSetInterrupted();
    void changePassphraseInterrupted_data();
    void changePassphraseInterrupted();
    void workspaceImportInterrupted();
    void cleanupTestCase();

private:
    void crashDuring(const QString &step, const QStringList &command, const QByteArray &input = {});
    void crashVaultDuring(const QString &step, const QStringList &command, const QByteArray &input);
    void restart();
    void expectNothingOf(const QString &name);
    void expectWhole(const QString &name, bool running);
    QString expectIntegrity(const QString &dbPath);
    bool guarded(const QString &gateway);
    QByteArray run(const QString &script);
    QString sandboxState(const QString &name);
    DaemonHarness *m_daemon = nullptr;
    std::unique_ptr<DaemonHarness> m_vaultDaemon; // its own data dir: the vault steps change passphrases
    QTemporaryDir m_vaultDir;
    QTemporaryDir m_upstreamDir;
    airlock::test::OutsideNamespace m_outside; // holds 203.0.113.20: not an address of this host
    RecordingHttpServer m_upstream{QByteArrayLiteral("hello from upstream\n")};
    QString m_box, m_table;
    QString db() const { return DaemonHarness::sharedDataDir() + QStringLiteral("/airlock.db"); }
};

void TestEngineCrash::restart()
{
    delete m_daemon;
    m_daemon = new DaemonHarness;
    QString error;
    QVERIFY2(m_daemon->start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
}

void TestEngineCrash::crashDuring(const QString &step, const QStringList &command, const QByteArray &input)
{
    delete m_daemon;
    m_daemon = new DaemonHarness;
    QString error;
    QVERIFY2(m_daemon->start(DaemonHarness::sharedDataDir(), &error, {}, {QStringLiteral("AIRLOCK_TEST_CRASH_AT=") + step}),
             qPrintable(error));
    const CtlResult r = m_daemon->ctl(command, 600000, input);
    QVERIFY2(r.exitCode == 1, r.err.constData()); // the daemon went away mid-call
    QVERIFY(m_daemon->waitForExit(10000));
    QVERIFY2(!m_daemon->running(), "airlockd did not die at the crash point");
    restart(); // reconcile runs here
}

void TestEngineCrash::expectNothingOf(const QString &name)
{
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + name);
    QVERIFY2(view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty(),
             qPrintable((view.domains + view.networks + view.volumes).join(QLatin1Char(','))));
    QCOMPARE(storeRows(db(), QStringLiteral("sandboxes"), QStringLiteral("name"), name), 0);
    QCOMPARE(storeRows(db(), QStringLiteral("operations"), QStringLiteral("subject"), name), 0);
}

// Every part of the sandbox is there: domain, network, its volume, rows, no open operation;
// its bridge and its rules in airlockd's nftables table exactly while it runs.
void TestEngineCrash::expectWhole(const QString &name, bool running)
{
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + name);
    QVERIFY2(view.domains.size() == 1 && view.networks.size() == 1 && !view.volumes.isEmpty(),
             qPrintable((view.domains + view.networks + view.volumes).join(QLatin1Char(','))));
    QCOMPARE(storeRows(db(), QStringLiteral("sandboxes"), QStringLiteral("name"), name), 1);
    QCOMPARE(storeRows(db(), QStringLiteral("operations"), QStringLiteral("subject"), name), 0);
    const auto [bridge, gateway] = bridgeAndGateway(db(), name);
    QVERIFY2(!bridge.isEmpty() && !gateway.isEmpty(), qPrintable(name));
    QCOMPARE(sandboxState(name), running ? QStringLiteral("running") : QStringLiteral("stopped"));
    if (running)
        QVERIFY2(bridgeExists(bridge), qPrintable(bridge));
    QVERIFY2(guarded(gateway) == running, qPrintable(QStringLiteral("%1: nft rules for %2 %3").arg(name, gateway,
                                                                     running ? QStringLiteral("missing") : QStringLiteral("left behind"))));
}

QString TestEngineCrash::expectIntegrity(const QString &dbPath)
{
    const QString result = integrityCheck(dbPath);
    [&] { QCOMPARE(result, QStringLiteral("ok")); }();
    return QStringLiteral("integrity ok");
}

// airlockd's table holds rules for the sandbox's gateway (its DNS and proxy redirects).
bool TestEngineCrash::guarded(const QString &gateway)
{
    const QString table = runText(QStringLiteral("nft"), {QStringLiteral("list"), QStringLiteral("table"), QStringLiteral("inet"), m_table});
    return table.contains(gateway + QLatin1Char(' ')) || table.contains(gateway + QLatin1Char('\n'));
}

QString TestEngineCrash::sandboxState(const QString &name)
{
    for (const QJsonValue &v : m_daemon->ctl({QStringLiteral("ls")}).json().toArray())
        if (v.toObject().value(QLatin1String("name")).toString() == name)
            return v.toObject().value(QLatin1String("state")).toString();
    return {};
}

QByteArray TestEngineCrash::run(const QString &script)
{
    const CtlResult r = m_daemon->ctl({QStringLiteral("exec"), m_box, QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
    return QByteArray::fromBase64(r.json().toObject().value(QLatin1String("stdout_b64")).toString().toLatin1());
}

void TestEngineCrash::initTestCase()
{
    QString error;
    QVERIFY(m_upstreamDir.isValid() && m_vaultDir.isValid());
    QVERIFY2(m_outside.create(QStringLiteral("crm"), kOutside, QStringLiteral("192.0.2.20"), &error), qPrintable(error));
    bool listening = false;
    airlock::test::inNamespace(m_outside.name(), [&] { listening = m_upstream.start(kOutside, 80); });
    QVERIFY2(listening, "cannot listen on 203.0.113.20:80");
    QVERIFY2(DaemonHarness::setUpstream(m_upstreamDir.path(), "203.0.113.20 allowed.test\n", {}, &error), qPrintable(error));
    restart();
    m_table = m_daemon->ctl({QStringLiteral("status")}).json().toObject().value(QLatin1String("egress")).toObject()
                  .value(QLatin1String("nft_table")).toString();
    QVERIFY2(m_table.startsWith(QLatin1String("airlock_")), qPrintable(m_table));
    m_box = uniqueName(QStringLiteral("crash"));
    const CtlResult created = m_daemon->ctl({QStringLiteral("create"), m_box, QStringLiteral("--start")});
    QVERIFY2(created.exitCode == 0, created.err.constData());
}

void TestEngineCrash::createInterrupted_data()
{
    QTest::addColumn<QString>("step");
    QTest::newRow("after the network") << QStringLiteral("create:network");
    QTest::newRow("after the domain") << QStringLiteral("create:domain");
}

void TestEngineCrash::createInterrupted()
{
    QFETCH(QString, step);
    Row row(QStringLiteral("create"), step);
    const QString name = uniqueName(QStringLiteral("half"));
    crashDuring(step, {QStringLiteral("create"), name});
    if (QTest::currentTestFailed())
        return;
    expectNothingOf(name);
    row.after(expectIntegrity(db()) + QStringLiteral(", rolled back: nothing left"));
    // The name is free again.
    QCOMPARE(m_daemon->ctl({QStringLiteral("create"), name}).exitCode, 0);
    expectWhole(name, false);
    QCOMPARE(m_daemon->ctl({QStringLiteral("rm"), name}).exitCode, 0);
    expectNothingOf(name);
    row.rerun(QStringLiteral("create ok, rm ok"));
}

void TestEngineCrash::forkInterrupted()
{
    Row row(QStringLiteral("fork"), QStringLiteral("create:domain"));
    run(QStringLiteral("echo one > /root/note; sync"));
    const CtlResult snap = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box});
    QVERIFY2(snap.exitCode == 0, snap.err.constData());
    const QString id = QString::number(snap.json().toObject().value(QLatin1String("id")).toInteger());
    const QString name = uniqueName(QStringLiteral("halffork"));
    crashDuring(QStringLiteral("create:domain"), {QStringLiteral("fork"), m_box, id, name});
    if (QTest::currentTestFailed())
        return;
    expectNothingOf(name);
    QCOMPARE(run(QStringLiteral("cat /root/note")), QByteArray("one\n")); // the original runs on
    expectWhole(m_box, true);
    row.after(expectIntegrity(db()) + QStringLiteral(", rolled back; origin runs on"));
    const CtlResult forked = m_daemon->ctl({QStringLiteral("fork"), m_box, id, name});
    QVERIFY2(forked.exitCode == 0, forked.err.constData());
    expectWhole(name, false);
    QCOMPARE(m_daemon->ctl({QStringLiteral("rm"), name}).exitCode, 0);
    expectNothingOf(name);
    row.rerun(QStringLiteral("fork ok, rm ok"));
}

void TestEngineCrash::snapshotInterruptedIsFinished()
{
    Row row(QStringLiteral("snapshot"), QStringLiteral("snapshot:switched"));
    const int before = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray().size();
    run(QStringLiteral("echo two > /root/note; sync"));
    // The domain already writes into the new overlay when airlockd dies: reconcile keeps it.
    crashDuring(QStringLiteral("snapshot:switched"), {QStringLiteral("snapshot"), QStringLiteral("create"), m_box});
    if (QTest::currentTestFailed())
        return;
    const QJsonArray after = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray();
    QCOMPARE(after.size(), before + 1);
    QVERIFY(after.last().toObject().value(QLatin1String("current")).toBool());
    QCOMPARE(storeRows(db(), QStringLiteral("operations"), QStringLiteral("subject"), m_box), 0);
    expectWhole(m_box, true);
    row.after(expectIntegrity(db()) + QStringLiteral(", finished: snapshot recorded"));
    run(QStringLiteral("echo three > /root/note; sync"));
    QCOMPARE(run(QStringLiteral("cat /root/note")), QByteArray("three\n"));
    const CtlResult again = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box});
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray().size(), before + 2);
    row.rerun(QStringLiteral("snapshot ok"));
}

void TestEngineCrash::liveMergeInterruptedIsFinished()
{
    Row row(QStringLiteral("snapshot rm (live merge)"), QStringLiteral("merge:pulling"));
    const int before = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray().size();
    const CtlResult made = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    run(QStringLiteral("echo four > /root/note; sync"));
    // QEMU's block job goes on without airlockd: reconcile waits for it and records the merge.
    crashDuring(QStringLiteral("merge:pulling"), {QStringLiteral("snapshot"), QStringLiteral("rm"), m_box,
                                                  QString::number(made.json().toObject().value(QLatin1String("id")).toInteger())});
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray().size(), before);
    QCOMPARE(storeRows(db(), QStringLiteral("operations"), QStringLiteral("subject"), m_box), 0);
    expectWhole(m_box, true);
    row.after(expectIntegrity(db()) + QStringLiteral(", finished: merged into the running disk"));
    QCOMPARE(run(QStringLiteral("cat /root/note")), QByteArray("four\n"));
    row.rerun(QStringLiteral("guest read on"));
}

// A snapshot with a later one above it merges by a commit into its own layer: QEMU goes on
// without airlockd, and reconcile records the later snapshot on the merged layer.
void TestEngineCrash::liveCommitInterruptedIsFinished()
{
    Row row(QStringLiteral("snapshot rm (live commit)"), QStringLiteral("merge:committing"));
    const auto ids = [&] {
        QList<qint64> out;
        for (const QJsonValue &v : m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray())
            out << v.toObject().value(QLatin1String("id")).toInteger();
        return out;
    };
    const auto snapshot = [&] {
        const CtlResult made = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("create"), m_box});
        return made.exitCode == 0 ? made.json().toObject().value(QLatin1String("id")).toInteger() : qint64(0);
    };
    const int before = int(ids().size());
    const qint64 lower = snapshot();
    run(QStringLiteral("echo five > /root/note; sync"));
    const qint64 upper = snapshot();
    QVERIFY(lower > 0 && upper > 0);
    run(QStringLiteral("echo six > /root/note; sync"));
    crashDuring(QStringLiteral("merge:committing"), {QStringLiteral("snapshot"), QStringLiteral("rm"), m_box, QString::number(lower)});
    if (QTest::currentTestFailed())
        return;
    const QList<qint64> after = ids();
    QCOMPARE(after.size(), before + 1);
    QVERIFY(after.contains(upper) && !after.contains(lower));
    QCOMPARE(storeRows(db(), QStringLiteral("operations"), QStringLiteral("subject"), m_box), 0);
    expectWhole(m_box, true);
    row.after(expectIntegrity(db()) + QStringLiteral(", finished: committed into the layer below"));
    QCOMPARE(run(QStringLiteral("cat /root/note")), QByteArray("six\n"));
    QCOMPARE(m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("restore"), m_box, QString::number(upper)}).exitCode, 0);
    QCOMPARE(run(QStringLiteral("cat /root/note")), QByteArray("five\n"));
    QCOMPARE(m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("rm"), m_box, QString::number(upper)}).exitCode, 0);
    QCOMPARE(int(ids().size()), before);
    row.rerun(QStringLiteral("later snapshot restores"));
}

void TestEngineCrash::restoreInterruptedIsFinished()
{
    Row row(QStringLiteral("restore"), QStringLiteral("restore:switched"));
    const QJsonArray snaps = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray();
    // The snapshot taken while the note said "two" (the one before the rerun's).
    const QString id = QString::number(snaps.at(snaps.size() - 2).toObject().value(QLatin1String("id")).toInteger());
    crashDuring(QStringLiteral("restore:switched"), {QStringLiteral("snapshot"), QStringLiteral("restore"), m_box, id});
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(storeRows(db(), QStringLiteral("operations"), QStringLiteral("subject"), m_box), 0);
    expectWhole(m_box, false);
    row.after(expectIntegrity(db()) + QStringLiteral(", finished: stopped on the restored layer"));
    const CtlResult started = m_daemon->ctl({QStringLiteral("start"), m_box});
    QVERIFY2(started.exitCode == 0, started.err.constData());
    QCOMPARE(run(QStringLiteral("cat /root/note")), QByteArray("two\n"));
    bool current = false;
    for (const QJsonValue &v : m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("ls"), m_box}).json().toArray())
        current = current || (QString::number(v.toObject().value(QLatin1String("id")).toInteger()) == id &&
                              v.toObject().value(QLatin1String("current")).toBool());
    QVERIFY2(current, "the restored snapshot is not the sandbox's current one");
    const CtlResult again = m_daemon->ctl({QStringLiteral("snapshot"), QStringLiteral("restore"), m_box, id});
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(run(QStringLiteral("cat /root/note")), QByteArray("two\n"));
    row.rerun(QStringLiteral("restore ok (running guest)"));
}

// While airlockd is dead the guest's rules stay and their ports are closed: a connection to
// the outside and a DNS query to the gateway both fail. Asked through libvirt, not airlockd.
void TestEngineCrash::crashWindowGuestReachesNothing()
{
    Row row(QStringLiteral("crash window"), QStringLiteral("SIGKILL, running guest"));
    expectWhole(m_box, true);
    const QString gateway = bridgeAndGateway(db(), m_box).second;
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + m_box);
    QCOMPARE(view.domains.size(), 1);
    const int requestsBefore = int(m_upstream.requests().size());
    m_daemon->killHard();
    QVERIFY(!m_daemon->running());
    QVERIFY2(guarded(gateway), "airlockd's table lost the guest's rules when airlockd died");
    airlock::VirConnection conn(virConnectOpen(qPrintable(DaemonHarness::libvirtUri())));
    QVERIFY(conn);
    airlock::VirDomain dom(virDomainLookupByName(conn.get(), qPrintable(view.domains.first())));
    QVERIFY(dom);
    const QString probe = QStringLiteral(
        "curl -sS --max-time 5 http://%1/ >/dev/null 2>&1; echo tcp=$?; "
        "timeout 8 nslookup allowed.test %2 >/dev/null 2>&1; echo dns=$?").arg(kOutside, gateway);
    auto r = airlock::GuestAgent(dom.get()).exec({QStringLiteral("/bin/sh"), QStringLiteral("-c"), probe}, {}, 60);
    QVERIFY2(r, r ? "" : qPrintable(r.error().message()));
    const QByteArray out = r->out;
    QVERIFY2(out.contains("tcp=") && !out.contains("tcp=0\n"), out.constData());
    QVERIFY2(out.contains("dns=") && !out.contains("dns=0\n"), out.constData());
    QCOMPARE(int(m_upstream.requests().size()), requestsBefore);
    QVERIFY2(guarded(gateway), "the table changed while airlockd was down");
    row.after(QStringLiteral("down: tcp and dns fail, table stays"));

    restart();
    expectWhole(m_box, true);
    // Guarded again: with no rule the connection is held or refused, never let through ...
    const CtlResult held = m_daemon->guestSh(m_box, QStringLiteral("curl -sS --max-time 5 http://%1/ >/dev/null 2>&1; echo rc=$?").arg(kOutside));
    QVERIFY2(held.exitCode == 0 && !held.out.contains("rc=0\n"), held.out.constData());
    QCOMPARE(int(m_upstream.requests().size()), requestsBefore);
    // ... and the guard works: an allowed flow goes out (so the failures above were the guard's).
    QCOMPARE(m_daemon->ctl({QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--sandbox"), m_box, QStringLiteral("--action"),
                            QStringLiteral("allow"), QStringLiteral("--host"), QStringLiteral("allowed.test")}).exitCode, 0);
    const CtlResult allowed = m_daemon->guestSh(m_box, QStringLiteral("curl -sS --max-time 30 http://allowed.test/hello"));
    QVERIFY2(allowed.exitCode == 0 && allowed.out == "hello from upstream\n", QByteArray(allowed.err + allowed.out).constData());
    row.rerun(QStringLiteral("restarted: guarded, unknown held, allowed flows"));
}

// Killed after the guest shut off but before its network was released: the next airlockd
// guards only running guests, so the rules go; the sandbox is whole and stopped.
void TestEngineCrash::stopInterrupted()
{
    Row row(QStringLiteral("stop"), QStringLiteral("stop:shutoff"));
    crashDuring(QStringLiteral("stop:shutoff"), {QStringLiteral("stop"), m_box});
    if (QTest::currentTestFailed())
        return;
    expectWhole(m_box, false);
    row.after(expectIntegrity(db()) + QStringLiteral(", stopped, rules gone"));
    const CtlResult again = m_daemon->ctl({QStringLiteral("stop"), m_box});
    QVERIFY2(again.exitCode != 0 && again.err.contains("not running"), again.err.constData()); // done already
    row.rerun(QStringLiteral("stop: already stopped"));
}

void TestEngineCrash::startInterrupted_data()
{
    // Bounded: the booted point (a guest that must be guarded again); full: also the guarded one.
    addPoints("runs", {{"guarded, not booted", "start:guarded", false, false},
                       {"booted, not recorded", "start:booted", true, true}});
}

// Dies with the rules in place before the domain starts (the next airlockd drops them), or
// with the domain started (the next airlockd guards it again).
void TestEngineCrash::startInterrupted()
{
    QFETCH(QString, step);
    QFETCH(bool, runs);
    Row row(QStringLiteral("start"), step);
    if (sandboxState(m_box) != QLatin1String("stopped"))
        QCOMPARE(m_daemon->ctl({QStringLiteral("kill"), m_box}).exitCode, 0);
    crashDuring(step, {QStringLiteral("start"), m_box});
    if (QTest::currentTestFailed())
        return;
    expectWhole(m_box, runs);
    row.after(expectIntegrity(db()) + (runs ? QStringLiteral(", running and guarded again") : QStringLiteral(", stopped, rules gone")));
    const CtlResult again = m_daemon->ctl({QStringLiteral("start"), m_box});
    if (runs) {
        QVERIFY2(again.exitCode != 0 && again.err.contains("already running"), again.err.constData());
        row.rerun(QStringLiteral("start: already running"));
        return;
    }
    QVERIFY2(again.exitCode == 0, again.err.constData());
    expectWhole(m_box, true);
    row.rerun(QStringLiteral("start ok, guarded"));
}

// Killed with the objects gone but the rows still there: reconcile finishes the removal.
void TestEngineCrash::removeInterruptedIsFinished()
{
    Row row(QStringLiteral("rm"), QStringLiteral("remove:objects"));
    const QString name = uniqueName(QStringLiteral("gone"));
    QCOMPARE(m_daemon->ctl({QStringLiteral("create"), name}).exitCode, 0);
    const QString bridge = bridgeAndGateway(db(), name).first;
    QVERIFY(!bridge.isEmpty());
    crashDuring(QStringLiteral("remove:objects"), {QStringLiteral("rm"), name});
    if (QTest::currentTestFailed())
        return;
    expectNothingOf(name);
    QVERIFY2(!bridgeExists(bridge), qPrintable(bridge));
    row.after(expectIntegrity(db()) + QStringLiteral(", finished: nothing left"));
    const CtlResult again = m_daemon->ctl({QStringLiteral("rm"), name});
    QVERIFY2(again.exitCode != 0 && again.err.contains("no sandbox"), again.err.constData());
    QCOMPARE(m_daemon->ctl({QStringLiteral("create"), name}).exitCode, 0);
    QCOMPARE(m_daemon->ctl({QStringLiteral("rm"), name}).exitCode, 0);
    expectNothingOf(name);
    row.rerun(QStringLiteral("rm: already gone; create+rm ok"));
}

void TestEngineCrash::imageBuildInterrupted_data()
{
    // Only the first point is bounded: each of the others runs the recipe twice (~70 s each).
    QTest::addColumn<QString>("step");
    QTest::newRow("operation begun") << QStringLiteral("image:begun");
    if (!fullMatrix())
        return;
    QTest::newRow("recipe ran") << QStringLiteral("image:ran");
    QTest::newRow("volumes moved in") << QStringLiteral("image:moved");
}

// The tiny recipe again under a name of its own: killed before the image row, the build is
// undone (no volume, no scratch dir, no row) and builds again.
void TestEngineCrash::imageBuildInterrupted()
{
    QFETCH(QString, step);
    Row row(QStringLiteral("image build"), step);
    const QString image = QStringLiteral("crashimg");
    const QStringList build{QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("tiny"), QStringLiteral("--name"), image};
    crashDuring(step, build);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(storeRows(db(), QStringLiteral("images"), QStringLiteral("name"), image), 0);
    QCOMPARE(storeRows(db(), QStringLiteral("operations"), QStringLiteral("subject"), image), 0);
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("img-") + image + QLatin1Char('-'));
    QVERIFY2(view.volumes.isEmpty(), qPrintable(view.volumes.join(QLatin1Char(','))));
    // The build's scratch dir sits beside the pool (SandboxEngine::buildImage, poolDirectory).
    const QString pool = qEnvironmentVariable("AIRLOCK_POOL_DIR", QStringLiteral("/var/lib/libvirt/images/airlock"));
    const QStringList scratch = QDir(pool + QStringLiteral("/..")).entryList({QStringLiteral("build-*img-") + image + QStringLiteral("-*")}, QDir::Dirs);
    QVERIFY2(QDir(pool).exists() && scratch.isEmpty(), qPrintable(scratch.join(QLatin1Char(','))));
    row.after(expectIntegrity(db()) + QStringLiteral(", rolled back: no row, volume or scratch"));
    const CtlResult again = m_daemon->ctl(build, 900000);
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(storeRows(db(), QStringLiteral("images"), QStringLiteral("name"), image), 1);
    QCOMPARE(libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("img-") + image + QLatin1Char('-')).volumes.size(), 3);
    QCOMPARE(m_daemon->ctl({QStringLiteral("image"), QStringLiteral("rm"), image}).exitCode, 0);
    row.rerun(QStringLiteral("build ok, rm ok"));
}

// The vault steps run on an airlockd of their own data dir: they change its passphrase.
void TestEngineCrash::crashVaultDuring(const QString &step, const QStringList &command, const QByteArray &input)
{
    QString error;
    if (!m_vaultDaemon) { // first use: a new vault
        m_vaultDaemon = std::make_unique<DaemonHarness>();
        QVERIFY2(m_vaultDaemon->start(m_vaultDir.path(), &error), qPrintable(error));
        const CtlResult init = m_vaultDaemon->initOrUnlockVault(kPassphrase);
        QVERIFY2(init.exitCode == 0, init.err.constData());
    }
    m_vaultDaemon = std::make_unique<DaemonHarness>();
    QVERIFY2(m_vaultDaemon->start(m_vaultDir.path(), &error, {}, {QStringLiteral("AIRLOCK_TEST_CRASH_AT=") + step}), qPrintable(error));
    const CtlResult unlocked = m_vaultDaemon->ctl({QStringLiteral("vault"), QStringLiteral("unlock")}, 60000, kPassphrase + '\n');
    QVERIFY2(unlocked.exitCode == 0, unlocked.err.constData());
    const CtlResult r = m_vaultDaemon->ctl(command, 60000, input);
    QVERIFY2(r.exitCode == 1, r.err.constData());
    QVERIFY(m_vaultDaemon->waitForExit(10000));
    m_vaultDaemon = std::make_unique<DaemonHarness>();
    QVERIFY2(m_vaultDaemon->start(m_vaultDir.path(), &error), qPrintable(error));
}

void TestEngineCrash::secretSetInterrupted_data()
{
    addPoints("stored", {{"sealed, not committed", "secret:sealed", false, true}, {"committed", "secret:stored", true, true}});
}

// The secret is all there (hosts, sealed value) or not there at all: never a row whose
// value is still empty.
void TestEngineCrash::secretSetInterrupted()
{
    QFETCH(QString, step);
    QFETCH(bool, stored);
    Row row(QStringLiteral("secret set"), step);
    const QString name = QStringLiteral("crash_") + QString(step).remove(QLatin1Char(':'));
    const QStringList set{QStringLiteral("secret"), QStringLiteral("set"), name, QStringLiteral("--host"), QStringLiteral("api.example.com")};
    crashVaultDuring(step, set, "s3cret-value\n");
    if (QTest::currentTestFailed())
        return;
    const QString vaultDb = m_vaultDir.path() + QStringLiteral("/airlock.db");
    const CtlResult unlocked = m_vaultDaemon->ctl({QStringLiteral("vault"), QStringLiteral("unlock")}, 60000, kPassphrase + '\n');
    QVERIFY2(unlocked.exitCode == 0, unlocked.err.constData());
    QCOMPARE(storeRows(vaultDb, QStringLiteral("secrets"), QStringLiteral("name"), name), stored ? 1 : 0);
    bool listed = false;
    for (const QJsonValue &v : m_vaultDaemon->ctl({QStringLiteral("secret"), QStringLiteral("ls")}).json().toArray())
        listed = listed || (v.toObject().value(QLatin1String("name")).toString() == name &&
                            v.toObject().value(QLatin1String("hosts")).toArray().contains(QStringLiteral("api.example.com")));
    QCOMPARE(listed, stored);
    row.after(expectIntegrity(vaultDb) + QStringLiteral(", vault opens; ") +
              (stored ? QStringLiteral("secret there with its hosts") : QStringLiteral("no secret row")));
    const CtlResult again = m_vaultDaemon->ctl(set, 60000, "s3cret-value\n");
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(storeRows(vaultDb, QStringLiteral("secrets"), QStringLiteral("name"), name), 1);
    row.rerun(QStringLiteral("secret set ok"));
}

void TestEngineCrash::changePassphraseInterrupted_data()
{
    addPoints("committed", {{"rewrapped, not committed", "vault:rewrapped", false, true}, {"committed", "vault:rekeyed", true, true}});
}

// The passphrase in force afterwards is the old one unless the new slot committed, and then
// only the new one; either way the secrets stay (the vault key itself never changes).
void TestEngineCrash::changePassphraseInterrupted()
{
    QFETCH(QString, step);
    QFETCH(bool, committed);
    Row row(QStringLiteral("vault change-passphrase"), step);
    const QStringList change{QStringLiteral("vault"), QStringLiteral("change-passphrase")};
    crashVaultDuring(step, change, kPassphrase + '\n' + kNewPassphrase + '\n');
    if (QTest::currentTestFailed())
        return;
    const QByteArray inForce = committed ? kNewPassphrase : kPassphrase;
    const QByteArray other = committed ? kPassphrase : kNewPassphrase;
    const CtlResult wrong = m_vaultDaemon->ctl({QStringLiteral("vault"), QStringLiteral("unlock")}, 60000, other + '\n');
    QVERIFY2(wrong.exitCode != 0, "the passphrase that is not in force opened the vault");
    const CtlResult unlocked = m_vaultDaemon->ctl({QStringLiteral("vault"), QStringLiteral("unlock")}, 60000, inForce + '\n');
    QVERIFY2(unlocked.exitCode == 0, unlocked.err.constData());
    QVERIFY(m_vaultDaemon->ctl({QStringLiteral("secret"), QStringLiteral("ls")}).json().toArray().size() >= 1);
    const QString vaultDb = m_vaultDir.path() + QStringLiteral("/airlock.db");
    row.after(expectIntegrity(vaultDb) + (committed ? QStringLiteral(", only the new passphrase opens")
                                                    : QStringLiteral(", only the old passphrase opens")));
    // Run again, to the new passphrase when it did not commit; then back, so the next case
    // (and crashVaultDuring) finds the first passphrase in force.
    if (!committed) {
        const CtlResult again = m_vaultDaemon->ctl(change, 60000, kPassphrase + '\n' + kNewPassphrase + '\n');
        QVERIFY2(again.exitCode == 0, again.err.constData());
    }
    const CtlResult back = m_vaultDaemon->ctl(change, 60000, kNewPassphrase + '\n' + kPassphrase + '\n');
    QVERIFY2(back.exitCode == 0, back.err.constData());
    m_vaultDaemon->ctl({QStringLiteral("vault"), QStringLiteral("lock")});
    const CtlResult reopened = m_vaultDaemon->ctl({QStringLiteral("vault"), QStringLiteral("unlock")}, 60000, kPassphrase + '\n');
    QVERIFY2(reopened.exitCode == 0, reopened.err.constData());
    row.rerun(committed ? QStringLiteral("change back ok") : QStringLiteral("change ok, change back ok"));
}

// create --workspace: killed while the bundle is half in the guest. The sandbox itself was
// complete before the copy began, so it stays whole (running, guarded); airlockctl said so
// and how to remove it. Removed, the same create --workspace succeeds.
void TestEngineCrash::workspaceImportInterrupted()
{
    Row row(QStringLiteral("workspace import"), QStringLiteral("push:written"));
    QTemporaryDir repo;
    QVERIFY(repo.isValid());
    const auto git = [&](const QStringList &args) {
        int rc = -1;
        runText(QStringLiteral("git"), QStringList{QStringLiteral("-C"), repo.path(), QStringLiteral("-c"), QStringLiteral("user.name=t"),
                                                   QStringLiteral("-c"), QStringLiteral("user.email=t@example.com")} + args, &rc);
        return rc;
    };
    QCOMPARE(git({QStringLiteral("init"), QStringLiteral("-q")}), 0);
    QFile file(repo.path() + QStringLiteral("/hello.txt"));
    QVERIFY(file.open(QIODevice::WriteOnly) && file.write("imported\n") == 9);
    file.close();
    QCOMPARE(git({QStringLiteral("add"), QStringLiteral("hello.txt")}), 0);
    QCOMPARE(git({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("one")}), 0);

    const QString name = uniqueName(QStringLiteral("ws"));
    const QStringList create{QStringLiteral("create"), name, QStringLiteral("--workspace"), repo.path()};
    crashDuring(QStringLiteral("push:written"), create);
    if (QTest::currentTestFailed())
        return;
    expectWhole(name, true);
    row.after(expectIntegrity(db()) + QStringLiteral(", sandbox whole (running, guarded), no workspace"));
    QVERIFY(m_daemon->killAndRemove(name));
    expectNothingOf(name);
    const CtlResult again = m_daemon->ctl(create, 600000);
    QVERIFY2(again.exitCode == 0, again.err.constData());
    const CtlResult cat = m_daemon->guestSh(name, QStringLiteral("cat /workspace/hello.txt"));
    QCOMPARE(cat.out, QByteArray("imported\n"));
    QVERIFY(m_daemon->killAndRemove(name));
    expectNothingOf(name);
    row.rerun(QStringLiteral("rm, then create --workspace ok"));
}

void TestEngineCrash::cleanupTestCase()
{
    qInfo().noquote() << "crash matrix:" << (fullMatrix() ? "full" : "bounded (AIRLOCK_CRASH_MATRIX=full for all points)");
    const QString line = QStringLiteral("%1 | %2 | %3 | %4 | %5");
    qInfo().noquote() << line.arg(QStringLiteral("step"), -24).arg(QStringLiteral("point"), -22)
                             .arg(QStringLiteral("after restart"), -62).arg(QStringLiteral("rerun"), -46).arg(QStringLiteral("s"));
    for (const MatrixRow &r : std::as_const(g_matrix))
        qInfo().noquote() << line.arg(r.step, -24).arg(r.point, -22).arg(r.after, -62).arg(r.rerun, -46).arg(r.seconds);
    m_vaultDaemon.reset();
    m_upstream.stop();
    m_outside.remove();
    if (!m_daemon)
        return;
    m_daemon->ctl({QStringLiteral("kill"), m_box});
    QCOMPARE(m_daemon->ctl({QStringLiteral("rm"), m_box}).exitCode, 0);
    expectNothingOf(m_box);
    delete m_daemon;
    m_daemon = nullptr;
}

QTEST_GUILESS_MAIN(TestEngineCrash)
#include "test_engine_crash.moc"
