// One airlockd shared by a group (as the system service is): two real unprivileged users,
// each reaching only their own sandboxes, events, requests and images, neither able to
// administer the vault or make global rules, neither able to take every connection.
// libvirt's test driver stands in for libvirtd (no VM boots); it cannot create sandboxes,
// so their rows are put in the real store while the daemon is stopped.
#include "daemonprocess.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryFile>
#include <QDir>
#include <QTest>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

const QString kGroup = QStringLiteral("airlock-mu");
const QString kUserA = QStringLiteral("airlock-mu-a");
const QString kUserB = QStringLiteral("airlock-mu-b");

struct User {
    QString name;
    uid_t uid = 0;
    gid_t gid = 0;
};

bool run(const QString &program, const QStringList &args, QString *error)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (p.waitForFinished(30000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0)
        return true;
    *error = program + QLatin1Char(' ') + args.join(QLatin1Char(' ')) + QStringLiteral(": ") + QString::fromUtf8(p.readAll());
    return false;
}

// The test's own group and an unprivileged user in it (made once, kept for later runs).
bool ensureUser(const QString &name, User *out, QString *error)
{
    if (!::getgrnam(kGroup.toUtf8().constData()) && !run(QStringLiteral("groupadd"), {kGroup}, error))
        return false;
    if (!::getpwnam(name.toUtf8().constData()) &&
        !run(QStringLiteral("useradd"), {QStringLiteral("-M"), QStringLiteral("-N"), QStringLiteral("-g"), kGroup,
                                         QStringLiteral("-s"), QStringLiteral("/usr/sbin/nologin"), name}, error))
        return false;
    const passwd *pw = ::getpwnam(name.toUtf8().constData());
    if (!pw) {
        *error = QStringLiteral("user %1 is missing after useradd").arg(name);
        return false;
    }
    *out = {name, pw->pw_uid, pw->pw_gid};
    return true;
}

// Connects `count` sockets as `user` (a forked child takes the user's uid and gid) and
// hands the descriptors back over SCM_RIGHTS; the daemon saw the user's credentials at
// connect. -1 where the connect failed.
std::vector<int> connectAs(const User &user, const QString &socketPath, int count)
{
    std::vector<int> fds;
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return fds;
    const QByteArray path = QFile::encodeName(socketPath);
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(pair[0]);
        const gid_t gid = user.gid;
        if (::setgroups(1, &gid) != 0 || ::setgid(gid) != 0 || ::setuid(user.uid) != 0)
            ::_exit(90);
        for (int i = 0; i < count; ++i) {
            int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un a{};
            a.sun_family = AF_UNIX;
            std::memcpy(a.sun_path, path.constData(), size_t(path.size()));
            if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
                ::close(fd);
                fd = -1;
            }
            char connected = fd >= 0 ? 1 : 0;
            iovec iov{&connected, 1};
            msghdr m{};
            m.msg_iov = &iov;
            m.msg_iovlen = 1;
            alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
            if (fd >= 0) {
                m.msg_control = control;
                m.msg_controllen = sizeof control;
                cmsghdr *c = CMSG_FIRSTHDR(&m);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
            }
            if (::sendmsg(pair[1], &m, 0) != 1)
                ::_exit(91);
            if (fd >= 0)
                ::close(fd);
        }
        ::_exit(0);
    }
    ::close(pair[1]);
    for (int i = 0; i < count; ++i) {
        char connected = 0;
        iovec iov{&connected, 1};
        msghdr m{};
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
        m.msg_control = control;
        m.msg_controllen = sizeof control;
        if (::recvmsg(pair[0], &m, MSG_CMSG_CLOEXEC) != 1)
            break;
        int fd = -1;
        if (connected) {
            cmsghdr *c = CMSG_FIRSTHDR(&m);
            if (c && c->cmsg_type == SCM_RIGHTS)
                std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
        }
        fds.push_back(fd);
    }
    ::close(pair[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    return fds;
}

// A JSON-RPC client on a descriptor connectAs() made.
class Peer {
public:
    explicit Peer(int fd) : m_fd(fd) {}
    ~Peer()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Peer(const Peer &) = delete;
    Peer &operator=(const Peer &) = delete;

    bool send(const QJsonObject &request)
    {
        const QByteArray line = QJsonDocument(request).toJson(QJsonDocument::Compact) + '\n';
        return ::send(m_fd, line.constData(), size_t(line.size()), MSG_NOSIGNAL) == line.size();
    }
    bool call(int id, const QString &method, const QJsonObject &params = {})
    {
        return send({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id},
                     {QStringLiteral("method"), method}, {QStringLiteral("params"), params}});
    }
    // The next message, or an empty object when none came within `timeoutMs`.
    QJsonObject next(int timeoutMs)
    {
        QDeadlineTimer deadline(timeoutMs);
        for (;;) {
            const qsizetype nl = m_buffer.indexOf('\n');
            if (nl >= 0) {
                const QByteArray line = m_buffer.left(nl);
                m_buffer.remove(0, nl + 1);
                return QJsonDocument::fromJson(line).object();
            }
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, int(qMax<qint64>(0, deadline.remainingTime()))) <= 0)
                return {};
            char chunk[65536];
            const ssize_t n = ::read(m_fd, chunk, sizeof chunk);
            if (n <= 0)
                return {};
            m_buffer.append(chunk, n);
        }
    }
    // Every event that arrives within `ms`.
    QList<QJsonObject> eventsFor(int ms)
    {
        QList<QJsonObject> events;
        QDeadlineTimer deadline(ms);
        while (!deadline.hasExpired()) {
            const QJsonObject m = next(int(deadline.remainingTime()));
            if (m.value(QLatin1String("method")).toString() == QLatin1String("event"))
                events.append(m.value(QLatin1String("params")).toObject());
        }
        return events;
    }

