// SandboxEngine on libvirt's test driver (test:///default: in-process, no libvirtd, no VM),
// so create, snapshots, reconcile and failures are checked in seconds. The test driver keeps
// domains, networks and volumes in memory and runs no guest: disk contents (qemu-img, a
// merge), the guest agent and live snapshots stay with the real-VM engine tests. Its state
// is shared by every connection of this process while one stays open; the test holds one
// (m_conn) to look behind the engine's back and to act there.
#include "store/store.h"
#include "sandboxengine.h"
#include "virhandle.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <memory>

using namespace airlock;

namespace {
constexpr qint64 kExt4MagicOffset = 1024 + 56;

// Stands in for the egress broker (app/daemon's EgressNetworkHooks needs nftables and
// root): it guards whatever it is given and remembers what that was. The real one is
// covered by test_egress and the VM tests.
class AcceptingHooks : public NetworkHooks {
public:
    Status networkUp(const SandboxNet &net) override
    {
        up << net.name;
        return ok();
    }
    void networkDown(const QString &name) override { up.removeAll(name); }
    Status reconcile(const QList<SandboxNet> &running) override
    {
        up.clear();
        for (const SandboxNet &n : running)
            up << n.name;
        return ok();
    }
    QStringList up;
};
} // namespace

class TestEngineTestDriver : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void createDefinesTheDomainAndWritesTheRows();
    void startPauseResumeKillAndStop();
    void waitingForTheAgentEndsOnEveryOutcome();
    void snapshotsFormATreeAndAForkPinsItsSnapshot();
    void aDomainRemovedBehindTheEngineIsReportedAndCleanedUp();
    void aRowWithoutADomainSurvivesARestartAndAnInterruptedCreateIsUndone();
    void aDomainWithoutARowIsRemovedAtStart();
    void badRequestsAreRefusedAndMakeNothing();
    void libvirtErrorsAreClearAndLeaveNothing();
    void anUnreachableLibvirtIsAClearError();
    void aRunningGuestWhoseNetworkCannotBeDescribedIsStoppedAtStart();

private:
    DaemonConfig config(const QString &uri = QStringLiteral("test:///default")) const;
    std::unique_ptr<SandboxEngine> startEngine(NetworkHooks *hooks = nullptr);
    void addImage(const QString &name, bool ext4Root = true);
    QString object(const QString &sandbox) const { return QStringLiteral("airlock-%1-%2").arg(m_instance, sandbox); }
    bool hasDomain(const QString &name) const { return bool(lookupDomain(m_conn.get(), name)); }
    bool hasNetwork(const QString &name) const { return bool(lookupNetwork(m_conn.get(), name)); }
    QStringList volumesContaining(const QString &part) const;
    int count(const QString &sql, const QVariantList &binds = {}) const;
    void verifyNothingOf(const QString &sandbox);

    QTemporaryDir m_dir;
    AcceptingHooks m_hooks; // outlives every engine that was given it, also when a case fails
    VirConnection m_conn;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<SandboxEngine> m_engine;
    QString m_instance;
};

DaemonConfig TestEngineTestDriver::config(const QString &uri) const
{
    DaemonConfig c;
    c.dataDir = m_dir.path();
    c.libvirtUri = uri;
    c.accel = AccelChoice::Tcg; // no KVM probe: it would boot QEMU
    return c;
}

std::unique_ptr<SandboxEngine> TestEngineTestDriver::startEngine(NetworkHooks *hooks)
{
    auto engine = std::make_unique<SandboxEngine>(config());
    engine->setNetworkHooks(hooks);
    const Status s = engine->start();
    return s ? std::move(engine) : nullptr;
}

