// `airlockctl image import` as a person uses it: OCI images made here with umoci and skopeo
// (the packages airlockd uses, offline), imported through a real airlockd, and one of them
// booted under TCG to check that its ENV, WORKDIR and USER hold in the guest. Bad images get
// a clear error and leave no image, volume, upload or scratch directory behind; an image whose
// own paths are symlinks to this machine's files writes nothing through them.
#include "daemonharness.h"
#include "gitrepo.h"
#include "libvirtview.h"
#include "ociimage.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <functional>


class TestEngineImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void anOciImageBootsWithItsEnvWorkdirAndUser();
    void theSameArchiveAgainIsCached();
    void aDockerArchiveImports();
    void aDevcontainersDockerfileBuildsOfflineAndBoots();
    void badDockerfilesAreRefusedAndLeaveNothing_data();
    void badDockerfilesAreRefusedAndLeaveNothing();
    void badImagesAreRefusedAndLeaveNothing_data();
    void badImagesAreRefusedAndLeaveNothing();
    void anImagesSymlinksWriteNothingHere();
    void aWorkspaceBelongsToTheImagesUserAndComesBack();
    void cleanupTestCase();

private:
    bool makeImage(const QString &dir, const QStringList &config, QString *error, bool withShell = true,
                   const std::function<bool(const QString &rootfs)> &extra = {}, const QString &fromDisk = {})
    {
        return makeOciImage({dir, m_busybox, config, withShell, extra, fromDisk}, error);
    }
    // A build context holding the good image as its base (oci:base:t), `dockerfile` and note.txt.
    QString makeContext(const QString &tag, const QByteArray &dockerfile);
    // Nothing of the image `name` is left: no row, no volume, no upload, no scratch directory.
    void verifyNothingLeftOf(const QString &name);

    DaemonHarness m_daemon;
    QTemporaryDir m_tmp;
    QString m_busybox;
    QString m_image;
    QString m_box;
    QString m_workspaceBox; // removed at cleanup too, should a check fail before its own removal
};

void TestEngineImport::initTestCase()
{
    QString error;
    m_busybox = cachedBusybox(m_tmp.path(), &error);
    QVERIFY2(!m_busybox.isEmpty(), qPrintable(error));
    QVERIFY2(m_daemon.start(DaemonHarness::sharedDataDir(), &error), qPrintable(error));
    m_image = uniqueName(QStringLiteral("imp"));
    m_box = uniqueName(QStringLiteral("impbox"));
}

void TestEngineImport::verifyNothingLeftOf(const QString &name)
{
    const CtlResult images = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("ls")});
    QCOMPARE(images.exitCode, 0);
    for (const QJsonValue &v : images.json().toArray())
        QVERIFY2(v.toObject().value(QLatin1String("name")).toString() != name, "a refused import left an image");
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("img-") + name + QLatin1Char('-'));
    QVERIFY2(view.error.isEmpty(), qPrintable(view.error));
    QVERIFY2(view.volumes.isEmpty(), qPrintable(view.volumes.join(QLatin1Char(' '))));
    const QDir data(DaemonHarness::sharedDataDir());
    QVERIFY2(QDir(data.filePath(QStringLiteral("uploads"))).entryList(QDir::Files).isEmpty(), "an upload was left behind");
    QDirIterator scratch(data.path(), {QStringLiteral("build-*") + name + QLatin1Char('*')}, QDir::Dirs, QDirIterator::Subdirectories);
    QVERIFY2(!scratch.hasNext(), qPrintable(scratch.hasNext() ? scratch.next() : QString()));
}

