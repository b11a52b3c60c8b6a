#pragma once
#include <QString>
#include <QStringList>

namespace airlock {

enum class AccelChoice { Auto, Kvm, Tcg };

// Daemon settings: built-in defaults, overridden by the environment, overridden by options
// (airlockd's options: app/airlockd/main.cpp).
struct DaemonConfig {
    QString socketPath;
    QString dataDir;
    QString libvirtUri;
    AccelChoice accel = AccelChoice::Auto;
    QString upstreamHostsFile; // tests only: AIRLOCK_UPSTREAM_HOSTS
    QString upstreamCaFile;    // tests only: AIRLOCK_UPSTREAM_CA
    // Egress events are kept this long and while they fit this size, whichever ends first
    // (AIRLOCK_EVENT_RETENTION_DAYS / _MIB, --event-retention-days / -mib).
    int eventRetentionDays = 30;
    int eventRetentionMib = 1024;

    static DaemonConfig defaults();        // embedded defaults for this user
    void applyEnvironment();               // AIRLOCK_SOCKET, AIRLOCK_HOME, ...
    QString databasePath() const;          // <dataDir>/airlock.db
    QString lockPath() const;              // <dataDir>/airlockd.lock
};

// Where a client looks for the daemon: $AIRLOCK_SOCKET, else the system service's socket
// when it exists (or the client is root), else the user's own daemon's.
QString defaultSocketPath();
QString defaultDataDir();
QString defaultLibvirtUri();

// A retention setting: a whole number from 1 to `max`; false on anything else.
bool parseRetention(const QString &text, int max, int *out);
constexpr int kMaxRetentionDays = 36500;
constexpr int kMaxRetentionMib = 16 * 1024 * 1024;

QString accelName(AccelChoice a);
bool parseAccel(const QString &text, AccelChoice *out);

} // namespace airlock