void TestEngineTestDriver::initTestCase()
{
    QVERIFY(m_dir.isValid());
    qputenv("AIRLOCK_POOL_DIR", (m_dir.path() + QStringLiteral("/pool")).toUtf8());
    LibvirtConnection::initializeLibvirt();
    m_conn.reset(virConnectOpen("test:///default"));
    QVERIFY(m_conn);
    m_engine = startEngine(); // defines the pool "airlock" in the test driver
    QVERIFY(m_engine);
    Result<Store> store = Store::open(config().databasePath());
    QVERIFY2(store, qPrintable(store.error().message()));
    m_store = std::make_unique<Store>(std::move(store.value()));
    m_instance = m_store->setting(QStringLiteral("engine.instance")).value();
    QCOMPARE(m_instance.size(), 4);
    addImage(QStringLiteral("tiny"));
    m_engine.reset();
}

void TestEngineTestDriver::init()
{
    m_engine = startEngine();
    QVERIFY(m_engine);
}

void TestEngineTestDriver::cleanup()
{
    // Whatever a case left (it failed half-way) must not leak into the next one.
    if (m_engine) {
        for (const QJsonValue &v : m_engine->list(0).value()) {
            const QString name = v.toObject().value(QLatin1String("name")).toString();
            m_engine->kill(name, 0);
        }
        for (const QString &name : {QStringLiteral("tree-fork"), QStringLiteral("tree")})
            m_engine->remove(name, 0);
        for (const QJsonValue &v : m_engine->list(0).value())
            m_engine->remove(v.toObject().value(QLatin1String("name")).toString(), 0);
    }
    m_engine.reset();
}

// An image as a recipe leaves it: three volumes of the pool whose files exist, a root disk
// with an ext4 superblock, and its row. (Building one runs the recipe: the real-VM tests.)
void TestEngineTestDriver::addImage(const QString &name, bool ext4Root)
{
    VirPool pool(virStoragePoolLookupByName(m_conn.get(), "airlock"));
    QVERIFY(pool);
    const QString base = QStringLiteral("%1-img-%2-test").arg(m_instance, name);
    QStringList volumes;
    for (const QString &suffix : {QStringLiteral(".vmlinuz"), QStringLiteral(".initrd"), QStringLiteral(".root.raw")}) {
        const QString vol = base + suffix;
        const QString xml = QStringLiteral("<volume type='file'><name>%1</name><capacity unit='bytes'>4096</capacity>"
                                           "<target><format type='raw'/></target></volume>").arg(vol);
        VirVolume created(virStorageVolCreateXML(pool.get(), xml.toUtf8().constData(), 0));
        QVERIFY2(created, qPrintable(vol));
        QFile file(takeVirString(virStorageVolGetPath(created.get())));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QByteArray bytes(4096, '\0');
        if (suffix.endsWith(QLatin1String(".raw")) && ext4Root)
            bytes.replace(kExt4MagicOffset, 2, QByteArray("\x53\xef", 2));
        QCOMPARE(file.write(bytes), qint64(bytes.size()));
        volumes << vol;
    }
    const Result<qint64> row = m_store->write(
        QStringLiteral("INSERT INTO images(name, recipe, kernel, initrd, rootfs, size_bytes, digest, created) "
                       "VALUES(?, 'tiny', ?, ?, ?, 12288, 'test', ?)"),
        {name, volumes.at(0), volumes.at(1), volumes.at(2), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)});
    QVERIFY2(row, qPrintable(row.error().message()));
}

QStringList TestEngineTestDriver::volumesContaining(const QString &part) const
{
    QStringList out;
    VirPool pool(virStoragePoolLookupByName(m_conn.get(), "airlock"));
    for (const VirVolume &vol : listAllVolumes(pool.get()))
        if (const QString n = QString::fromUtf8(virStorageVolGetName(vol.get())); n.contains(part))
            out << n;
    return out;
}

int TestEngineTestDriver::count(const QString &sql, const QVariantList &binds) const
{
    const auto row = m_store->firstRow(sql, binds);
    return row && row.value() ? row.value()->value(0).toInt() : -1;
}

void TestEngineTestDriver::verifyNothingOf(const QString &sandbox)
{
    QVERIFY2(!hasDomain(object(sandbox)), qPrintable(sandbox));
    QVERIFY2(!hasNetwork(object(sandbox)), qPrintable(sandbox));
    QCOMPARE(volumesContaining(QStringLiteral("-sbx-%1-").arg(sandbox)), QStringList());
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM sandboxes WHERE name = ?"), {sandbox}), 0);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM networks WHERE name = ?"), {object(sandbox)}), 0);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM operations")), 0);
}