private:
    int m_fd;
    QByteArray m_buffer;
};

QString errorOf(const QJsonObject &m) { return m.value(QLatin1String("error")).toObject().value(QLatin1String("message")).toString(); }

bool mentions(const QList<QJsonObject> &events, const QString &sandbox)
{
    for (const QJsonObject &e : events)
        if (QJsonDocument(e).toJson().contains(sandbox.toUtf8()))
            return true;
    return false;
}

QStringList namesIn(const QByteArray &json)
{
    QStringList names;
    for (const QJsonValue &v : QJsonDocument::fromJson(json).array())
        names << v.toObject().value(QLatin1String("name")).toString();
    return names;
}

} // namespace

class TestMultiUser : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void eachUserListsOnlyTheirSandboxes();
    void anotherUsersSandboxIsRefusedWithTheReason();
    void sandboxEventsReachOnlyTheirOwner();
    void globalScopeNeedsRoot();
    void vaultIsAdministeredByRootOnly();
    void imagesBelongToWhoBuiltThem();
    void oneUserCannotTakeEveryConnection();
    void aBuildIsCancelledOnlyByWhoStartedIt();
    void everyMethodIsNamedByThePolicy();

private:
    bool seedStore(QString *error);
    DaemonProcess::CtlResult ctlAs(const User &user, const QStringList &args, const QByteArray &input = {});

    DaemonProcess *m_daemon = nullptr;
    User m_a, m_b;
};

void TestMultiUser::initTestCase()
{
    if (::geteuid() != 0)
        QFAIL("this test needs root: it makes two users and runs airlockctl as each");
    QString error;
    QVERIFY2(ensureUser(kUserA, &m_a, &error) && ensureUser(kUserB, &m_b, &error), qPrintable(error));
    m_daemon = new DaemonProcess({QStringLiteral("--libvirt-uri"), QStringLiteral("test:///default"),
                                  QStringLiteral("--socket-group"), kGroup});
    // First start makes the store; the rows the test driver cannot make go in while it is down.
    QVERIFY2(m_daemon->start(), qPrintable(m_daemon->log()));
    QCOMPARE(m_daemon->stop(), 0);
    QVERIFY2(seedStore(&error), qPrintable(error));
    QVERIFY2(m_daemon->start(), qPrintable(m_daemon->log()));
    // The members reach the socket through its directory (the socket itself is 0660, group).
    QVERIFY(::chmod(QFile::encodeName(QFileInfo(m_daemon->socketPath()).absolutePath()).constData(), 0711) == 0);
    struct stat st{};
    QCOMPARE(::stat(QFile::encodeName(m_daemon->socketPath()).constData(), &st), 0);
    QCOMPARE(int(st.st_mode & 0777), 0660);
    QCOMPARE(st.st_gid, m_a.gid);
}

