// Workspaces in and out, as a user drives them with airlockctl: a host repository goes into a
// real TCG sandbox as a git bundle (branches, tags and the checked-out files arrive), a commit
// made inside the guest comes back as a bundle (it verifies against the original and a fetch
// from it gives the very commit id) and as patches (git am applies them to the original),
// the host repository is never written, and bad input, a sandbox killed during the copy or
// Ctrl-C on airlockctl leave no sandbox behind.
#include "daemonharness.h"
#include "gitrepo.h"
#include "libvirtview.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <csignal>
#include <functional>

class TestWorkspace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void refusesWhatIsNotARepository();
    void roundTripBringsBackExactlyTheGuestCommit();
    void exportRefusesBadDestinations();
    void failedCopyRemovesTheSandbox();
    void ctrlCDuringTheCopyRemovesTheSandbox();
    void cleanupTestCase();

private:
    void interruptCopy(const QString &prefix, const std::function<bool(const QString &, QProcess &)> &interrupt,
                       const QByteArray &expected);
    bool absent(const QString &name) const;
    CtlResult guest(const QString &name, const QString &script) const;
    static QString out(const CtlResult &r)
    {
        return QString::fromUtf8(QByteArray::fromBase64(r.json().toObject().value(QLatin1String("stdout_b64")).toString().toLatin1())).trimmed();
    }

    DaemonHarness m_daemon;
    QTemporaryDir m_tmp;
    QString m_repo;
    QString m_box; // the round-trip sandbox, shared with the bad-destination tests
};

void TestWorkspace::initTestCase()
{
    QString error;
    QVERIFY2(m_daemon.startWithTinyImage(&error), qPrintable(error));
    m_repo = m_tmp.filePath(QStringLiteral("project"));
    QVERIFY(QDir().mkpath(m_repo));
    QVERIFY2(makeSampleRepository(m_repo, &error), qPrintable(error));
}

bool TestWorkspace::absent(const QString &name) const
{
    const CtlResult ls = m_daemon.ctl({QStringLiteral("ls")});
    for (const QJsonValue &v : ls.json().toArray())
        if (v.toObject().value(QLatin1String("name")).toString() == name)
            return false;
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("-") + name);
    return ls.exitCode == 0 && view.error.isEmpty() && view.domains.isEmpty() && view.networks.isEmpty() && view.volumes.isEmpty();
}