void TestEngineTestDriver::createDefinesTheDomainAndWritesTheRows()
{
    CreateRequest r;
    r.name = QStringLiteral("box1");
    r.env.insert(QStringLiteral("GREETING"), QStringLiteral("hello"));
    const Result<QJsonObject> made = m_engine->create(r);
    QVERIFY2(made, qPrintable(made.error().message()));
    QCOMPARE(made->value(QLatin1String("state")).toString(), QStringLiteral("stopped"));
    const QString ip = made->value(QLatin1String("ip")).toString();
    QVERIFY(ip.startsWith(QLatin1String("10.213.")));

    VirDomain dom = lookupDomain(m_conn.get(), object(r.name));
    QVERIFY(dom);
    QCOMPARE(virDomainIsActive(dom.get()), 0);
    const QString xml = takeVirString(virDomainGetXMLDesc(dom.get(), 0));
    const QStringList disks = volumesContaining(QStringLiteral("-sbx-box1-"));
    QCOMPARE(disks.size(), 1);
    QVERIFY2(xml.contains(QStringLiteral("%1/pool/%2'").arg(m_dir.path(), disks.first())), qPrintable(xml));
    QVERIFY2(xml.contains(QStringLiteral("airlock.ip=%1/30").arg(ip)), qPrintable(xml));
    QVERIFY2(xml.contains(QStringLiteral("airlock.env=")), qPrintable(xml));
    VirNetwork net = lookupNetwork(m_conn.get(), object(r.name));
    QVERIFY(net);
    QCOMPARE(virNetworkIsActive(net.get()), 1);

    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM sandboxes s JOIN layers l ON l.id = s.top_layer "
                                  "WHERE s.name = ? AND l.volume = ? AND l.parent_id IS NULL"), {r.name, disks.first()}), 1);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM networks WHERE name = ? AND guest_ip = ?"), {object(r.name), ip}), 1);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM operations")), 0);
    const Result<SandboxNet> described = m_engine->networkOf(r.name);
    QVERIFY2(described, qPrintable(described.error().message()));
    QCOMPARE(ipv4ToString(described->guestIp), ip);
    QVERIFY(described->bridge.startsWith(QStringLiteral("al-%1").arg(m_instance)));
    QVERIFY(described->sandboxId > 0);

    const Result<QJsonObject> listed = m_engine->describe(r.name, 0);
    QVERIFY(listed);
    QCOMPARE(listed->value(QLatin1String("state")).toString(), QStringLiteral("stopped"));
    const Result<QJsonObject> again = m_engine->create(r);
    QVERIFY(!again);
    QCOMPARE(again.error().kind, ErrorKind::Conflict);
    QVERIFY(m_engine->remove(r.name, 0));
    verifyNothingOf(r.name);
}