void TestMultiUser::cleanupTestCase() { delete m_daemon; }

// Images: A's, one from before builders were recorded (root's) and the base the sandboxes
// use; sandboxes mu-a1 and mu-a2 of A, mu-b1 of B.
bool TestMultiUser::seedStore(QString *error)
{
    bool done = false;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("seed"));
        db.setDatabaseName(m_daemon->dataDir() + QStringLiteral("/airlock.db"));
        if (!db.open()) {
            *error = db.lastError().text();
        } else {
            QSqlQuery q(db);
            const bool hasOwners = q.exec(QStringLiteral("SELECT owner_uid FROM images LIMIT 0")); // absent before ownership
            const QList<std::pair<QString, qint64>> images{{QStringLiteral("mu-img-a"), qint64(m_a.uid)},
                                                           {QStringLiteral("mu-img-legacy"), -1},
                                                           {QStringLiteral("mu-img-base"), -1}};
            done = true;
            for (const auto &[name, owner] : images) {
                done = done && q.exec(QStringLiteral("INSERT INTO images(name, recipe, kernel, initrd, rootfs, created) VALUES "
                                                     "('%1', 'tiny', '%1.k', '%1.i', '%1.r', '2026-01-01T00:00:00Z')").arg(name));
                if (done && hasOwners && owner >= 0)
                    done = q.exec(QStringLiteral("UPDATE images SET owner_uid = %1 WHERE name = '%2'").arg(owner).arg(name));
            }
            const QList<std::pair<QString, uid_t>> sandboxes{{QStringLiteral("mu-a1"), m_a.uid},
                                                             {QStringLiteral("mu-a2"), m_a.uid},
                                                             {QStringLiteral("mu-b1"), m_b.uid}};
            int mac = 0x10;
            for (const auto &[name, owner] : sandboxes)
                done = done && q.exec(QStringLiteral("INSERT INTO sandboxes(name, owner_uid, image, cpus, memory_mib, disk_gib, mac, "
                                                     "created) VALUES ('%1', %2, 'mu-img-base', 1, 256, 2, '52:54:00:00:00:%3', "
                                                     "'2026-01-01T00:00:00Z')").arg(name).arg(owner).arg(mac++, 2, 16));
            if (!done)
                *error = QStringLiteral("cannot seed the store: ") + q.lastError().text();
            db.close();
        }
    }
    QSqlDatabase::removeDatabase(QStringLiteral("seed"));
    return done;
}

DaemonProcess::CtlResult TestMultiUser::ctlAs(const User &user, const QStringList &args, const QByteArray &input)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), QStringLiteral("/"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral("setpriv"), QStringList{QStringLiteral("--reuid=%1").arg(user.uid), QStringLiteral("--regid=%1").arg(user.gid),
                                                   QStringLiteral("--init-groups"), DaemonProcess::ctlBinary(),
                                                   QStringLiteral("--socket"), m_daemon->socketPath()} + args);
    p.waitForStarted(5000);
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return {-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n(timed out)"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

void TestMultiUser::eachUserListsOnlyTheirSandboxes()
{
    const auto a = ctlAs(m_a, {QStringLiteral("--json"), QStringLiteral("ls")});
    QVERIFY2(a.exitCode == 0, a.err.constData());
    const auto b = ctlAs(m_b, {QStringLiteral("--json"), QStringLiteral("ls")});
    QVERIFY2(b.exitCode == 0, b.err.constData());
    QCOMPARE(namesIn(a.out), (QStringList{QStringLiteral("mu-a1"), QStringLiteral("mu-a2")}));
    QCOMPARE(namesIn(b.out), QStringList{QStringLiteral("mu-b1")});
}

void TestMultiUser::anotherUsersSandboxIsRefusedWithTheReason()
{
    const QList<QStringList> attempts{
        {QStringLiteral("rm"), QStringLiteral("mu-a1")},
        {QStringLiteral("start"), QStringLiteral("mu-a1")},
        {QStringLiteral("snapshot"), QStringLiteral("ls"), QStringLiteral("mu-a1")},
        {QStringLiteral("egress"), QStringLiteral("ls"), QStringLiteral("mu-a1")},
        {QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--sandbox"), QStringLiteral("mu-a1"),
         QStringLiteral("--action"), QStringLiteral("allow"), QStringLiteral("--host"), QStringLiteral("example.com")},
        {QStringLiteral("rule"), QStringLiteral("ls"), QStringLiteral("mu-a1")},
    };
    for (const QStringList &args : attempts) {
        const auto r = ctlAs(m_b, args);
        QVERIFY2(r.exitCode != 0, qPrintable(args.join(QLatin1Char(' '))));
        QVERIFY2(r.err.contains("sandbox mu-a1 belongs to another user") && r.err.contains("airlockctl ls"),
                 qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + QString::fromUtf8(r.err)));
    }
    const auto a = ctlAs(m_a, {QStringLiteral("--json"), QStringLiteral("ls")});
    QVERIFY2(namesIn(a.out).contains(QStringLiteral("mu-a1")), a.out.constData());
}

