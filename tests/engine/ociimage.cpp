#include "ociimage.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>

bool runTool(const QString &program, const QStringList &args, QString *error)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = program + QLatin1Char(' ') + args.join(QLatin1Char(' ')) + QStringLiteral(": ") + QString::fromLocal8Bit(p.readAll());
        return false;
    }
    return true;
}

namespace {

// busybox as /bin/busybox (and /bin/sh), and a passwd with root and "agent".
bool addBusybox(const OciImageSpec &spec, const QString &root, QString *error)
{
    QDir().mkpath(root + QStringLiteral("/bin"));
    QDir().mkpath(root + QStringLiteral("/etc"));
    if (!QFile::copy(spec.busybox, root + QStringLiteral("/bin/busybox"))) {
        *error = QStringLiteral("cannot copy busybox");
        return false;
    }
    if (spec.withShell)
        QFile::link(QStringLiteral("busybox"), root + QStringLiteral("/bin/sh"));
    QFile passwd(root + QStringLiteral("/etc/passwd"));
    if (!passwd.open(QIODevice::WriteOnly) ||
        passwd.write("root:x:0:0:root:/root:/bin/sh\nagent:x:1000:1000:agent:/home/agent:/bin/sh\n") < 0) {
        *error = QStringLiteral("cannot write the image's /etc/passwd");
        return false;
    }
    return true;
}

} // namespace

bool makeOciImage(const OciImageSpec &spec, QString *error)
{
    const QString layout = spec.dir + QStringLiteral("/layout");
    const QString bundle = spec.dir + QStringLiteral("/bundle");
    const QString image = layout + QStringLiteral(":t");
    const QString root = bundle + QStringLiteral("/rootfs");
    if (!runTool(QStringLiteral("umoci"), {QStringLiteral("init"), QStringLiteral("--layout"), layout}, error) ||
        !runTool(QStringLiteral("umoci"), {QStringLiteral("new"), QStringLiteral("--image"), image}, error) ||
        !runTool(QStringLiteral("umoci"), {QStringLiteral("unpack"), QStringLiteral("--image"), image, bundle}, error))
        return false;
    const bool filled = spec.fromDisk.isEmpty()
                            ? addBusybox(spec, root, error)
                            : runTool(QStringLiteral("debugfs"), {QStringLiteral("-R"), QStringLiteral("rdump / ") + root, spec.fromDisk}, error);
    if (!filled)
        return false;
    if (spec.extra && !spec.extra(root)) {
        *error = QStringLiteral("cannot shape the image's files");
        return false;
    }
    return runTool(QStringLiteral("umoci"), {QStringLiteral("repack"), QStringLiteral("--image"), image, bundle}, error) &&
           runTool(QStringLiteral("umoci"), QStringList{QStringLiteral("config"), QStringLiteral("--image"), image} + spec.config, error);
}

QString cachedBusybox(const QString &dir, QString *error)
{
    for (const char *tool : {"umoci", "skopeo", "dpkg-deb"})
        if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty()) {
            *error = QStringLiteral("%1 is missing: install the packages in installers/packages.txt").arg(QLatin1String(tool));
            return {};
        }
    QDirIterator debs(QStringLiteral("/var/cache/airlock/debs"), {QStringLiteral("busybox-static_*.deb")}, QDir::Files);
    if (!debs.hasNext()) {
        *error = QStringLiteral("no busybox-static in /var/cache/airlock/debs: run resources/images/tiny/build.sh --fetch");
        return {};
    }
    const QString into = dir + QStringLiteral("/busybox-deb");
    if (!runTool(QStringLiteral("dpkg-deb"), {QStringLiteral("-x"), debs.next(), into}, error))
        return {};
    return into + QStringLiteral("/bin/busybox");
}