void TestEngineTestDriver::startPauseResumeKillAndStop()
{
    CreateRequest r;
    r.name = QStringLiteral("power");
    QVERIFY(m_engine->create(r));
    const QString dom = object(r.name);
    QVERIFY(m_engine->startSandbox(r.name, 0));
    QCOMPARE(SandboxEngine::stateOf(m_conn.get(), dom), QStringLiteral("running"));
    QCOMPARE(m_engine->startSandbox(r.name, 0).error().kind, ErrorKind::Conflict);
    QVERIFY(m_engine->pause(r.name, 0));
    QCOMPARE(SandboxEngine::stateOf(m_conn.get(), dom), QStringLiteral("paused"));
    QVERIFY(m_engine->resume(r.name, 0));
    QVERIFY(m_engine->kill(r.name, 0));
    QCOMPARE(SandboxEngine::stateOf(m_conn.get(), dom), QStringLiteral("stopped"));
    QVERIFY(m_engine->kill(r.name, 0).error().message().contains(QLatin1String("is not running")));
    const Status removeWhileUp = [&] { m_engine->startSandbox(r.name, 0); return m_engine->remove(r.name, 0); }();
    QVERIFY(!removeWhileUp);
    QVERIFY2(removeWhileUp.error().why.contains(QLatin1String("stop it first")), qPrintable(removeWhileUp.error().message()));

    // The test driver's guest cannot be asked to shut down (neither agent nor ACPI): stop
    // powers it off at once instead of waiting out the timeout; a paused one likewise.
    QVERIFY(SandboxEngine::shutdown(m_engine->connection(), r.name, dom, 30));
    QCOMPARE(SandboxEngine::stateOf(m_conn.get(), dom), QStringLiteral("stopped"));
    QVERIFY(m_engine->startSandbox(r.name, 0));
    QVERIFY(m_engine->pause(r.name, 0));
    QVERIFY(SandboxEngine::shutdown(m_engine->connection(), r.name, dom, 30));
    QCOMPARE(SandboxEngine::stateOf(m_conn.get(), dom), QStringLiteral("stopped"));
    const Status gone = SandboxEngine::shutdown(m_engine->connection(), r.name, object(QStringLiteral("nosuch")), 30);
    QVERIFY(!gone);
    QCOMPARE(gone.error().kind, ErrorKind::NotFound);
    QCOMPARE(gone.error().what, QStringLiteral("the domain of power is gone"));
    QVERIFY(m_engine->remove(r.name, 0));
    verifyNothingOf(r.name);
}

void TestEngineTestDriver::waitingForTheAgentEndsOnEveryOutcome()
{
    CreateRequest r;
    r.name = QStringLiteral("agent");
    QVERIFY(m_engine->create(r));
    VirDomain dom = lookupDomain(m_conn.get(), object(r.name));
    std::atomic<bool> running{false}, stopping{true};
    QCOMPARE(SandboxEngine::waitForGuestAgent(dom.get(), QDeadlineTimer(5000), running), AgentWait::ShutOff);
    QCOMPARE(SandboxEngine::waitForGuestAgent(nullptr, QDeadlineTimer(5000), running), AgentWait::ShutOff);
    QVERIFY(m_engine->startSandbox(r.name, 0));
    // No guest agent on the test driver: the wait runs into its deadline, or ends when the
    // daemon stops.
    QElapsedTimer took;
    took.start();
    QCOMPARE(SandboxEngine::waitForGuestAgent(dom.get(), QDeadlineTimer(300), running), AgentWait::TimedOut);
    QVERIFY(took.elapsed() >= 300);
    QCOMPARE(SandboxEngine::waitForGuestAgent(dom.get(), QDeadlineTimer(5000), stopping), AgentWait::Cancelled);
    QVERIFY(m_engine->kill(r.name, 0));
    QVERIFY(m_engine->remove(r.name, 0));
}

