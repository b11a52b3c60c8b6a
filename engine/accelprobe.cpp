#include "accelprobe.h"
#include "core/logging.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QProcess>

namespace airlock {

bool probeKvm(const QString &kernelPath, const QString &initrdPath, int timeoutMs)
{
    if (!QFile::exists(QStringLiteral("/dev/kvm")))
        return false;
    QProcess qemu;
    qemu.setProcessChannelMode(QProcess::MergedChannels);
    qemu.start(QStringLiteral("qemu-system-x86_64"),
               {QStringLiteral("-accel"), QStringLiteral("kvm"), QStringLiteral("-M"), QStringLiteral("q35"),
                QStringLiteral("-m"), QStringLiteral("256"), QStringLiteral("-nographic"), QStringLiteral("-no-reboot"),
                QStringLiteral("-nodefaults"), QStringLiteral("-serial"), QStringLiteral("stdio"),
                QStringLiteral("-kernel"), kernelPath, QStringLiteral("-initrd"), initrdPath,
                QStringLiteral("-append"), QStringLiteral("console=ttyS0 quiet panic=-1 airlock.probe")});
    if (!qemu.waitForStarted(5000))
        return false;
    QByteArray output;
    QDeadlineTimer deadline(timeoutMs);
    bool works = false;
    while (!deadline.hasExpired() && qemu.state() == QProcess::Running) {
        qemu.waitForReadyRead(200);
        output += qemu.readAll();
        if (output.contains("AIRLOCK-PROBE-OK")) {
            works = true;
            break;
        }
    }
    qemu.kill();
    qemu.waitForFinished(5000);
    qCInfo(lcEngine) << "KVM probe:" << (works ? "works" : "does not boot a kernel; using TCG");
    return works;
}

} // namespace airlock