void TestEngineImport::anOciImageBootsWithItsEnvWorkdirAndUser()
{
    QString error;
    const QString dir = m_tmp.filePath(QStringLiteral("good"));
    QVERIFY2(makeImage(dir,
                       {QStringLiteral("--config.env"), QStringLiteral("FOO=bar baz"), QStringLiteral("--config.env"),
                        QStringLiteral("PATH=/bin"), QStringLiteral("--config.workingdir"), QStringLiteral("/srv/app"),
                        QStringLiteral("--config.user"), QStringLiteral("agent"), QStringLiteral("--config.entrypoint"),
                        QStringLiteral("/bin/sh"), QStringLiteral("--config.cmd"), QStringLiteral("-c"), QStringLiteral("--config.cmd"),
                        QStringLiteral("echo \"$(id -u) $PWD $FOO\" > /tmp/console-saw")},
                       &error),
             qPrintable(error));
    const CtlResult imported = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("import"), m_image, QStringLiteral("--oci"),
                                             dir + QStringLiteral("/layout")}, 600000);
    QVERIFY2(imported.exitCode == 0, imported.err.constData());
    const QJsonObject row = imported.json().toObject();
    QCOMPARE(row.value(QLatin1String("name")).toString(), m_image);
    QCOMPARE(row.value(QLatin1String("recipe")).toString(), QStringLiteral("import"));
    QCOMPARE(row.value(QLatin1String("cached")).toBool(true), false);
    QVERIFY(row.value(QLatin1String("size_bytes")).toInteger() > 0);
    QVERIFY2(imported.err.contains("unpacking the layers"), imported.err.constData()); // progress was shown

    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), m_box, QStringLiteral("--image"), m_image,
                                            QStringLiteral("--start")}, 300000);
    QVERIFY2(created.exitCode == 0, created.err.constData());
    // What the host runs through the guest agent has the image's environment and directory.
    const CtlResult env = m_daemon.guestSh(m_box, QStringLiteral("echo \"$FOO|$PWD|$PATH\""));
    QVERIFY2(env.exitCode == 0, env.err.constData());
    QCOMPARE(env.out.trimmed(), QByteArray("bar baz|/srv/app|/bin:/.airlock/bin"));
    // The console ran the image's ENTRYPOINT and CMD as its USER.
    QByteArray saw;
    for (int i = 0; i < 60 && saw.isEmpty(); ++i) {
        saw = m_daemon.guestSh(m_box, QStringLiteral("cat /tmp/console-saw 2>/dev/null")).out.trimmed();
        if (saw.isEmpty())
            QTest::qWait(1000);
    }
    QCOMPARE(saw, QByteArray("1000 /srv/app bar baz"));
    // The guest agent's libraries stay in /.airlock: the image's /lib is as the image made it.
    QCOMPARE(m_daemon.guestSh(m_box, QStringLiteral("ls /lib /lib64 /usr/lib 2>/dev/null | wc -l")).out.trimmed(), QByteArray("0"));
    QVERIFY(m_daemon.killAndRemove(m_box));
}

void TestEngineImport::theSameArchiveAgainIsCached()
{
    const CtlResult again = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("import"), m_image, QStringLiteral("--oci"),
                                          m_tmp.filePath(QStringLiteral("good/layout"))}, 600000);
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(again.json().toObject().value(QLatin1String("cached")).toBool(), true);
}

void TestEngineImport::aDockerArchiveImports()
{
    QString error;
    const QString archive = m_tmp.filePath(QStringLiteral("good.docker.tar"));
    QVERIFY2(runTool(QStringLiteral("skopeo"), {QStringLiteral("--insecure-policy"), QStringLiteral("copy"), QStringLiteral("--quiet"),
                                            QStringLiteral("oci:") + m_tmp.filePath(QStringLiteral("good/layout")) + QStringLiteral(":t"),
                                            QStringLiteral("docker-archive:") + archive + QStringLiteral(":airlock/test:1")},
                 &error),
             qPrintable(error));
    const QString name = m_image + QStringLiteral("-d");
    const CtlResult text = m_daemon.ctlText({QStringLiteral("image"), QStringLiteral("import"), name,
                                             QStringLiteral("--docker-archive"), archive}, 600000);
    QVERIFY2(text.exitCode == 0, text.err.constData());
    QVERIFY2(text.out.startsWith(QByteArray("image " + name.toUtf8() + " ready (")), text.out.constData());
    QCOMPARE(m_daemon.ctl({QStringLiteral("image"), QStringLiteral("rm"), name}).exitCode, 0);
}

QString TestEngineImport::makeContext(const QString &tag, const QByteArray &dockerfile)
{
    const QString dir = m_tmp.filePath(tag);
    QString error;
    if (!QDir().mkpath(dir) || !runTool(QStringLiteral("cp"), {QStringLiteral("-r"), m_tmp.filePath(QStringLiteral("good/layout")),
                                                                 dir + QStringLiteral("/base")}, &error))
        return {};
    QFile f(dir + QStringLiteral("/Dockerfile"));
    QFile note(dir + QStringLiteral("/note.txt"));
    if (!f.open(QIODevice::WriteOnly) || f.write(dockerfile) != dockerfile.size() || !note.open(QIODevice::WriteOnly) || note.write("copied\n") != 7)
        return {};
    return dir;
}