void TestEngineTestDriver::snapshotsFormATreeAndAForkPinsItsSnapshot()
{
    CreateRequest r;
    r.name = QStringLiteral("tree");
    QVERIFY(m_engine->create(r));
    const Result<QJsonObject> one = m_engine->createSnapshot(r.name, QStringLiteral("one"), 0);
    QVERIFY2(one, qPrintable(one.error().message()));
    const Result<QJsonObject> two = m_engine->createSnapshot(r.name, QStringLiteral("two"), 0);
    QVERIFY2(two, qPrintable(two.error().message()));
    const qint64 s1 = one->value(QLatin1String("id")).toInteger(), s2 = two->value(QLatin1String("id")).toInteger();
    QVERIFY(one->value(QLatin1String("parent")).isNull());
    QCOMPARE(two->value(QLatin1String("parent")).toInteger(), s1);

    Result<QJsonArray> listed = m_engine->listSnapshots(r.name, 0);
    QVERIFY(listed);
    QCOMPARE(listed->size(), 2);
    QCOMPARE(listed->at(0).toObject().value(QLatin1String("current")).toBool(), false);
    QCOMPARE(listed->at(1).toObject().value(QLatin1String("current")).toBool(), true);
    // Stopped: the domain now writes into a third layer above the two frozen ones.
    QCOMPARE(volumesContaining(QStringLiteral("-sbx-tree-")).size(), 3);
    const QString top = m_store->firstRow(QStringLiteral("SELECT l.volume FROM sandboxes s JOIN layers l ON l.id = s.top_layer "
                                                         "WHERE s.name = ?"), {r.name}).value()->value(0).toString();
    QVERIFY(takeVirString(virDomainGetXMLDesc(lookupDomain(m_conn.get(), object(r.name)).get(), VIR_DOMAIN_XML_INACTIVE))
                .contains(top));

    const Result<QJsonObject> fork = m_engine->fork(r.name, s1, QStringLiteral("tree-fork"), 0);
    QVERIFY2(fork, qPrintable(fork.error().message()));
    QVERIFY(hasDomain(object(QStringLiteral("tree-fork"))));
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM sandboxes s JOIN layers l ON l.id = s.top_layer "
                                  "JOIN snapshots sn ON sn.layer_id = l.parent_id WHERE s.name = 'tree-fork' AND sn.id = ?"), {s1}), 1);

    const Status refused = m_engine->removeSnapshot(r.name, s1, 0);
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind, ErrorKind::Conflict);
    QVERIFY2(refused.error().why.contains(QLatin1String("remove the forks first")), qPrintable(refused.error().message()));
    QCOMPARE(m_engine->listSnapshots(r.name, 0)->size(), 2);

    // Back to one: the layer above two goes, so two is a leaf and goes without a merge.
    const Result<Restored> restored = m_engine->restoreSnapshot(r.name, s1, 0);
    QVERIFY2(restored, qPrintable(restored.error().message()));
    QCOMPARE(restored.value(), Restored::Stopped);
    QVERIFY(m_engine->removeSnapshot(r.name, s2, 0));
    listed = m_engine->listSnapshots(r.name, 0);
    QCOMPARE(listed->size(), 1);
    QCOMPARE(listed->at(0).toObject().value(QLatin1String("current")).toBool(), true);
    QCOMPARE(m_engine->removeSnapshot(r.name, s2, 0).error().kind, ErrorKind::NotFound);

    QVERIFY(m_engine->remove(r.name, 0)); // its layer under the fork stays, unowned
    QCOMPARE(volumesContaining(QStringLiteral("-sbx-tree-")).size(), 2); // s1's layer and the fork's own
    QVERIFY(m_engine->remove(QStringLiteral("tree-fork"), 0));
    QCOMPARE(volumesContaining(QStringLiteral("-sbx-tree")), QStringList());
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM layers")), 0);
    verifyNothingOf(r.name);
}

void TestEngineTestDriver::aDomainRemovedBehindTheEngineIsReportedAndCleanedUp()
{
    CreateRequest r;
    r.name = QStringLiteral("vanish");
    QVERIFY(m_engine->create(r));
    VirDomain dom = lookupDomain(m_conn.get(), object(r.name));
    QCOMPARE(virDomainUndefine(dom.get()), 0);
    QCOMPARE(m_engine->describe(r.name, 0)->value(QLatin1String("state")).toString(), QStringLiteral("missing"));
    const Status start = m_engine->startSandbox(r.name, 0);
    QVERIFY(!start);
    QCOMPARE(start.error().what, QStringLiteral("the domain of vanish is gone"));
    QVERIFY(start.error().why.contains(QLatin1String("remove the sandbox and create it again")));
    QVERIFY(m_engine->remove(r.name, 0));
    verifyNothingOf(r.name);
}

