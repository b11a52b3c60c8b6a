#pragma once
// Edits of a domain definition saved with a checkpoint (the XML in its memory file), made
// before libvirt restores it. Plain text edits of the definitions libvirt itself wrote:
// each finds what it changes or fails saying the file is not one Airlock made.
#include "core/result.h"

#include <QString>

namespace airlock {

// Where a live fork's guest must move once resumed: until then it has its origin's MAC and
// address (they are in its memory), which the fork's network guard drops.
struct GuestNetwork {
    QString mac;      // 52:54:00:…
    QString address;  // 10.213.0.6/30
    QString gateway;  // 10.213.0.5
    QString hostname; // the fork's name
};

// The saved definition with the disk that has target vda on `newPath`.
Result<QString> pointSavedDisk(QString xml, const QString &newPath);
// A checkpoint's saved definition made the fork's: the name, UUID, disk, network and kernel
// command line of `forkDefinition` (the fork's own, as defined), the NIC's link down.
// Devices, their addresses, CPU and memory stay as the memory was saved with them, and so
// does the NIC's MAC (QEMU's device state carries it; the guest changes it).
Result<QString> liveForkDefinition(const QString &saved, const QString &forkDefinition);
// The MAC, address, gateway and host name a definition gives its guest (its NIC and the
// airlock.* words of its kernel command line).
Result<GuestNetwork> guestNetworkOf(const QString &definition);
// The running domain's NIC as virDomainUpdateDeviceFlags takes it, its link up.
Result<QString> interfaceWithLinkUp(const QString &liveDefinition);

} // namespace airlock
