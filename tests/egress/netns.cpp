#include "netns.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTest>
#include <fcntl.h>
#include <sched.h>
#include <thread>
#include <unistd.h>

namespace airlock::test {

int run(const QString &program, const QStringList &args, QByteArray *out, int timeoutMs, QByteArray *err)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForStarted(5000))
        return -1;
    QElapsedTimer t;
    t.start();
    while (p.state() != QProcess::NotRunning && t.elapsed() < timeoutMs) {
        p.waitForFinished(10);
        QTest::qWait(5); // the broker's API answers on this thread
    }
    if (p.state() != QProcess::NotRunning) {
        p.kill();
        p.waitForFinished(2000);
        return -1;
    }
    if (out)
        *out = p.readAllStandardOutput();
    if (err)
        *err = p.readAllStandardError();
    else if (p.exitCode() != 0)
        qWarning("%s %s: %s", qPrintable(program), qPrintable(args.join(QLatin1Char(' '))), p.readAllStandardError().constData());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

int runIn(const QString &ns, const QStringList &argv, QByteArray *out, int timeoutMs)
{
    return run(QStringLiteral("ip"), QStringList{QStringLiteral("netns"), QStringLiteral("exec"), ns} + argv, out, timeoutMs);
}

bool enter(const QString &ns)
{
    const QByteArray path = QStringLiteral("/run/netns/%1").arg(ns).toLocal8Bit();
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::setns(fd, CLONE_NEWNET) == 0;
    ::close(fd);
    return ok;
}

void inNamespace(const QString &ns, const std::function<void()> &work)
{
    std::thread t([&] {
        if (enter(ns))
            work();
    });
    t.join();
}

} // namespace airlock::test