void TestEngineTestDriver::aRowWithoutADomainSurvivesARestartAndAnInterruptedCreateIsUndone()
{
    CreateRequest r;
    r.name = QStringLiteral("kept");
    QVERIFY(m_engine->create(r));
    QCOMPARE(virDomainUndefine(lookupDomain(m_conn.get(), object(r.name)).get()), 0);
    // A create that died after its network and disk were made, before its rows were written.
    CreateRequest half;
    half.name = QStringLiteral("half");
    QVERIFY(m_engine->create(half));
    const qint64 halfId = m_store->firstRow(QStringLiteral("SELECT id FROM sandboxes WHERE name = 'half'")).value()->value(0).toLongLong();
    const QString halfDisk = volumesContaining(QStringLiteral("-sbx-half-")).value(0);
    QVERIFY(m_store->write(QStringLiteral("UPDATE sandboxes SET top_layer = NULL WHERE id = ?"), {halfId}));
    QVERIFY(m_store->write(QStringLiteral("DELETE FROM layers WHERE sandbox_id = ?"), {halfId}));
    QVERIFY(m_store->write(QStringLiteral("DELETE FROM sandboxes WHERE id = ?"), {halfId}));
    QVERIFY(m_store->write(QStringLiteral("DELETE FROM networks WHERE name = ?"), {object(half.name)}));
    QVERIFY(m_store->write(QStringLiteral("INSERT INTO operations(kind, subject, step, state_json, started) VALUES('create', 'half', 'begin', ?, '')"),
                           {QStringLiteral("{\"domain\":\"%1\",\"network\":\"%1\",\"volumes\":[\"%2\"]}").arg(object(half.name), halfDisk)}));

    m_engine.reset();
    m_engine = startEngine();
    QVERIFY(m_engine);
    verifyNothingOf(half.name);
    // The user's record stays until they remove it: it says what happened.
    QCOMPARE(m_engine->describe(r.name, 0)->value(QLatin1String("state")).toString(), QStringLiteral("missing"));
    QVERIFY(hasNetwork(object(r.name)));
    QVERIFY(m_engine->remove(r.name, 0));
    verifyNothingOf(r.name);
}

void TestEngineTestDriver::aDomainWithoutARowIsRemovedAtStart()
{
    CreateRequest r;
    r.name = QStringLiteral("stray");
    QVERIFY(m_engine->create(r));
    QVERIFY(m_engine->startSandbox(r.name, 0));
    const QString disk = volumesContaining(QStringLiteral("-sbx-stray-")).value(0);
    QVERIFY(!disk.isEmpty());
    // Its rows vanish (a store restored from a backup): libvirt still holds a running domain,
    // its network and its disk. Another instance's objects and libvirt's own stay.
    m_engine.reset();
    for (const char *sql : {"UPDATE sandboxes SET top_layer = NULL WHERE name = 'stray'",
                            "DELETE FROM layers WHERE sandbox_id = (SELECT id FROM sandboxes WHERE name = 'stray')",
                            "DELETE FROM sandboxes WHERE name = 'stray'"})
        QVERIFY(m_store->write(QString::fromLatin1(sql)));
    QVERIFY(m_store->write(QStringLiteral("DELETE FROM networks WHERE name = ?"), {object(r.name)}));
    const QString otherXml = takeVirString(virDomainGetXMLDesc(lookupDomain(m_conn.get(), object(r.name)).get(), VIR_DOMAIN_XML_INACTIVE))
                                 .replace(QStringLiteral("airlock-%1-stray").arg(m_instance), QStringLiteral("airlock-zzzz-stray"));
    const QString withoutUuid = QString(otherXml).remove(QRegularExpression(QStringLiteral("<uuid>[^<]*</uuid>")));
    VirDomain other(virDomainDefineXML(m_conn.get(), withoutUuid.toUtf8().constData()));
    QVERIFY(other);

    m_engine = startEngine();
    QVERIFY(m_engine);
    verifyNothingOf(r.name);
    QVERIFY(hasDomain(QStringLiteral("airlock-zzzz-stray")));
    QVERIFY(hasDomain(QStringLiteral("test")));
    QVERIFY(hasNetwork(QStringLiteral("default")));
    QVERIFY(!volumesContaining(QStringLiteral("-img-tiny-")).isEmpty()); // the image's volumes have their row
    QCOMPARE(virDomainUndefine(other.get()), 0);
}

