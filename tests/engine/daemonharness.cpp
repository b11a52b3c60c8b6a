#include "daemonharness.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QThread>
#include <csignal>
#include <unistd.h>

QString DaemonHarness::sharedDataDir()
{
    const QString dir = qEnvironmentVariable("AIRLOCK_ENGINE_TEST_DATA");
    if (!dir.isEmpty()) {
        QDir().mkpath(dir);
        return dir;
    }
    static QTemporaryDir fallback;
    return fallback.path();
}

bool DaemonHarness::setUpstream(const QString &dir, const QByteArray &hosts, const QByteArray &caPem, QString *error)
{
    auto write = [error](const QString &path, const QByteArray &content) {
        QFile f(path);
        if (f.open(QIODevice::WriteOnly) && f.write(content) == content.size())
            return true;
        *error = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
        return false;
    };
    const QString hostsFile = dir + QStringLiteral("/upstream-hosts");
    if (!write(hostsFile, hosts))
        return false;
    qputenv("AIRLOCK_UPSTREAM_HOSTS", hostsFile.toLocal8Bit());
    if (caPem.isEmpty())
        return true;
    const QString caFile = dir + QStringLiteral("/upstream-ca.pem");
    if (!write(caFile, caPem))
        return false;
    qputenv("AIRLOCK_UPSTREAM_CA", caFile.toLocal8Bit());
    return true;
}

DaemonHarness::~DaemonHarness() { stop(); }

bool DaemonHarness::start(const QString &dataDir, QString *error, const QStringList &extraArgs, const QStringList &extraEnv)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &kv : extraEnv)
        env.insert(kv.section(QLatin1Char('='), 0, 0), kv.section(QLatin1Char('='), 1));
    m_daemon.setProcessEnvironment(env);
    const QString bin = qEnvironmentVariable("AIRLOCKD_BIN");
    if (bin.isEmpty()) {
        *error = QStringLiteral("AIRLOCKD_BIN is not set (run through ctest)");
        return false;
    }
    m_daemon.setProcessChannelMode(QProcess::MergedChannels);
    m_daemon.setStandardOutputFile(m_dir.filePath(QStringLiteral("airlockd.log")), QIODevice::Append);
    m_daemon.start(bin, QStringList{QStringLiteral("--foreground"), QStringLiteral("--socket"), socketPath(),
                                    QStringLiteral("--data-dir"), dataDir, QStringLiteral("--libvirt-uri"), libvirtUri()} + extraArgs);
    if (!m_daemon.waitForStarted(5000)) {
        *error = QStringLiteral("cannot start airlockd: ") + m_daemon.errorString();
        return false;
    }
    for (int i = 0; i < 600; ++i) { // start-up includes reconcile and perhaps a KVM probe
        if (QFile::exists(socketPath()) && ctl({QStringLiteral("status")}, 5000).exitCode == 0)
            return true;
        if (m_daemon.state() != QProcess::Running) {
            *error = QStringLiteral("airlockd exited: ") + QString::fromUtf8(log());
            return false;
        }
        QThread::msleep(100);
    }
    *error = QStringLiteral("airlockd did not answer within 60 s: ") + QString::fromUtf8(log());
    return false;
}

bool DaemonHarness::startWithTinyImage(QString *error)
{
    if (!start(sharedDataDir(), error))
        return false;
    if (!ctl({QStringLiteral("image"), QStringLiteral("ls")}).out.contains("\"tiny\"")) {
        *error = QStringLiteral("the tiny image is missing: test_engine_image builds it (ctest fixture)");
        return false;
    }
    return true;
}

void DaemonHarness::stop()
{
    if (m_daemon.state() == QProcess::NotRunning)
        return;
    m_daemon.terminate();
    if (!m_daemon.waitForFinished(60000)) {
        m_daemon.kill();
        m_daemon.waitForFinished(5000);
    }
}

void DaemonHarness::killHard()
{
    if (m_daemon.state() == QProcess::NotRunning)
        return;
    ::kill(pid_t(m_daemon.processId()), SIGKILL);
    m_daemon.waitForFinished(5000);
}

CtlResult DaemonHarness::ctl(const QStringList &args, int timeoutMs, const QByteArray &input) const
{
    return runCtl(QStringList{QStringLiteral("--json")} + args, timeoutMs, input);
}

CtlResult DaemonHarness::ctlText(const QStringList &args, int timeoutMs, const QByteArray &input) const
{
    return runCtl(args, timeoutMs, input);
}

CtlResult DaemonHarness::guestExec(const QString &sandbox, const QStringList &argv, int timeoutMs, const QByteArray &input) const
{
    QStringList args{QStringLiteral("exec"), sandbox};
    if (!input.isEmpty())
        args << QStringLiteral("--stdin");
    return ctlText(args + QStringList{QStringLiteral("--")} + argv, timeoutMs, input);
}

CtlResult DaemonHarness::guestSh(const QString &sandbox, const QString &script, int timeoutMs, const QByteArray &input) const
{
    return guestExec(sandbox, {QStringLiteral("sh"), QStringLiteral("-c"), script}, timeoutMs, input);
}

CtlResult DaemonHarness::initOrUnlockVault(const QByteArray &passphrase, int timeoutMs) const
{
    const bool fresh = ctl({QStringLiteral("vault"), QStringLiteral("status")}).out.contains("uninitialised");
    return ctl({QStringLiteral("vault"), fresh ? QStringLiteral("init") : QStringLiteral("unlock")}, timeoutMs, passphrase + '\n');
}

bool DaemonHarness::killAndRemove(const QString &sandbox) const
{
    ctl({QStringLiteral("kill"), sandbox}, 120000);
    return ctl({QStringLiteral("rm"), sandbox}, 120000).exitCode == 0;
}

CtlResult DaemonHarness::runCtl(const QStringList &args, int timeoutMs, const QByteArray &input) const
{
    QProcess p;
    p.start(qEnvironmentVariable("AIRLOCKCTL_BIN"), QStringList{QStringLiteral("--socket"), socketPath()} + args);
    CtlResult r;
    if (!p.waitForStarted(5000))
        return r;
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(1000);
        r.err = "airlockctl timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QByteArray DaemonHarness::log() const
{
    QFile f(m_dir.filePath(QStringLiteral("airlockd.log")));
    return f.open(QIODevice::ReadOnly) ? f.readAll().right(4000) : QByteArray();
}

QString uniqueName(const QString &prefix)
{
    return QStringLiteral("%1-%2").arg(prefix).arg(QCoreApplication::applicationPid());
}
