#include "childprocess.h"

#include <QDeadlineTimer>
#include <QTcpSocket>
#include <QThread>

void stopChild(QProcess &process)
{
    if (process.state() == QProcess::NotRunning)
        return;
    process.terminate();
    if (!process.waitForFinished(5000))
        process.kill();
    process.waitForFinished(2000);
}

bool waitUntilListening(const QProcess &process, const QHostAddress &address, quint16 port, int ms)
{
    const QDeadlineTimer deadline(ms);
    while (!deadline.hasExpired() && process.state() != QProcess::NotRunning) {
        QTcpSocket probe;
        probe.connectToHost(address, port);
        if (probe.waitForConnected(200))
            return true;
        QThread::msleep(50);
    }
    return false;
}
