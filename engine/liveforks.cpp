// A fork of a checkpoint started live: the copy resumes where its origin was when the
// checkpoint was taken, on its own disk, network and guard, then moves to its own MAC and
// address before its link comes up.
#include "core/crashpoint.h"
#include "core/diskspace.h"
#include "core/logging.h"
#include "guestagent.h"
#include "libvirtconnection.h"
#include "saveddefinition.h"
#include "saveimage.h"
#include "sandboxengine.h"
#include "virhandle.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QSqlRecord>

namespace airlock {

namespace {
constexpr qint64 kResumeCopySlackBytes = 64 * 1024 * 1024;

// Run by the guest's own shell with the values as arguments, never spliced into the script.
const char kMoveScript[] = R"sh(set -e
ip link set dev eth0 down
ip link set dev eth0 address "$1"
ip addr flush dev eth0
ip neigh flush dev eth0 || true
ip link set dev eth0 up
ip addr add "$2" dev eth0
ip route replace default via "$3"
echo "nameserver $3" > /etc/resolv.conf
hostname "$4"
)sh";
} // namespace

Result<std::optional<GuestNetwork>> SandboxEngine::startFork(const QString &fork, const QString &origin, qint64 id, uid_t uid)
{
    const Result<QString> memoryPath = checkpointMemoryPath(origin, id, uid);
    if (!memoryPath)
        return memoryPath.error();
    if (memoryPath->isEmpty()) { // a disk-only snapshot: the fork boots from it
        if (Status s = startSandbox(fork, uid); !s)
            return s.error();
        return std::optional<GuestNetwork>();
    }
    Result<GuestNetwork> network = resumeLiveFork(fork, memoryPath.value());
    if (!network)
        return network.error();
    return std::optional<GuestNetwork>(network.value());
}

Result<GuestNetwork> SandboxEngine::resumeLiveFork(const QString &fork, const QString &memoryPath)
{
    const QString domain = objectName(fork);
    VirDomain dom = lookupDomain(m_libvirt.get(), domain);
    if (!dom)
        return Error{QStringLiteral("the domain of %1 is gone").arg(fork), QStringLiteral("remove the fork and make it again"), ErrorKind::Conflict};
    const QString own = takeVirString(virDomainGetXMLDesc(dom.get(), VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE));
    Result<GuestNetwork> network = guestNetworkOf(own);
    if (!network)
        return network.error();
    Result<SaveImageHeader> saved = saveimage::read(memoryPath);
    if (!saved)
        return saved.error();
    Result<QString> def = liveForkDefinition(QString::fromUtf8(saved->xml), own);
    if (!def)
        return def.error();
    // libvirt restores a file, not a stream: the fork gets its own copy, removed once QEMU has read it.
    if (Status room = requireFreeSpace(QStringLiteral("cannot start %1 from the checkpoint").arg(fork), checkpointDir(),
                                       QFileInfo(memoryPath).size() + kResumeCopySlackBytes);
        !room)
        return room.error();
    const QString copy = checkpointDir() + QLatin1Char('/') + volumePrefix() + fork + QStringLiteral(".resume");
    QFile::remove(copy);
    if (Status s = saveimage::copyWithXml(memoryPath, copy, withoutBackingChain(def.value()).toUtf8()); !s)
        return s.error();
    Status started = restoreGuarded(fork, copy, {});
    if (started)
        crashPoint("fork:resumed");
    QFile::remove(copy);
    if (!started)
        return started.error();
    return network;
}

// A fork resumed with its link down never took its own address (airlockd stopped first): it
// reaches nothing as it is, and nothing will move it now, so it is stopped; a start boots it.
void SandboxEngine::stopHalfResumedForks()
{
    const auto names = m_store.rows(QStringLiteral("SELECT name FROM sandboxes"));
    if (!names)
        return;
    for (const QSqlRecord &row : *names) {
        const QString name = row.value(0).toString();
        VirDomain dom = lookupDomain(m_libvirt.get(), objectName(name));
        if (!dom || virDomainIsActive(dom.get()) != 1)
            continue;
        const QString live = takeVirString(virDomainGetXMLDesc(dom.get(), 0));
        if (!live.contains(QLatin1String("<link state='down'/>")))
            continue;
        qCInfo(lcEngine) << "reconcile: stopping" << name << "resumed from a checkpoint but never moved to its own address; a start boots it";
        virDomainDestroy(dom.get());
        releaseNetwork(name);
        m_startedAt.remove(name);
    }
}

Status SandboxEngine::moveGuestToItsNetwork(virDomainPtr dom, const GuestNetwork &network)
{
    GuestAgent agent(dom);
    Result<ExecResult> moved = agent.exec({QStringLiteral("/bin/sh"), QStringLiteral("-c"), QString::fromLatin1(kMoveScript),
                                           QStringLiteral("sh"), network.mac, network.address, network.gateway, network.hostname},
                                          {}, 30);
    if (!moved)
        return moved.error();
    if (moved->exitCode != 0)
        return Error{QStringLiteral("the fork's guest could not take its own address"),
                     QString::fromUtf8(moved->err.left(500)).trimmed() + QStringLiteral(" (exit %1)").arg(moved->exitCode)};
    Result<QString> nic = interfaceWithLinkUp(takeVirString(virDomainGetXMLDesc(dom, 0)));
    if (!nic)
        return nic.error();
    if (virDomainUpdateDeviceFlags(dom, nic->toUtf8().constData(), VIR_DOMAIN_AFFECT_LIVE) < 0)
        return LibvirtConnection::lastError(QStringLiteral("cannot bring the fork's link up"));
    if (Status s = agent.setTimeToNow(10); !s)
        qCWarning(lcEngine) << "cannot set the clock of a resumed fork:" << s.error().message();
    return ok();
}

} // namespace airlock
