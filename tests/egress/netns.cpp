#include "netns.h"

#include <QElapsedTimer>
#include <QFile>
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

QString missingVmTestPrerequisite(const QString &test, const QString &rootFor, const QString &ctestFilter)
{
    if (::geteuid() != 0)
        return QStringLiteral("%1 needs root (%2)").arg(test, rootFor);
    if (qEnvironmentVariableIsEmpty("AIRLOCKCTL_BIN"))
        return QStringLiteral("AIRLOCKCTL_BIN is not set: run through ctest");
    if (QFile::symLinkTarget(QStringLiteral("/proc/self/ns/net")) == QFile::symLinkTarget(QStringLiteral("/proc/1/ns/net")))
        return QStringLiteral("run inside the test namespaces: tests/support/in-test-env.sh ctest --preset debug %1 "
                              "(tests/support/libvirt-env.sh namespace makes them and starts the tests' libvirtd)")
            .arg(ctestFilter);
    return {};
}

bool LoopbackAddress::add(const QString &ipv4, QString *error)
{
    const QString ip = QStringLiteral("ip");
    run(ip, {QStringLiteral("link"), QStringLiteral("set"), QStringLiteral("lo"), QStringLiteral("up")});
    QByteArray err;
    const int rc = run(ip, {QStringLiteral("addr"), QStringLiteral("add"), ipv4 + QStringLiteral("/32"), QStringLiteral("dev"),
                            QStringLiteral("lo")}, nullptr, 30000, &err);
    if (rc != 0 && !err.contains("File exists") && !err.contains("already assigned")) {
        *error = QStringLiteral("cannot add %1 to lo: %2").arg(ipv4, QString::fromUtf8(err));
        return false;
    }
    m_ip = ipv4;
    return true;
}

void LoopbackAddress::remove()
{
    if (m_ip.isEmpty())
        return;
    run(QStringLiteral("ip"), {QStringLiteral("addr"), QStringLiteral("del"), m_ip + QStringLiteral("/32"), QStringLiteral("dev"),
                               QStringLiteral("lo")});
    m_ip.clear();
}

bool OutsideNamespace::create(const QString &tag, const QString &outsideIp, const QString &linkNet, QString *error)
{
    const QString pid = QString::number(::getpid() % 100000);
    const QString vethOut = QStringLiteral("al%1o%2").arg(tag, pid);
    const QString prefix = linkNet.section(QLatin1Char('.'), 0, 2) + QLatin1Char('.');
    const int base = linkNet.section(QLatin1Char('.'), 3).toInt();
    const QString hostAddr = prefix + QString::number(base + 1);
    const QString peerAddr = prefix + QString::number(base + 2);
    m_ns = QStringLiteral("al%1-%2").arg(tag, pid);
    m_vethHost = QStringLiteral("al%1h%2").arg(tag, pid);
    m_outsideIp = outsideIp;
    const QString ip = QStringLiteral("ip");
    const QList<QStringList> here{
        {QStringLiteral("netns"), QStringLiteral("add"), m_ns},
        {QStringLiteral("link"), QStringLiteral("add"), m_vethHost, QStringLiteral("type"), QStringLiteral("veth"),
         QStringLiteral("peer"), QStringLiteral("name"), vethOut},
        {QStringLiteral("link"), QStringLiteral("set"), vethOut, QStringLiteral("netns"), m_ns},
        {QStringLiteral("addr"), QStringLiteral("add"), hostAddr + QStringLiteral("/30"), QStringLiteral("dev"), m_vethHost},
        {QStringLiteral("link"), QStringLiteral("set"), m_vethHost, QStringLiteral("up")}};
    const QList<QStringList> inside{
        {ip, QStringLiteral("link"), QStringLiteral("set"), QStringLiteral("lo"), QStringLiteral("up")},
        {ip, QStringLiteral("addr"), QStringLiteral("add"), outsideIp + QStringLiteral("/32"), QStringLiteral("dev"), QStringLiteral("lo")},
        {ip, QStringLiteral("addr"), QStringLiteral("add"), peerAddr + QStringLiteral("/30"), QStringLiteral("dev"), vethOut},
        {ip, QStringLiteral("link"), QStringLiteral("set"), vethOut, QStringLiteral("up")}};
    for (const QStringList &args : here)
        if (run(ip, args) != 0) {
            *error = QStringLiteral("ip %1 failed").arg(args.join(QLatin1Char(' ')));
            return false;
        }
    for (const QStringList &argv : inside)
        if (runIn(m_ns, argv) != 0) {
            *error = QStringLiteral("in %1: %2 failed").arg(m_ns, argv.join(QLatin1Char(' ')));
            return false;
        }
    const QStringList route{QStringLiteral("route"), QStringLiteral("add"), outsideIp + QStringLiteral("/32"),
                            QStringLiteral("via"), peerAddr};
    if (run(ip, route) != 0) {
        *error = QStringLiteral("ip %1 failed").arg(route.join(QLatin1Char(' ')));
        return false;
    }
    m_routeAdded = true;
    return true;
}

void OutsideNamespace::remove()
{
    const QString ip = QStringLiteral("ip");
    if (m_routeAdded)
        run(ip, {QStringLiteral("route"), QStringLiteral("del"), m_outsideIp + QStringLiteral("/32")});
    if (!m_vethHost.isEmpty())
        run(ip, {QStringLiteral("link"), QStringLiteral("del"), m_vethHost});
    if (!m_ns.isEmpty())
        run(ip, {QStringLiteral("netns"), QStringLiteral("del"), m_ns});
    m_routeAdded = false;
    m_vethHost.clear();
    m_ns.clear();
}

} // namespace airlock::test
