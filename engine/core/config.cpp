#include "core/config.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QtGlobal>
#include <unistd.h>

namespace airlock {

namespace {
bool runningAsRoot() { return ::geteuid() == 0; }

const QString kSystemSocket = QStringLiteral("/run/airlock/airlockd.sock");

// A user's own daemon (development, or no system service installed).
QString userSocketPath()
{
    QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (runtime.isEmpty())
        runtime = QDir::tempPath() + QStringLiteral("/airlock-") + QString::number(::getuid());
    return runtime + QStringLiteral("/airlock/airlockd.sock");
}

QString envOr(const char *name, const QString &fallback)
{
    const QString v = qEnvironmentVariable(name);
    return v.isEmpty() ? fallback : v;
}
} // namespace

QString defaultDataDir()
{
    if (runningAsRoot())
        return QStringLiteral("/var/lib/airlock");
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/airlock");
}

QString defaultSocketPath()
{
    const QString fromEnv = qEnvironmentVariable("AIRLOCK_SOCKET");
    if (!fromEnv.isEmpty())
        return fromEnv;
    // Installed, airlockd is a system service and users of group airlock talk to it.
    if (runningAsRoot() || QFileInfo::exists(kSystemSocket))
        return kSystemSocket;
    return userSocketPath();
}

QString defaultLibvirtUri()
{
    // Bridges and nftables need the system instance; a session URI cannot host sandboxes.
    return QStringLiteral("qemu:///system");
}

DaemonConfig DaemonConfig::defaults()
{
    DaemonConfig c;
    c.socketPath = runningAsRoot() ? kSystemSocket : userSocketPath();
    c.dataDir = defaultDataDir();
    c.libvirtUri = defaultLibvirtUri();
    return c;
}

void DaemonConfig::applyEnvironment()
{
    socketPath = envOr("AIRLOCK_SOCKET", socketPath);
    dataDir = envOr("AIRLOCK_HOME", dataDir);
    libvirtUri = envOr("AIRLOCK_LIBVIRT_URI", libvirtUri);
    AccelChoice a;
    if (parseAccel(qEnvironmentVariable("AIRLOCK_ACCEL"), &a))
        accel = a;
    upstreamHostsFile = envOr("AIRLOCK_UPSTREAM_HOSTS", upstreamHostsFile);
    upstreamCaFile = envOr("AIRLOCK_UPSTREAM_CA", upstreamCaFile);
    parseRetention(qEnvironmentVariable("AIRLOCK_EVENT_RETENTION_DAYS"), kMaxRetentionDays, &eventRetentionDays);
    parseRetention(qEnvironmentVariable("AIRLOCK_EVENT_RETENTION_MIB"), kMaxRetentionMib, &eventRetentionMib);
}

bool parseRetention(const QString &text, int max, int *out)
{
    bool ok = false;
    const int v = text.trimmed().toInt(&ok);
    if (!ok || v < 1 || v > max)
        return false;
    *out = v;
    return true;
}

QString DaemonConfig::databasePath() const { return dataDir + QStringLiteral("/airlock.db"); }
QString DaemonConfig::lockPath() const { return dataDir + QStringLiteral("/airlockd.lock"); }

QString accelName(AccelChoice a)
{
    switch (a) {
    case AccelChoice::Kvm: return QStringLiteral("kvm");
    case AccelChoice::Tcg: return QStringLiteral("tcg");
    case AccelChoice::Auto: break;
    }
    return QStringLiteral("auto");
}

bool parseAccel(const QString &text, AccelChoice *out)
{
    if (text == QLatin1String("auto")) *out = AccelChoice::Auto;
    else if (text == QLatin1String("kvm")) *out = AccelChoice::Kvm;
    else if (text == QLatin1String("tcg")) *out = AccelChoice::Tcg;
    else return false;
    return true;
}

} // namespace airlock
