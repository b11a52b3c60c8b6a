#include "sshdprocess.h"

#include "childprocess.h"

#include <QDir>
#include <QFile>
#include <QTcpServer>
#include <pwd.h>
#include <unistd.h>

namespace {

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort(); // let go when probe ends; sshd binds it next
}

bool keygen(const QString &path, QString *error)
{
    QProcess p;
    p.start(QStringLiteral("ssh-keygen"), {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                                           QStringLiteral("-N"), QString(), QStringLiteral("-f"), path});
    if (!p.waitForFinished(20000) || p.exitCode() != 0) {
        *error = QStringLiteral("ssh-keygen failed (openssh-client, installers/packages.txt [test]): ") +
                 QString::fromLocal8Bit(p.readAllStandardError());
        return false;
    }
    return true;
}

} // namespace

SshdProcess::~SshdProcess()
{
    stopChild(m_process);
}

bool SshdProcess::start()
{
    const QString dir = m_dir.path();
    if (!keygen(dir + QStringLiteral("/host"), &m_error) || !keygen(dir + QStringLiteral("/client"), &m_error))
        return false;
    QFile::copy(dir + QStringLiteral("/client.pub"), dir + QStringLiteral("/authorized_keys"));
    QDir().mkpath(QStringLiteral("/run/sshd")); // sshd's privilege separation directory
    m_port = freePort();
    QFile config(dir + QStringLiteral("/sshd_config"));
    if (!config.open(QIODevice::WriteOnly)) {
        m_error = QStringLiteral("cannot write %1").arg(config.fileName());
        return false;
    }
    config.write(QStringLiteral("Port %1\nListenAddress 127.0.0.1\nHostKey %2/host\nAuthorizedKeysFile %2/authorized_keys\n"
                                "PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                                "UsePAM no\nStrictModes no\nPidFile %2/sshd.pid\nLogLevel VERBOSE\n")
                     .arg(m_port)
                     .arg(dir)
                     .toUtf8());
    config.close();
    m_process.setProcessChannelMode(QProcess::ForwardedChannels);
    m_process.start(QStringLiteral("/usr/sbin/sshd"), {QStringLiteral("-D"), QStringLiteral("-f"), config.fileName(),
                                                       QStringLiteral("-E"), dir + QStringLiteral("/sshd.log")});
    if (!m_process.waitForStarted(5000)) {
        m_error = QStringLiteral("cannot start /usr/sbin/sshd (openssh-server, installers/packages.txt [test])");
        return false;
    }
    if (waitUntilListening(m_process, QHostAddress(QHostAddress::LocalHost), m_port, 10000))
        return true;
    if (m_process.state() == QProcess::NotRunning)
        m_error = QStringLiteral("sshd ended at once: ") + log();
    else
        m_error = QStringLiteral("sshd did not listen on 127.0.0.1:%1 in 10 s: ").arg(m_port) + log();
    return false;
}

QString SshdProcess::log() const
{
    QFile f(m_dir.path() + QStringLiteral("/sshd.log"));
    return f.open(QIODevice::ReadOnly) ? QString::fromLocal8Bit(f.readAll()) : QString();
}

QStringList SshdProcess::clientOptions(quint16 port) const
{
    const passwd *me = ::getpwuid(::getuid());
    return {QStringLiteral("ssh"), QStringLiteral("-F"), QStringLiteral("/dev/null"),
            QStringLiteral("-o"), QStringLiteral("BatchMode=yes"),
            QStringLiteral("-o"), QStringLiteral("StrictHostKeyChecking=no"),
            QStringLiteral("-o"), QStringLiteral("UserKnownHostsFile=/dev/null"),
            QStringLiteral("-o"), QStringLiteral("LogLevel=ERROR"),
            QStringLiteral("-i"), m_dir.path() + QStringLiteral("/client"),
            QStringLiteral("-p"), QString::number(port),
            QStringLiteral("%1@127.0.0.1").arg(QString::fromLocal8Bit(me ? me->pw_name : "root"))};
}

QStringList SshdProcess::sshCommand(const QStringList &remote) const
{
    return clientOptions(m_port) + remote;
}

QStringList SshdProcess::unreachableCommand(const QStringList &remote) const
{
    return clientOptions(freePort()) + remote;
}
