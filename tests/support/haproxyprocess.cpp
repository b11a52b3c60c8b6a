#include "haproxyprocess.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QTcpSocket>
#include <QThread>

HaproxyProcess::~HaproxyProcess()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.terminate();
        if (!m_process.waitForFinished(5000))
            m_process.kill();
        m_process.waitForFinished(2000);
    }
}

bool HaproxyProcess::start(const QByteArray &config, const QHostAddress &address, quint16 port)
{
    QFile cfg(m_dir.filePath(QStringLiteral("haproxy.cfg")));
    if (!cfg.open(QIODevice::WriteOnly) || cfg.write(config) != config.size()) {
        m_error = QStringLiteral("cannot write %1").arg(cfg.fileName());
        return false;
    }
    cfg.close();
    m_process.setProcessChannelMode(QProcess::MergedChannels); // its complaints end up in error()
    m_process.start(QStringLiteral("haproxy"), {QStringLiteral("-db"), QStringLiteral("-f"), cfg.fileName()});
    if (!m_process.waitForStarted(5000)) {
        m_error = QStringLiteral("haproxy is missing (installers/packages.txt, section test)");
        return false;
    }
    const QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired()) {
        if (m_process.state() == QProcess::NotRunning) {
            m_error = QStringLiteral("haproxy ended at once: ") + QString::fromLocal8Bit(m_process.readAll());
            return false;
        }
        QTcpSocket probe;
        probe.connectToHost(address, port);
        if (probe.waitForConnected(200))
            return true;
        QThread::msleep(50);
    }
    m_error = QStringLiteral("haproxy did not listen on %1:%2 in 10 s: ").arg(address.toString()).arg(port) +
              QString::fromLocal8Bit(m_process.readAll());
    return false;
}
