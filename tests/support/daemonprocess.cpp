#include "daemonprocess.h"

#include <QDeadlineTimer>
#include <QFileInfo>
#include <QLocalSocket>
#include <QThread>
#include <csignal>

DaemonProcess::DaemonProcess(QStringList extraArgs) : m_extraArgs(std::move(extraArgs))
{
    m_process.setProcessChannelMode(QProcess::MergedChannels);
}

DaemonProcess::~DaemonProcess()
{
    if (m_process.state() != QProcess::NotRunning)
        stop();
}

QString DaemonProcess::daemonBinary() { return qEnvironmentVariable("AIRLOCKD_BIN", QStringLiteral("airlockd")); }
QString DaemonProcess::ctlBinary() { return qEnvironmentVariable("AIRLOCKCTL_BIN", QStringLiteral("airlockctl")); }

bool DaemonProcess::start(int timeoutMs)
{
    QStringList args{QStringLiteral("--foreground"), QStringLiteral("--data-dir"), dataDir(),
                     QStringLiteral("--socket"), socketPath()};
    args += m_extraArgs;
    m_process.start(daemonBinary(), args);
    if (!m_process.waitForStarted(5000))
        return false;
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        if (m_process.state() == QProcess::NotRunning)
            return false;
        if (QFileInfo::exists(socketPath())) {
            QLocalSocket probe;
            probe.connectToServer(socketPath());
            if (probe.waitForConnected(200)) {
                probe.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\"}\n");
                if (probe.waitForReadyRead(2000) && probe.readLine().contains("\"result\""))
                    return true;
            }
        }
        if (m_process.waitForFinished(50)) // also lets QProcess notice an early exit
            return false;
    }
    return false;
}

int DaemonProcess::stop(int timeoutMs)
{
    if (m_process.state() == QProcess::NotRunning)
        return m_process.exitCode();
    ::kill(pid_t(m_process.processId()), SIGTERM);
    if (!m_process.waitForFinished(timeoutMs)) {
        m_process.kill();
        m_process.waitForFinished(5000);
        return -1;
    }
    return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
}

QString DaemonProcess::log()
{
    m_log += m_process.readAll();
    return QString::fromUtf8(m_log);
}

DaemonProcess::CtlResult DaemonProcess::ctl(const QStringList &args, const QByteArray &stdinData, int timeoutMs)
{
    return ctlAt(socketPath(), args, stdinData, timeoutMs);
}

DaemonProcess::CtlResult DaemonProcess::ctlAt(const QString &socketPath, const QStringList &args, const QByteArray &stdinData,
                                              int timeoutMs)
{
    QProcess p;
    p.start(ctlBinary(), QStringList{QStringLiteral("--socket"), socketPath} + args);
    p.waitForStarted(5000);
    if (!stdinData.isEmpty())
        p.write(stdinData);
    p.closeWriteChannel();
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n(timed out)"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}