void TestEngineTestDriver::badRequestsAreRefusedAndMakeNothing()
{
    const QList<std::pair<CreateRequest, QString>> bad = [] {
        QList<std::pair<CreateRequest, QString>> out;
        for (const QString &name : {QString(), QStringLiteral("Upper"), QStringLiteral("-dash"), QStringLiteral("a_b"),
                                    QStringLiteral("x").repeated(33), QStringLiteral("dot.dot"), QStringLiteral("../up")}) {
            CreateRequest r;
            r.name = name;
            out.append({r, QStringLiteral("invalid sandbox name")});
        }
        CreateRequest r;
        r.name = QStringLiteral("bad");
        CreateRequest mem = r, cpus = r, disk = r, env = r, envValue = r;
        mem.memoryMib = 64;
        cpus.cpus = 0;
        disk.diskGib = 0;
        env.env.insert(QStringLiteral("1X"), QStringLiteral("v"));
        envValue.env.insert(QStringLiteral("X"), QStringLiteral("a\nb"));
        out.append({mem, QStringLiteral("too little")});
        out.append({cpus, QStringLiteral("out of range")});
        out.append({disk, QStringLiteral("out of range")});
        out.append({env, QStringLiteral("invalid environment variable")});
        out.append({envValue, QStringLiteral("invalid environment variable")});
        return out;
    }();
    for (const auto &[request, says] : bad) {
        const Result<QJsonObject> made = m_engine->create(request);
        QVERIFY2(!made, qPrintable(request.name));
        QCOMPARE(made.error().kind, ErrorKind::InvalidParams);
        QVERIFY2(made.error().what.contains(says), qPrintable(made.error().message()));
        QVERIFY(!made.error().why.isEmpty()); // says what to do
    }

    CreateRequest noImage;
    noImage.name = QStringLiteral("bad");
    noImage.image = QStringLiteral("nosuch");
    Result<QJsonObject> made = m_engine->create(noImage);
    QVERIFY(!made);
    QCOMPARE(made.error().kind, ErrorKind::NotFound);
    QCOMPARE(made.error().what, QStringLiteral("no image named nosuch"));

    addImage(QStringLiteral("broken"), false);
    noImage.image = QStringLiteral("broken");
    made = m_engine->create(noImage);
    QVERIFY(!made);
    QCOMPARE(made.error().kind, ErrorKind::Conflict);
    QVERIFY2(made.error().what.contains(QLatin1String("is no ext4 filesystem")), qPrintable(made.error().message()));
    QVERIFY(made.error().why.contains(QLatin1String("airlockctl image build tiny --name broken")));
    QVERIFY(m_engine->removeImage(QStringLiteral("broken")));

    QCOMPARE(m_engine->remove(QStringLiteral("nosuch"), 0).error().kind, ErrorKind::NotFound);
    QCOMPARE(m_engine->createSnapshot(QStringLiteral("nosuch"), {}, 0).error().kind, ErrorKind::NotFound);
    QCOMPARE(m_engine->fork(QStringLiteral("nosuch"), 1, QStringLiteral("f"), 0).error().kind, ErrorKind::NotFound);
    verifyNothingOf(QStringLiteral("bad"));
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM sandboxes")), 0);
}

void TestEngineTestDriver::libvirtErrorsAreClearAndLeaveNothing()
{
    // A domain of the name libvirt already holds (an airlockd of another host's data dir
    // copied here, say): libvirt's refusal comes back as the error, and the network and
    // disk the create had made go again.
    const QString clash = object(QStringLiteral("clash"));
    const QString xml = QStringLiteral("<domain type='test'><name>%1</name><memory>131072</memory><os><type>hvm</type></os></domain>").arg(clash);
    VirDomain squatter(virDomainDefineXML(m_conn.get(), xml.toUtf8().constData()));
    QVERIFY(squatter);
    CreateRequest r;
    r.name = QStringLiteral("clash");
    const Result<QJsonObject> made = m_engine->create(r);
    QVERIFY(!made);
    QCOMPARE(made.error().what, QStringLiteral("cannot define the domain of clash"));
    QVERIFY2(made.error().why.contains(QLatin1String("already exists")), qPrintable(made.error().message()));
    verifyNothingOf(r.name); // the rollback undefines the domain of the sandbox's name too

    // A network of the name: refused the same way, before any disk exists.
    const QString netXml = QStringLiteral("<network><name>%1</name><bridge name='al-squat0'/></network>").arg(clash);
    VirNetwork squatNet(virNetworkDefineXML(m_conn.get(), netXml.toUtf8().constData()));
    QVERIFY(squatNet);
    const Result<QJsonObject> again = m_engine->create(r);
    QVERIFY(!again);
    QCOMPARE(again.error().what, QStringLiteral("cannot define the network of clash"));
    QVERIFY2(again.error().why.contains(QLatin1String("already exists")), qPrintable(again.error().message()));
    verifyNothingOf(r.name);
}