void TestMultiUser::sandboxEventsReachOnlyTheirOwner()
{
    const std::vector<int> a = connectAs(m_a, m_daemon->socketPath(), 1);
    const std::vector<int> b = connectAs(m_b, m_daemon->socketPath(), 1);
    QVERIFY(a.size() == 1 && a[0] >= 0 && b.size() == 1 && b[0] >= 0);
    Peer owner(a[0]), other(b[0]);
    const QJsonArray topics{QStringLiteral("sandbox"), QStringLiteral("alert"), QStringLiteral("egress"),
                            QStringLiteral("pending"), QStringLiteral("snapshot")};
    for (Peer *p : {&owner, &other}) {
        QVERIFY(p->call(1, QStringLiteral("subscribe"), {{QStringLiteral("topics"), topics}}));
        QVERIFY(p->next(5000).contains(QLatin1String("result")));
    }
    // A's sandbox goes away: A hears of it, B (subscribed to every topic it names) does not.
    const auto rm = ctlAs(m_a, {QStringLiteral("rm"), QStringLiteral("mu-a2")});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    const QList<QJsonObject> seenByOwner = owner.eventsFor(3000);
    QVERIFY2(mentions(seenByOwner, QStringLiteral("mu-a2")), "the owner got no event of its removed sandbox");
    const QList<QJsonObject> seenByOther = other.eventsFor(1000);
    QVERIFY2(!mentions(seenByOther, QStringLiteral("mu-a2")),
             QJsonDocument(QJsonArray::fromVariantList(QVariantList(seenByOther.begin(), seenByOther.end()))).toJson().constData());
    // Another user's console is refused at once, with the reason.
    const QJsonObject console{{QStringLiteral("topics"), QJsonArray{QStringLiteral("console:mu-a1")}}};
    QVERIFY(owner.call(2, QStringLiteral("subscribe"), console));
    QVERIFY(owner.next(5000).contains(QLatin1String("result")));
    QVERIFY(other.call(2, QStringLiteral("subscribe"), console));
    const QJsonObject refused = other.next(5000);
    QVERIFY2(errorOf(refused).contains(QLatin1String("sandbox mu-a1 belongs to another user")),
             QJsonDocument(refused).toJson().constData());
}

void TestMultiUser::globalScopeNeedsRoot()
{
    const auto rule = ctlAs(m_b, {QStringLiteral("rule"), QStringLiteral("add"), QStringLiteral("--global"), QStringLiteral("--action"),
                                  QStringLiteral("allow"), QStringLiteral("--host"), QStringLiteral("example.com")});
    QVERIFY(rule.exitCode != 0);
    QVERIFY2(rule.err.contains("only root may add them") && rule.err.contains("--sandbox NAME"), rule.err.constData());
    // Refused for its scope, before the request is even looked for.
    const auto answer = ctlAs(m_b, {QStringLiteral("egress"), QStringLiteral("allow"), QStringLiteral("1"), QStringLiteral("--scope"),
                                    QStringLiteral("global")});
    QVERIFY(answer.exitCode != 0);
    QVERIFY2(answer.err.contains("only root may make one") && answer.err.contains("--scope sandbox"), answer.err.constData());
    const auto rules = m_daemon->ctl({QStringLiteral("--json"), QStringLiteral("rule"), QStringLiteral("ls")});
    QVERIFY2(!rules.out.contains("example.com"), rules.out.constData());
}