// A project with a devcontainer.json (comments, a trailing comma) naming its Dockerfile: built
// offline with buildah from the base image in its context, booted, ENV and WORKDIR kept, what
// RUN made and COPY brought in the guest. The same Dockerfile named outright is the same image.
void TestEngineImport::aDevcontainersDockerfileBuildsOfflineAndBoots()
{
    const QString project = makeContext(QStringLiteral("project"), "FROM oci:base:t\n"
                                                                     "ENV GREETING=\"hello from a Dockerfile\"\n"
                                                                     "WORKDIR /srv/built\n"
                                                                     "RUN echo built-by-run > /srv/built/marker\n"
                                                                     "COPY note.txt /srv/built/note.txt\n");
    QVERIFY(!project.isEmpty());
    QVERIFY(QDir().mkpath(project + QStringLiteral("/.devcontainer")));
    QFile dev(project + QStringLiteral("/.devcontainer/devcontainer.json"));
    QVERIFY(dev.open(QIODevice::WriteOnly));
    dev.write("// the project's dev container\n{\n  \"name\": \"airlock test\", /* built here */\n"
              "  \"build\": {\"dockerfile\": \"../Dockerfile\", \"context\": \"..\",},\n}\n");
    dev.close();
    const QString name = m_image + QStringLiteral("-df");
    const CtlResult imported = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("import"), name, QStringLiteral("--devcontainer"),
                                             project}, 900000);
    QVERIFY2(imported.exitCode == 0, QByteArray(imported.err + m_daemon.log().right(2000)).constData());
    QVERIFY2(imported.err.contains("building Dockerfile with buildah (no network)"), imported.err.constData()); // the progress
    QCOMPARE(imported.json().toObject().value(QLatin1String("cached")).toBool(true), false);
    const CtlResult again = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("import"), name, QStringLiteral("--dockerfile"),
                                          project + QStringLiteral("/Dockerfile")}, 900000);
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(again.json().toObject().value(QLatin1String("cached")).toBool(), true);

    const QString box = m_box + QStringLiteral("-df");
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), box, QStringLiteral("--image"), name, QStringLiteral("--start")}, 300000);
    QVERIFY2(created.exitCode == 0, created.err.constData());
    const CtlResult env = m_daemon.guestSh(box, QStringLiteral("echo \"$GREETING|$PWD\"; cat marker note.txt"));
    QVERIFY(m_daemon.killAndRemove(box));
    QVERIFY2(env.exitCode == 0, env.err.constData());
    QCOMPARE(env.out.trimmed(), QByteArray("hello from a Dockerfile|/srv/built\nbuilt-by-run\ncopied"));
    QCOMPARE(m_daemon.ctl({QStringLiteral("image"), QStringLiteral("rm"), name}).exitCode, 0);
}

void TestEngineImport::badDockerfilesAreRefusedAndLeaveNothing_data()
{
    QTest::addColumn<QByteArray>("dockerfile");
    QTest::addColumn<QString>("how"); // "dockerfile", "outside" (the Dockerfile outside --context), "devimage"
    QTest::addColumn<QString>("expected");
    // The build has no network: a step that downloads fails, and the error names it.
    QTest::newRow("needs the network") << QByteArray("FROM oci:base:t\nENV A=1\nRUN wget -q -T 5 -O /tmp/x http://127.0.0.1:9/\n")
                                       << QStringLiteral("dockerfile")
                                       << QStringLiteral("the Dockerfile failed at STEP 3/3 (RUN wget -q -T 5 -O /tmp/x http://127.0.0.1:9/): the build has no network");
    QTest::newRow("base not in the context") << QByteArray("FROM debian:12\nRUN true\n") << QStringLiteral("dockerfile")
                                             << QStringLiteral("the Dockerfile's base (debian:12) is not in its build context");
    QTest::newRow("outside its context") << QByteArray("FROM oci:base:t\n") << QStringLiteral("outside")
                                         << QStringLiteral("is outside its build context");
    QTest::newRow("devcontainer image") << QByteArray("FROM oci:base:t\n") << QStringLiteral("devimage")
                                        << QStringLiteral("names the image mcr.microsoft.com/devcontainers/base:bookworm, which Airlock does not pull");
}

