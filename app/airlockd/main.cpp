// airlockd: the one owner of Airlock's state; its services are made in app/daemon/services.cpp.
#include "core/config.h"
#include "core/logging.h"
#include "daemon/daemon.h"
#include "daemon/signalwatcher.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <cstdio>
#include <optional>
#include <utility>
#include <fcntl.h>
#include <unistd.h>

using namespace airlock;

namespace {

// Forks into the background; the parent exits only when the child is listening (0) or
// failed (1), so `airlockd && airlockctl status` never races the socket.
int daemonize(const QString &logPath, int *readyFd)
{
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0)
        return -1;
    const pid_t pid = ::fork();
    if (pid < 0)
        return -1;
    if (pid > 0) {
        ::close(pipeFds[1]);
        char verdict = 1;
        const bool told = ::read(pipeFds[0], &verdict, 1) == 1;
        std::_Exit(told && verdict == 0 ? 0 : 1);
    }
    ::close(pipeFds[0]);
    ::setsid();
    const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    ::dup2(devnull, STDIN_FILENO);
    const QByteArray log = QFile::encodeName(logPath);
    const int logFd = ::open(log.constData(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (logFd >= 0) {
        ::dup2(logFd, STDOUT_FILENO);
        // stderr stays on the terminal until start-up has succeeded, so errors are seen
    }
    *readyFd = pipeFds[1];
    return logFd;
}

// airlockd's command line.
struct Options {
    QCommandLineOption foreground{QStringLiteral("foreground"), QStringLiteral("Stay in the foreground and log to stderr.")};
    QCommandLineOption socket{QStringLiteral("socket"), QStringLiteral("Unix socket to listen on."), QStringLiteral("path")};
    QCommandLineOption dataDir{QStringLiteral("data-dir"), QStringLiteral("Directory for the store and images."), QStringLiteral("dir")};
    QCommandLineOption libvirtUri{QStringLiteral("libvirt-uri"), QStringLiteral("libvirt connection URI."), QStringLiteral("uri")};
    QCommandLineOption accel{QStringLiteral("accel"), QStringLiteral("auto, kvm or tcg."), QStringLiteral("mode")};
    QCommandLineOption retentionDays{QStringLiteral("event-retention-days"),
                                     QStringLiteral("Keep egress events this many days (default 30)."), QStringLiteral("days")};
    QCommandLineOption retentionMib{QStringLiteral("event-retention-mib"),
                                    QStringLiteral("Keep egress events while the database fits this many MiB (default 1024)."),
                                    QStringLiteral("mib")};
    QCommandLineOption socketGroup{QStringLiteral("socket-group"),
                                   QStringLiteral("Share the socket with this group's members (root only; the system "
                                                  "socket uses the group airlock)."),
                                   QStringLiteral("group")};

    void addTo(QCommandLineParser &parser) const
    {
        parser.addOptions({foreground, socket, dataDir, libvirtUri, accel, retentionDays, retentionMib, socketGroup});
    }
};

// The retention variables are read by the config later; a bad one is refused here, at start.
bool retentionEnvironmentIsValid()
{
    for (const auto &[name, max] : {std::pair{"AIRLOCK_EVENT_RETENTION_DAYS", kMaxRetentionDays},
                                    std::pair{"AIRLOCK_EVENT_RETENTION_MIB", kMaxRetentionMib}}) {
        int unused = 0;
        const QString text = qEnvironmentVariable(name);
        if (!text.isEmpty() && !parseRetention(text, max, &unused)) {
            std::fprintf(stderr, "airlockd: %s=%s : give a whole number from 1 to %d\n", name, qPrintable(text), max);
            return false;
        }
    }
    return true;
}

// The defaults, then the environment, then the command line; nullopt once it said what is wrong.
std::optional<DaemonConfig> readConfig(const QCommandLineParser &parser, const Options &o)
{
    DaemonConfig config = DaemonConfig::defaults();
    config.applyEnvironment();
    if (parser.isSet(o.socket)) config.socketPath = QDir::cleanPath(QDir::current().absoluteFilePath(parser.value(o.socket)));
    if (parser.isSet(o.dataDir)) config.dataDir = QDir::cleanPath(QDir::current().absoluteFilePath(parser.value(o.dataDir)));
    if (parser.isSet(o.libvirtUri)) config.libvirtUri = parser.value(o.libvirtUri);
    if (parser.isSet(o.accel) && !parseAccel(parser.value(o.accel), &config.accel)) {
        std::fprintf(stderr, "airlockd: --accel %s : use auto, kvm or tcg\n", qPrintable(parser.value(o.accel)));
        return std::nullopt;
    }
    if (!retentionEnvironmentIsValid())
        return std::nullopt;
    if (parser.isSet(o.retentionDays) &&
        !parseRetention(parser.value(o.retentionDays), kMaxRetentionDays, &config.eventRetentionDays)) {
        std::fprintf(stderr, "airlockd: --event-retention-days %s : give a whole number of days from 1 to %d\n",
                     qPrintable(parser.value(o.retentionDays)), kMaxRetentionDays);
        return std::nullopt;
    }
    if (parser.isSet(o.retentionMib) && !parseRetention(parser.value(o.retentionMib), kMaxRetentionMib, &config.eventRetentionMib)) {
        std::fprintf(stderr, "airlockd: --event-retention-mib %s : give a whole number of MiB from 1 to %d\n",
                     qPrintable(parser.value(o.retentionMib)), kMaxRetentionMib);
        return std::nullopt;
    }
    return config;
}

// Starts the daemon (in the background unless `foreground`) and serves until a signal.
int serve(const DaemonConfig &config, const QString &socketGroup, bool foreground)
{
    int readyFd = -1;
    int logFd = -1;
    if (!foreground) {
        QDir().mkpath(config.dataDir);
        logFd = daemonize(config.dataDir + QStringLiteral("/airlockd.log"), &readyFd);
    }

    SignalWatcher signalWatcher;
    Daemon daemon(config);
    daemon.setSocketGroup(socketGroup);
    QObject::connect(&signalWatcher, &SignalWatcher::terminationRequested, QCoreApplication::instance(), [](int sig) {
        qCInfo(lcDaemon) << "signal" << sig << "received, shutting down";
        QCoreApplication::quit();
    });
    if (Status s = daemon.start(); !s) {
        std::fprintf(stderr, "airlockd: %s\n", qPrintable(s.error().message()));
        return 1; // the parent sees the pipe close without a verdict and exits 1
    }
    if (readyFd >= 0) {
        const char verdict = 0;
        [[maybe_unused]] const ssize_t n = ::write(readyFd, &verdict, 1);
        ::close(readyFd);
        if (logFd >= 0)
            ::dup2(logFd, STDERR_FILENO);
    }
    const int rc = QCoreApplication::exec();
    daemon.stop();
    return rc;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("airlockd"));
    QCoreApplication::setApplicationVersion(QStringLiteral(AIRLOCK_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Airlock daemon: owns sandboxes, the egress broker and the vault."));
    parser.addHelpOption();
    parser.addVersionOption();
    const Options options;
    options.addTo(parser);
    parser.process(app);

    const std::optional<DaemonConfig> config = readConfig(parser, options);
    if (!config)
        return 2;
    return serve(*config, parser.value(options.socketGroup), parser.isSet(options.foreground));
}
