#include "sandboxspec.h"

#include <QByteArray>

namespace airlock {

namespace {
QString esc(const QString &s) { return s.toHtmlEscaped(); }
} // namespace

QString kernelCommandLine(const SandboxSpec &spec)
{
    QString line = QStringLiteral("console=ttyS0 quiet panic=-1 airlock.ip=%1/%2 airlock.gw=%3 airlock.hostname=%4")
                       .arg(spec.guestIp).arg(spec.prefix).arg(spec.gateway, spec.name);
    if (!spec.env.isEmpty()) {
        QByteArray lines;
        for (auto it = spec.env.cbegin(); it != spec.env.cend(); ++it)
            lines += it.key().toUtf8() + '=' + it.value().toUtf8() + '\n';
        line += QStringLiteral(" airlock.env=") + QString::fromLatin1(lines.toBase64());
    }
    return line;
}

// q35 with direct kernel boot, virtio everything, the guest agent channel, the process-report
// channel (broker/guestprocess.h), a serial
// console, no graphics, no balloon, no host shares.
QString domainXml(const SandboxSpec &s)
{
    return QStringLiteral(
R"(<domain type='%1'>
  <name>%2</name>
  <memory unit='MiB'>%3</memory>
  <vcpu>%4</vcpu>
  <os>
    <type arch='x86_64' machine='q35'>hvm</type>
    <kernel>%5</kernel>
    <initrd>%6</initrd>
    <cmdline>%7</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2' discard='unmap'/>
      <source file='%8'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <interface type='network'>
      <source network='%9'/>
      <mac address='%10'/>
      <model type='virtio'/>
    </interface>
    <serial type='pty'><target port='0'/></serial>
    <console type='pty'><target type='serial' port='0'/></console>
    <channel type='unix'>
      <target type='virtio' name='org.qemu.guest_agent.0'/>
    </channel>
    <channel type='unix'>
      <target type='virtio' name='org.airlock.proc.0'/>
    </channel>
    <rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>
    <memballoon model='none'/>
  </devices>
</domain>
)")
        .arg(s.kvm ? QStringLiteral("kvm") : QStringLiteral("qemu"), esc(s.domainName))
        .arg(s.memoryMib)
        .arg(s.cpus)
        .arg(esc(s.kernelPath), esc(s.initrdPath), esc(kernelCommandLine(s)), esc(s.diskPath), esc(s.networkName),
             s.mac);
}

// Isolated: no <forward>, no DNS, no DHCP. The broker's nftables table does the rest.
QString networkXml(const SandboxSpec &s)
{
    return QStringLiteral(
R"(<network>
  <name>%1</name>
  <bridge name='%2' stp='off' delay='0'/>
  <dns enable='no'/>
  <ip address='%3' prefix='%4'/>
</network>
)")
        .arg(esc(s.networkName), s.bridge, s.gateway)
        .arg(s.prefix);
}

} // namespace airlock