void TestMultiUser::vaultIsAdministeredByRootOnly()
{
    const QByteArray passphrase = "correct horse battery staple\n";
    auto vaultState = [this] {
        return QJsonDocument::fromJson(m_daemon->ctl({QStringLiteral("--json"), QStringLiteral("vault"), QStringLiteral("status")}).out)
            .object().value(QLatin1String("vault")).toString();
    };
    const auto claim = ctlAs(m_b, {QStringLiteral("vault"), QStringLiteral("init")}, "mine now\n");
    QVERIFY(claim.exitCode != 0);
    QVERIFY2(claim.err.contains("only root may create, lock or re-key it") && claim.err.contains("sudo airlockctl vault init"),
             claim.err.constData());
    QCOMPARE(vaultState(), QStringLiteral("uninitialised"));
    const auto init = m_daemon->ctl({QStringLiteral("vault"), QStringLiteral("init")}, passphrase);
    QVERIFY2(init.exitCode == 0, init.err.constData());

    const QList<std::pair<QStringList, QByteArray>> administration{
        {{QStringLiteral("vault"), QStringLiteral("lock")}, {}},
        {{QStringLiteral("vault"), QStringLiteral("change-passphrase")}, passphrase + "locked out\n"},
        {{QStringLiteral("vault"), QStringLiteral("keyring"), QStringLiteral("on")}, {}},
    };
    for (const auto &[args, input] : administration) {
        const auto r = ctlAs(m_a, args, input);
        QVERIFY2(r.exitCode != 0 && r.err.contains("only root may"), qPrintable(args.join(QLatin1Char(' ')) + QString::fromUtf8(r.err)));
        QCOMPARE(vaultState(), QStringLiteral("unlocked"));
    }
    // Unlocking takes the passphrase, which is the authority: a member who knows it may.
    QCOMPARE(m_daemon->ctl({QStringLiteral("vault"), QStringLiteral("lock")}).exitCode, 0);
    const auto keyring = ctlAs(m_b, {QStringLiteral("vault"), QStringLiteral("unlock"), QStringLiteral("--keyring")});
    QVERIFY2(keyring.exitCode != 0 && keyring.err.contains("only root may unlock with it"), keyring.err.constData());
    const auto wrong = ctlAs(m_b, {QStringLiteral("vault"), QStringLiteral("unlock")}, "guess\n");
    QVERIFY(wrong.exitCode != 0);
    QCOMPARE(vaultState(), QStringLiteral("locked"));
    const auto unlock = ctlAs(m_b, {QStringLiteral("vault"), QStringLiteral("unlock")}, passphrase);
    QVERIFY2(unlock.exitCode == 0, unlock.err.constData());
    QCOMPARE(vaultState(), QStringLiteral("unlocked"));
}

void TestMultiUser::imagesBelongToWhoBuiltThem()
{
    // Importing over another user's image is refused like rebuilding it, at the first chunk.
    QTemporaryFile archive(QDir::tempPath() + QStringLiteral("/mu-import-XXXXXX.tar"));
    QVERIFY(archive.open() && archive.write(QByteArray(4096, 'x')) == 4096 && archive.flush());
    archive.setPermissions(archive.permissions() | QFileDevice::ReadOther | QFileDevice::ReadGroup);
    const QList<std::pair<QStringList, QByteArray>> refused{
        {{QStringLiteral("image"), QStringLiteral("rm"), QStringLiteral("mu-img-a")}, "image mu-img-a was built by another user"},
        {{QStringLiteral("image"), QStringLiteral("rm"), QStringLiteral("mu-img-legacy")}, "image mu-img-legacy was built by another user"},
        {{QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("tiny"), QStringLiteral("--name"), QStringLiteral("mu-img-a")},
         "only its builder or root may remove or rebuild it"},
        {{QStringLiteral("image"), QStringLiteral("import"), QStringLiteral("mu-img-a"), QStringLiteral("--docker-archive"), archive.fileName()},
         "only its builder or root may remove or rebuild it"},
    };
    for (const auto &[args, reason] : refused) {
        const auto r = ctlAs(m_b, args);
        QVERIFY2(r.exitCode != 0 && r.err.contains(reason), qPrintable(args.join(QLatin1Char(' ')) + QString::fromUtf8(r.err)));
    }
    QVERIFY(namesIn(ctlAs(m_b, {QStringLiteral("--json"), QStringLiteral("image"), QStringLiteral("ls")}).out).contains(QStringLiteral("mu-img-a")));
    // The base every sandbox uses stays whoever asks (root included): it is in use.
    const auto base = m_daemon->ctl({QStringLiteral("image"), QStringLiteral("rm"), QStringLiteral("mu-img-base")});
    QVERIFY2(base.exitCode != 0 && base.err.contains("in use"), base.err.constData());
    // Its builder may remove it.
    const auto own = ctlAs(m_a, {QStringLiteral("image"), QStringLiteral("rm"), QStringLiteral("mu-img-a")});
    QVERIFY2(own.exitCode == 0, own.err.constData());
    QVERIFY(!namesIn(m_daemon->ctl({QStringLiteral("--json"), QStringLiteral("image"), QStringLiteral("ls")}).out).contains(QStringLiteral("mu-img-a")));
}

