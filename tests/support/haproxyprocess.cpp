#include "haproxyprocess.h"

#include "childprocess.h"

#include <QFile>

HaproxyProcess::~HaproxyProcess()
{
    stopChild(m_process);
}

bool HaproxyProcess::start(const QByteArray &config, const QHostAddress &address, quint16 port)
{
    QFile cfg(m_dir.filePath(QStringLiteral("haproxy.cfg")));
    if (!cfg.open(QIODevice::WriteOnly) || cfg.write(config) != config.size()) {
        m_error = QStringLiteral("cannot write %1").arg(cfg.fileName());
        return false;
    }
    cfg.close();
    // Into a file, not a pipe nobody reads while the benchmark runs: a full pipe would stall haproxy.
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    m_process.setStandardOutputFile(m_dir.filePath(QStringLiteral("haproxy.log")));
    m_process.start(QStringLiteral("haproxy"), {QStringLiteral("-db"), QStringLiteral("-f"), cfg.fileName()});
    if (!m_process.waitForStarted(5000)) {
        m_error = QStringLiteral("haproxy is missing (installers/packages.txt, section test)");
        return false;
    }
    if (waitUntilListening(m_process, address, port, 10000))
        return true;
    if (m_process.state() == QProcess::NotRunning)
        m_error = QStringLiteral("haproxy ended at once: ") + log();
    else
        m_error = QStringLiteral("haproxy did not listen on %1:%2 in 10 s: ").arg(address.toString()).arg(port) +
                  log();
    return false;
}

QString HaproxyProcess::log() const
{
    QFile f(m_dir.filePath(QStringLiteral("haproxy.log")));
    return f.open(QIODevice::ReadOnly) ? QString::fromLocal8Bit(f.readAll()) : QString();
}
