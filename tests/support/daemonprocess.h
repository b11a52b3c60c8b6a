#pragma once
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

// A real airlockd for tests: its own data directory and socket under a temp dir,
// started in the foreground from $AIRLOCKD_BIN and stopped with SIGTERM.
class DaemonProcess {
public:
    explicit DaemonProcess(QStringList extraArgs = {});
    ~DaemonProcess();

    // Starts and waits until the socket accepts a `status`; false (with log()) otherwise.
    bool start(int timeoutMs = 20000);
    // SIGTERM and wait; returns the exit code (-1 if it had to be killed).
    int stop(int timeoutMs = 10000);

    QString dataDir() const { return m_dir.path() + QStringLiteral("/data"); }
    QString socketPath() const { return m_dir.path() + QStringLiteral("/airlockd.sock"); }
    qint64 pid() const { return m_process.processId(); }
    QString log();
    QProcess &process() { return m_process; }

    static QString daemonBinary();
    static QString ctlBinary();

    struct CtlResult {
        int exitCode;
        QByteArray out;
        QByteArray err;
    };
    // Runs airlockctl against this daemon.
    CtlResult ctl(const QStringList &args, const QByteArray &stdinData = {}, int timeoutMs = 600000);

    // Runs airlockctl against the daemon at `socketPath` (a real one or a test's stand-in).
    static CtlResult ctlAt(const QString &socketPath, const QStringList &args, const QByteArray &stdinData = {},
                           int timeoutMs = 600000);

private:
    QTemporaryDir m_dir;
    QStringList m_extraArgs;
    QProcess m_process;
    QByteArray m_log;
};