void TestMultiUser::oneUserCannotTakeEveryConnection()
{
    constexpr int kTries = 80; // more than one user may hold
    const std::vector<int> fds = connectAs(m_b, m_daemon->socketPath(), kTries);
    QCOMPARE(int(fds.size()), kTries);
    std::vector<std::unique_ptr<Peer>> held;
    int served = 0, refused = 0;
    QString refusal;
    for (int fd : fds) {
        QVERIFY(fd >= 0);
        held.push_back(std::make_unique<Peer>(fd));
        held.back()->call(1, QStringLiteral("status"));
    }
    for (auto &p : held) {
        const QJsonObject m = p->next(5000);
        if (m.contains(QLatin1String("result")))
            ++served;
        else if (errorOf(m).startsWith(QLatin1String("refused")))
            refusal = errorOf(m), ++refused;
    }
    QVERIFY2(served < kTries && served + refused == kTries, qPrintable(QStringLiteral("%1 served, %2 refused").arg(served).arg(refused)));
    QVERIFY2(refusal.contains(QLatin1String("connections, the most one user may")), qPrintable(refusal));
    // While B holds all it may, A and root are still served.
    const auto a = ctlAs(m_a, {QStringLiteral("status")});
    QVERIFY2(a.exitCode == 0, a.err.constData());
    QCOMPARE(m_daemon->ctl({QStringLiteral("status")}).exitCode, 0);
}

void TestMultiUser::aBuildIsCancelledOnlyByWhoStartedIt()
{
    QProcess build; // A's real build of the recipe tiny
    build.start(QStringLiteral("setpriv"), {QStringLiteral("--reuid=%1").arg(m_a.uid), QStringLiteral("--regid=%1").arg(m_a.gid),
                                            QStringLiteral("--init-groups"), DaemonProcess::ctlBinary(), QStringLiteral("--socket"),
                                            m_daemon->socketPath(), QStringLiteral("image"), QStringLiteral("build"),
                                            QStringLiteral("tiny"), QStringLiteral("--name"), QStringLiteral("mu-build")});
    QVERIFY(build.waitForStarted(5000));
    const QStringList cancel{QStringLiteral("image"), QStringLiteral("cancel"), QStringLiteral("mu-build")};
    QByteArray refused;
    QDeadlineTimer deadline(20000);
    do { // until the build is under way
        refused = ctlAs(m_b, cancel).err;
    } while (refused.contains("no build of the image") && !deadline.hasExpired() && !build.waitForFinished(100));
    QVERIFY2(refused.contains("started by another user"), refused.constData());
    const auto cancelled = ctlAs(m_a, cancel);
    QVERIFY2(cancelled.exitCode == 0, cancelled.err.constData());
    QVERIFY2(cancelled.out.contains("the build of image mu-build is cancelled"), cancelled.out.constData());
    QVERIFY(build.waitForFinished(60000));
    QVERIFY2(build.exitCode() != 0 && build.readAllStandardError().contains("cancel"), "the cancelled build did not fail as cancelled");
}

// A method the policy does not name would be served to administrators only, silently
// breaking it for members: the daemon says so at start, and here that must never appear.
void TestMultiUser::everyMethodIsNamedByThePolicy()
{
    const QString log = m_daemon->log();
    QVERIFY2(log.contains(QLatin1String("listening on")), qPrintable(log));
    QVERIFY2(!log.contains(QLatin1String("is not named by the peer policy")), qPrintable(log));
}

QTEST_GUILESS_MAIN(TestMultiUser)
#include "test_multiuser.moc"