void TestEngineTestDriver::anUnreachableLibvirtIsAClearError()
{
    SandboxEngine engine(config(QStringLiteral("test://") + m_dir.path() + QStringLiteral("/no-such-node.xml")));
    QVERIFY(engine.start()); // the daemon runs on; every sandbox call says what is wrong
    CreateRequest r;
    r.name = QStringLiteral("unreachable");
    const Result<QJsonObject> made = engine.create(r);
    QVERIFY(!made);
    QVERIFY2(made.error().what.startsWith(QLatin1String("cannot connect to libvirt at test://")), qPrintable(made.error().message()));
    QCOMPARE(made.error().kind, ErrorKind::Unavailable);
    QVERIFY(!made.error().why.isEmpty());
    QCOMPARE(engine.sandboxCount(), 0);
}

void TestEngineTestDriver::aRunningGuestWhoseNetworkCannotBeDescribedIsStoppedAtStart()
{
    AcceptingHooks &hooks = m_hooks;
    m_engine = startEngine(&hooks);
    QVERIFY(m_engine);
    for (const QString &name : {QStringLiteral("fine"), QStringLiteral("garbled")}) {
        CreateRequest r;
        r.name = name;
        QVERIFY(m_engine->create(r));
        QVERIFY(m_engine->startSandbox(name, 0));
    }
    QCOMPARE(hooks.up, (QStringList{QStringLiteral("fine"), QStringLiteral("garbled")}));
    m_engine.reset();
    // A damaged store: the guest's recorded address is no address.
    QVERIFY(m_store->write(QStringLiteral("UPDATE networks SET guest_ip = 'ten.0.0.2' WHERE name = ?"), {object(QStringLiteral("garbled"))}));
    const Result<SandboxNet> parsed = sandboxNetFromText(QStringLiteral("garbled"), QStringLiteral("al-x"), QStringLiteral("10.0.0.1"),
                                                         QStringLiteral("ten.0.0.2"), QStringLiteral("52:54:00:00:00:01"));
    QVERIFY(!parsed);

    m_engine = startEngine(&hooks);
    QVERIFY(m_engine);
    // It cannot be guarded, so it must not run on unguarded; the other keeps its guard.
    QCOMPARE(hooks.up, QStringList{QStringLiteral("fine")});
    QCOMPARE(SandboxEngine::stateOf(m_conn.get(), object(QStringLiteral("garbled"))), QStringLiteral("stopped"));
    QCOMPARE(SandboxEngine::stateOf(m_conn.get(), object(QStringLiteral("fine"))), QStringLiteral("running"));
    const Status start = m_engine->startSandbox(QStringLiteral("garbled"), 0);
    QVERIFY(!start);
    QVERIFY2(start.error().why.contains(QLatin1String("must be IPv4 addresses")), qPrintable(start.error().message()));
    QVERIFY(!hooks.up.contains(QStringLiteral("garbled")));
    QVERIFY(m_engine->kill(QStringLiteral("fine"), 0));
    QCOMPARE(hooks.up, QStringList());
    QVERIFY(m_engine->remove(QStringLiteral("fine"), 0));
    QVERIFY(m_engine->remove(QStringLiteral("garbled"), 0));
}

QTEST_GUILESS_MAIN(TestEngineTestDriver)
#include "test_engine_testdriver.moc"