CtlResult TestWorkspace::guest(const QString &name, const QString &script) const
{
    return m_daemon.ctl({QStringLiteral("exec"), name, QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
}

void TestWorkspace::refusesWhatIsNotARepository()
{
    const QString name = uniqueName(QStringLiteral("wsbad"));
    const QString plain = m_tmp.filePath(QStringLiteral("plain"));
    const QString empty = m_tmp.filePath(QStringLiteral("empty"));
    QVERIFY(QDir().mkpath(plain));
    QVERIFY(QDir().mkpath(empty));
    QCOMPARE(runGit(empty, {QStringLiteral("init"), QStringLiteral("-q")}).exitCode, 0);
    const QList<std::pair<QString, QByteArray>> cases = {
        {m_tmp.filePath(QStringLiteral("no-such-dir")), "no such directory"},
        {plain, "is not a git repository"},
        {empty, "has no commits yet"},
    };
    for (const auto &[path, message] : cases) {
        const CtlResult r = m_daemon.ctl({QStringLiteral("create"), name, QStringLiteral("--workspace"), path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.startsWith("airlockctl: create : ") && r.err.contains(message), r.err.constData());
        QVERIFY2(absent(name), qPrintable(path));
    }
}

void TestWorkspace::roundTripBringsBackExactlyTheGuestCommit()
{
    const QString hostHead = runGit(m_repo, {QStringLiteral("rev-parse"), QStringLiteral("HEAD")}).text();
    const QString refsBefore = runGit(m_repo, {QStringLiteral("for-each-ref")}).text();
    m_box = uniqueName(QStringLiteral("ws"));
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), m_box, QStringLiteral("--memory"), QStringLiteral("256"),
                                            QStringLiteral("--workspace"), m_repo});
    QVERIFY2(created.exitCode == 0, created.err.constData());
    const QJsonObject o = created.json().toObject();
    QCOMPARE(o.value(QLatin1String("state")).toString(), QStringLiteral("running"));
    const QJsonObject ws = o.value(QLatin1String("workspace")).toObject();
    QCOMPARE(ws.value(QLatin1String("path")).toString(), QStringLiteral("/workspace"));
    QCOMPARE(ws.value(QLatin1String("base")).toString(), hostHead);
    QCOMPARE(ws.value(QLatin1String("branch")).toString(), QStringLiteral("main"));

    // What the agent finds: the host's history, branches, tag and files, on main.
    const CtlResult look = guest(m_box, QStringLiteral("cd /workspace && git rev-parse HEAD && git symbolic-ref --short HEAD && "
                                                       "git for-each-ref --format='%(refname)' refs/heads refs/tags && cat src/hello.txt && "
                                                       "git status --porcelain | wc -l"));
    QVERIFY2(look.exitCode == 0, look.out.constData());
    QCOMPARE(out(look), hostHead + QStringLiteral("\nmain\nrefs/heads/feature\nrefs/heads/main\nrefs/tags/v1\nhello from the host\n0"));

    // Nothing yet: a clear message, no file.
    const QString early = m_tmp.filePath(QStringLiteral("early.bundle"));
    const CtlResult nothing = m_daemon.ctl({QStringLiteral("export"), m_box, early});
    QCOMPARE(nothing.exitCode, 1);
    QVERIFY2(nothing.err.contains("nothing to export") && nothing.err.contains(hostHead.left(12).toUtf8()), nothing.err.constData());
    QVERIFY(!QFile::exists(early));

    // The agent commits (with the identity the import carried over from the host repository).
    const CtlResult commit = guest(m_box, QStringLiteral("cd /workspace && echo 'changed by the agent' >> src/hello.txt && "
                                                         "echo new > added.txt && git add -A && git commit -qm 'agent: change hello' && "
                                                         "git rev-parse HEAD && git log -1 --format=%an"));
    QVERIFY2(commit.exitCode == 0, QByteArray::fromBase64(commit.json().toObject().value(QLatin1String("stderr_b64")).toString().toLatin1()).constData());
    const QStringList made = out(commit).split(QLatin1Char('\n'));
    const QString guestCommit = made.value(0);
    QCOMPARE(made.value(1), QStringLiteral("Host User"));
    QVERIFY(guestCommit != hostHead);

    // As a bundle: verifies against the original, and fetching from it gives that very commit.
    const QString bundle = m_tmp.filePath(QStringLiteral("changes.bundle"));
    const CtlResult exported = m_daemon.ctl({QStringLiteral("export"), m_box, bundle});
    QVERIFY2(exported.exitCode == 0, exported.err.constData());
    const QJsonObject e = exported.json().toObject();
    QCOMPARE(e.value(QLatin1String("commits")).toInt(), 1);
    QCOMPARE(e.value(QLatin1String("base")).toString(), hostHead);
    QCOMPARE(e.value(QLatin1String("head")).toString(), guestCommit);
    QCOMPARE(e.value(QLatin1String("format")).toString(), QStringLiteral("bundle"));
    QCOMPARE(e.value(QLatin1String("path")).toString(), bundle);
    const GitResult verify = runGit(m_repo, {QStringLiteral("bundle"), QStringLiteral("verify"), bundle});
    QVERIFY2(verify.exitCode == 0, verify.err.constData());
    const QString review = m_tmp.filePath(QStringLiteral("review"));
    QCOMPARE(runGit(m_tmp.path(), {QStringLiteral("clone"), QStringLiteral("-q"), m_repo, review}).exitCode, 0);
    const GitResult fetched = runGit(review, {QStringLiteral("fetch"), QStringLiteral("-q"), bundle, QStringLiteral("main")});
    QVERIFY2(fetched.exitCode == 0, fetched.err.constData());
    QCOMPARE(runGit(review, {QStringLiteral("rev-parse"), QStringLiteral("FETCH_HEAD")}).text(), guestCommit);
    QCOMPARE(runGit(review, {QStringLiteral("rev-list"), QStringLiteral("--count"), hostHead + QStringLiteral("..FETCH_HEAD")}).text(),
             QStringLiteral("1"));

    // As patches: one file, and git am applies it to the original with the same tree and message.
    const QString patches = m_tmp.filePath(QStringLiteral("patches"));
    const CtlResult asPatches = m_daemon.ctl({QStringLiteral("export"), m_box, patches, QStringLiteral("--format"), QStringLiteral("patches")});
    QVERIFY2(asPatches.exitCode == 0, asPatches.err.constData());
    const QStringList files = QDir(patches).entryList(QDir::Files);
    QCOMPARE(files, QStringList{QStringLiteral("0001-agent-change-hello.patch")});
    QCOMPARE(asPatches.json().toObject().value(QLatin1String("files")).toArray().size(), 1);
    const QString apply = m_tmp.filePath(QStringLiteral("apply"));
    QCOMPARE(runGit(m_tmp.path(), {QStringLiteral("clone"), QStringLiteral("-q"), m_repo, apply}).exitCode, 0);
    const GitResult am = runGit(apply, {QStringLiteral("am"), QStringLiteral("-q"), QDir(patches).filePath(files.first())});
    QVERIFY2(am.exitCode == 0, am.err.constData());
    const CtlResult guestTree = guest(m_box, QStringLiteral("git -C /workspace rev-parse HEAD^{tree}"));
    QCOMPARE(runGit(apply, {QStringLiteral("rev-parse"), QStringLiteral("HEAD^{tree}")}).text(), out(guestTree));
    QCOMPARE(runGit(apply, {QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%s")}).text(), QStringLiteral("agent: change hello"));

    // The host repository itself was never written.
    QCOMPARE(runGit(m_repo, {QStringLiteral("for-each-ref")}).text(), refsBefore);
    QCOMPARE(runGit(m_repo, {QStringLiteral("status"), QStringLiteral("--porcelain")}).text(), QString());
    QVERIFY(runGit(m_repo, {QStringLiteral("cat-file"), QStringLiteral("-e"), guestCommit}).exitCode != 0);
}

void TestWorkspace::exportRefusesBadDestinations()
{
    QVERIFY2(!m_box.isEmpty(), "needs the round-trip sandbox");
    // An existing file is never replaced.
    const QString taken = m_tmp.filePath(QStringLiteral("taken.bundle"));
    QFile f(taken);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write("mine\n") == 5);
    f.close();
    const CtlResult exists = m_daemon.ctl({QStringLiteral("export"), m_box, taken});
    QCOMPARE(exists.exitCode, 1);
    QVERIFY2(exists.err.contains("already exists"), exists.err.constData());
    QFile back(taken);
    QVERIFY(back.open(QIODevice::ReadOnly));
    QCOMPARE(back.readAll(), QByteArray("mine\n"));
    // Never into a repository's .git.
    const CtlResult intoGit = m_daemon.ctl({QStringLiteral("export"), m_box, m_repo + QStringLiteral("/.git/changes.bundle")});
    QCOMPARE(intoGit.exitCode, 1);
    QVERIFY2(intoGit.err.contains(".git"), intoGit.err.constData());
    QVERIFY(!QFile::exists(m_repo + QStringLiteral("/.git/changes.bundle")));
    // Patches only into a new or empty directory.
    const CtlResult notEmpty = m_daemon.ctl({QStringLiteral("export"), m_box, m_tmp.filePath(QStringLiteral("patches")),
                                             QStringLiteral("--format"), QStringLiteral("patches")});
    QCOMPARE(notEmpty.exitCode, 1);
    QVERIFY2(notEmpty.err.contains("is not empty"), notEmpty.err.constData());
    // Usage errors exit 2.
    const CtlResult badFormat = m_daemon.ctl({QStringLiteral("export"), m_box, m_tmp.filePath(QStringLiteral("x")),
                                              QStringLiteral("--format"), QStringLiteral("zip")});
    QCOMPARE(badFormat.exitCode, 2);
    QVERIFY2(badFormat.err.contains("bundle or patches"), badFormat.err.constData());
    // A sandbox that does not exist.
    const CtlResult unknown = m_daemon.ctl({QStringLiteral("export"), QStringLiteral("no-such-sandbox"), m_tmp.filePath(QStringLiteral("y.bundle"))});
    QCOMPARE(unknown.exitCode, 1);
    QVERIFY2(unknown.err.contains("no-such-sandbox"), unknown.err.constData());
    // A sandbox without a workspace (the guest has no /workspace): said so.
    const CtlResult moved = guest(m_box, QStringLiteral("mv /workspace /workspace.away"));
    QCOMPARE(moved.exitCode, 0);
    const CtlResult none = m_daemon.ctl({QStringLiteral("export"), m_box, m_tmp.filePath(QStringLiteral("z.bundle"))});
    QCOMPARE(guest(m_box, QStringLiteral("mv /workspace.away /workspace")).exitCode, 0);
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(none.err.contains("has no workspace") && none.err.contains("--workspace"), none.err.constData());
    QVERIFY(!QFile::exists(m_tmp.filePath(QStringLiteral("z.bundle"))));
}

void TestWorkspace::failedCopyRemovesTheSandbox()
{
    // A real fault after the sandbox exists: it is killed while the bundle is on its way in.
    // The workspace step fails and the client removes the sandbox again.
    interruptCopy(QStringLiteral("wskill"), [this](const QString &name, QProcess &) {
        return m_daemon.ctl({QStringLiteral("kill"), name}).exitCode == 0;
    }, "the workspace did not make it");
}

void TestWorkspace::ctrlCDuringTheCopyRemovesTheSandbox()
{
    // The user presses Ctrl-C while the bundle travels: airlockctl stops and cleans up.
    interruptCopy(QStringLiteral("wsint"), [](const QString &, QProcess &create) {
        return ::kill(pid_t(create.processId()), SIGINT) == 0;
    }, "cancelled");
}

void TestWorkspace::interruptCopy(const QString &prefix, const std::function<bool(const QString &, QProcess &)> &interrupt,
                                  const QByteArray &expected)
{
    const QString big = m_tmp.filePath(QStringLiteral("big"));
    if (!QFileInfo::exists(big)) {
        QVERIFY(QDir().mkpath(big));
        QString error;
        QVERIFY2(makeSampleRepository(big, &error), qPrintable(error));
        QVERIFY2(addBigCommit(big, 24, &error), qPrintable(error));
    }
    const QString name = uniqueName(prefix);
    QProcess create;
    create.start(qEnvironmentVariable("AIRLOCKCTL_BIN"), {QStringLiteral("--socket"), m_daemon.socketPath(), QStringLiteral("create"), name,
                                                          QStringLiteral("--memory"), QStringLiteral("256"), QStringLiteral("--workspace"), big});
    QVERIFY(create.waitForStarted(5000));
    // Once the bundle has begun to arrive in the guest, the copy is under way: interrupt it.
    QElapsedTimer t;
    t.start();
    bool interrupted = false;
    while (!interrupted && t.elapsed() < 240000 && create.state() == QProcess::Running) {
        const CtlResult ls = m_daemon.ctl({QStringLiteral("ls")});
        for (const QJsonValue &v : ls.json().toArray())
            if (v.toObject().value(QLatin1String("name")).toString() == name && v.toObject().value(QLatin1String("state")).toString() == QLatin1String("running")) {
                const CtlResult probe = guest(name, QStringLiteral("ls /var/lib/airlock/workspace.bundle"));
                if (probe.exitCode == 0)
                    interrupted = interrupt(name, create);
            }
        if (!interrupted)
            QThread::msleep(200);
    }
    QVERIFY2(interrupted, "the copy finished before the test could interrupt it");
    QVERIFY(create.waitForFinished(240000));
    const QByteArray err = create.readAllStandardError();
    QCOMPARE(create.exitStatus(), QProcess::NormalExit);
    QCOMPARE(create.exitCode(), 1);
    QVERIFY2(err.startsWith("airlockctl: create : ") && err.contains(expected) && err.contains("removed again"), err.constData());
    QVERIFY2(absent(name), "the sandbox whose workspace failed is still there");
}

void TestWorkspace::cleanupTestCase()
{
    if (!m_box.isEmpty()) {
        m_daemon.ctl({QStringLiteral("kill"), m_box});
        m_daemon.ctl({QStringLiteral("rm"), m_box});
    }
    m_daemon.stop();
}

QTEST_GUILESS_MAIN(TestWorkspace)
#include "test_workspace.moc"