void TestEngineImport::badDockerfilesAreRefusedAndLeaveNothing()
{
    QFETCH(QByteArray, dockerfile);
    QFETCH(QString, how);
    QFETCH(QString, expected);
    const QString dir = makeContext(QStringLiteral("badctx-") + QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')),
                                    dockerfile);
    QVERIFY(!dir.isEmpty());
    QStringList source{QStringLiteral("--dockerfile"), dir + QStringLiteral("/Dockerfile")};
    if (how == QLatin1String("outside")) {
        QVERIFY(QDir().mkpath(dir + QStringLiteral("/sub")));
        source << QStringLiteral("--context") << dir + QStringLiteral("/sub");
    } else if (how == QLatin1String("devimage")) {
        QFile dev(dir + QStringLiteral("/.devcontainer.json"));
        QVERIFY(dev.open(QIODevice::WriteOnly));
        dev.write(R"({"image": "mcr.microsoft.com/devcontainers/base:bookworm"})");
        dev.close();
        source = {QStringLiteral("--devcontainer"), dir};
    }
    const QString name = uniqueName(QStringLiteral("baddf"));
    const CtlResult r = m_daemon.ctl(QStringList{QStringLiteral("image"), QStringLiteral("import"), name} + source, 600000);
    QVERIFY2(r.exitCode != 0, r.out.constData());
    QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
    // The step itself failed, not the container it runs in.
    QVERIFY2(!r.err.contains("creating container"), r.err.constData());
    verifyNothingLeftOf(name);
}

void TestEngineImport::badImagesAreRefusedAndLeaveNothing_data()
{
    QTest::addColumn<QStringList>("config");
    QTest::addColumn<bool>("withShell");
    QTest::addColumn<QString>("source"); // "oci", "docker" (a file that is no archive), "dir" (no layout), "two"
    QTest::addColumn<QString>("expected");
    QTest::newRow("arm64") << QStringList{QStringLiteral("--architecture"), QStringLiteral("arm64")} << true << QStringLiteral("oci")
                           << QStringLiteral("the image is for arm64; Airlock runs amd64 guests");
    QTest::newRow("windows") << QStringList{QStringLiteral("--os"), QStringLiteral("windows")} << true << QStringLiteral("oci")
                             << QStringLiteral("the image is for windows, not Linux");
    QTest::newRow("no shell") << QStringList{} << false << QStringLiteral("oci") << QStringLiteral("the image has no shell at /bin/sh");
    QTest::newRow("not an archive") << QStringList{} << true << QStringLiteral("docker") << QStringLiteral("cannot read the docker archive");
    QTest::newRow("not a layout") << QStringList{} << true << QStringLiteral("dir")
                                  << QStringLiteral("is not an OCI layout directory (it has no oci-layout file)");
    QTest::newRow("several images") << QStringList{} << true << QStringLiteral("two")
                                    << QStringLiteral("the archive holds several images: name one");
}

void TestEngineImport::badImagesAreRefusedAndLeaveNothing()
{
    QFETCH(QStringList, config);
    QFETCH(bool, withShell);
    QFETCH(QString, source);
    QFETCH(QString, expected);
    QString error;
    const QString dir = m_tmp.filePath(QStringLiteral("bad-") + QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
    QStringList how{QStringLiteral("--oci"), dir + QStringLiteral("/layout")};
    if (source == QLatin1String("docker")) {
        QDir().mkpath(dir);
        QFile junk(dir + QStringLiteral("/junk.tar"));
        QVERIFY(junk.open(QIODevice::WriteOnly) && junk.write(QByteArray(4096, 'x')) == 4096);
        junk.close();
        how = {QStringLiteral("--docker-archive"), junk.fileName()};
    } else if (source == QLatin1String("dir")) {
        QDir().mkpath(dir);
        how = {QStringLiteral("--oci"), dir};
    } else {
        QVERIFY2(makeImage(dir, config, &error, withShell), qPrintable(error));
        if (source == QLatin1String("two"))
            QVERIFY2(runTool(QStringLiteral("umoci"), {QStringLiteral("tag"), QStringLiteral("--image"), dir + QStringLiteral("/layout:t"),
                                                   QStringLiteral("u")}, &error),
                     qPrintable(error));
    }
    const QString name = uniqueName(QStringLiteral("badimp"));
    const CtlResult r = m_daemon.ctl(QStringList{QStringLiteral("image"), QStringLiteral("import"), name} + how, 600000);
    QVERIFY2(r.exitCode != 0, r.out.constData());
    QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
    verifyNothingLeftOf(name);
}

// A hostile image: /.airlock and /sbin link to directories of this machine. The import
// replaces the first and never writes through the second.
void TestEngineImport::anImagesSymlinksWriteNothingHere()
{
    QString error;
    QTemporaryDir hostDir; // stands for /etc or any other directory of this machine
    QVERIFY(hostDir.isValid());
    const QString dir = m_tmp.filePath(QStringLiteral("hostile"));
    const QString target = hostDir.path();
    QVERIFY2(makeImage(dir, {}, &error, true,
                       [target](const QString &root) {
                           return QFile::link(target, root + QStringLiteral("/.airlock")) &&
                                  QFile::link(target, root + QStringLiteral("/sbin"));
                       }),
             qPrintable(error));
    const QString name = uniqueName(QStringLiteral("hostile"));
    const CtlResult r = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("import"), name, QStringLiteral("--oci"),
                                      dir + QStringLiteral("/layout")}, 600000);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(QDir(target).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).isEmpty(),
             qPrintable(QDir(target).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).join(QLatin1Char(' '))));
    QCOMPARE(m_daemon.ctl({QStringLiteral("image"), QStringLiteral("rm"), name}).exitCode, 0);
}

