#pragma once
#include <QString>

namespace airlock {

// Whether KVM really works here: boots the image's kernel and initramfs under
// `qemu -accel kvm` until the initramfs prints its probe marker. A /dev/kvm that exists but
// hangs a stock kernel (a paravirtual PVM /dev/kvm does) fails the probe and we use TCG.
bool probeKvm(const QString &kernelPath, const QString &initrdPath, int timeoutMs = 20000);

} // namespace airlock