// A Debian image with git (the tiny image's files) whose USER is 1000: the workspace copied
// in is that user's, the agent commits as that user, and the commit comes back as a bundle.
void TestEngineImport::aWorkspaceBelongsToTheImagesUserAndComesBack()
{
    QString error;
    const LibvirtView view = libvirtObjectsMatching(DaemonHarness::libvirtUri(), QStringLiteral("img-tiny-"));
    QString tinyRoot;
    for (const QString &v : view.volumes)
        if (v.endsWith(QLatin1String(".root.raw")))
            tinyRoot = airlockVolumePath(DaemonHarness::libvirtUri(), v);
    QVERIFY2(!tinyRoot.isEmpty(), "the tiny image (test_engine_image, the fixture) is not in the pool");
    const QString dir = m_tmp.filePath(QStringLiteral("debian"));
    QVERIFY2(makeImage(dir, {QStringLiteral("--config.user"), QStringLiteral("1000")}, &error, true, {}, tinyRoot), qPrintable(error));
    const QString name = uniqueName(QStringLiteral("impgit"));
    const CtlResult imported = m_daemon.ctl({QStringLiteral("image"), QStringLiteral("import"), name, QStringLiteral("--oci"),
                                             dir + QStringLiteral("/layout")}, 600000);
    QVERIFY2(imported.exitCode == 0, imported.err.constData());

    const QString repo = m_tmp.filePath(QStringLiteral("project"));
    QVERIFY(QDir().mkpath(repo));
    QVERIFY2(makeSampleRepository(repo, &error), qPrintable(error));
    const QString box = uniqueName(QStringLiteral("impws"));
    m_workspaceBox = box;
    const CtlResult created = m_daemon.ctl({QStringLiteral("create"), box, QStringLiteral("--image"), name, QStringLiteral("--memory"),
                                            QStringLiteral("256"), QStringLiteral("--workspace"), repo}, 600000);
    QVERIFY2(created.exitCode == 0, created.err.constData());
    const CtlResult owner = m_daemon.guestSh(box, QStringLiteral("stat -c %u /workspace /workspace/src/hello.txt /workspace/.git/HEAD"));
    QCOMPARE(owner.out.trimmed(), QByteArray("1000\n1000\n1000"));
    const CtlResult commit = m_daemon.guestSh(
        box, QStringLiteral("cd /workspace && echo mine >> src/hello.txt && /.airlock/bin/airlock-runas 1000 git commit -qam 'as the image user' "
                            "&& stat -c %u .git/index"));
    QVERIFY2(commit.exitCode == 0, commit.err.constData());
    QCOMPARE(commit.out.trimmed(), QByteArray("1000"));
    const QString bundle = m_tmp.filePath(QStringLiteral("imported-changes.bundle"));
    const CtlResult exported = m_daemon.ctl({QStringLiteral("export"), box, bundle}, 300000);
    QVERIFY2(exported.exitCode == 0, exported.err.constData());
    QCOMPARE(exported.json().toObject().value(QLatin1String("commits")).toInt(), 1);
    QCOMPARE(runGit(repo, {QStringLiteral("bundle"), QStringLiteral("verify"), bundle}).exitCode, 0);
    QVERIFY(m_daemon.killAndRemove(box));
    QCOMPARE(m_daemon.ctl({QStringLiteral("image"), QStringLiteral("rm"), name}).exitCode, 0);
}

void TestEngineImport::cleanupTestCase()
{
    m_daemon.killAndRemove(m_box);
    if (!m_workspaceBox.isEmpty())
        m_daemon.killAndRemove(m_workspaceBox);
    m_daemon.ctl({QStringLiteral("image"), QStringLiteral("rm"), m_image});
    m_daemon.stop();
}

QTEST_GUILESS_MAIN(TestEngineImport)
#include "test_engine_import.moc"
