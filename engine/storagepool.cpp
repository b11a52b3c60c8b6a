#include "storagepool.h"
#include "libvirtconnection.h"
#include "virhandle.h"

#include <QDir>
#include <QRegularExpression>

namespace airlock {

namespace {
QString escapeXml(const QString &s) { return s.toHtmlEscaped(); }
} // namespace

StoragePool::StoragePool(virConnectPtr conn)
    : m_conn(conn), m_name(qEnvironmentVariable("AIRLOCK_POOL_NAME"))
{
    if (m_name.isEmpty())
        m_name = QStringLiteral("airlock");
}

Status StoragePool::ensure(const QString &dir)
{
    static const QRegularExpression validName(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"));
    if (!validName.match(m_name).hasMatch())
        return Error{QStringLiteral("invalid AIRLOCK_POOL_NAME \"%1\"").arg(m_name),
                     QStringLiteral("use 1-64 characters A-Z, a-z, 0-9, _, . and -, or unset it for the pool airlock")};
    if (!m_pool)
        m_pool.reset(virStoragePoolLookupByName(m_conn, m_name.toUtf8().constData()));
    if (!m_pool) {
        if (!QDir().mkpath(dir))
            return Error{QStringLiteral("cannot create the storage directory %1").arg(dir),
                         QStringLiteral("check the permissions of its parent or pass another --data-dir")};
        const QString xml = QStringLiteral("<pool type='dir'><name>%1</name><target><path>%2</path></target></pool>")
                                .arg(escapeXml(m_name), escapeXml(dir));
        m_pool.reset(virStoragePoolDefineXML(m_conn, xml.toUtf8().constData(), 0));
        if (!m_pool)
            return LibvirtConnection::lastError(QStringLiteral("cannot define the libvirt storage pool %1").arg(m_name));
        if (virStoragePoolBuild(m_pool.get(), 0) < 0)
            return LibvirtConnection::lastError(QStringLiteral("cannot build the libvirt storage pool %1").arg(m_name));
        virStoragePoolSetAutostart(m_pool.get(), 1);
    }
    if (virStoragePoolIsActive(m_pool.get()) != 1 && virStoragePoolCreate(m_pool.get(), 0) < 0)
        return LibvirtConnection::lastError(QStringLiteral("cannot start the libvirt storage pool %1").arg(m_name));
    static const QRegularExpression pathRe(QStringLiteral("<target>\\s*<path>([^<]+)</path>"));
    if (const auto m = pathRe.match(takeVirString(virStoragePoolGetXMLDesc(m_pool.get(), 0))); m.hasMatch())
        m_path = m.captured(1);
    return ok();
}

Status StoragePool::refresh()
{
    if (virStoragePoolRefresh(m_pool.get(), 0) < 0)
        return LibvirtConnection::lastError(QStringLiteral("cannot refresh the libvirt storage pool %1").arg(m_name));
    return ok();
}

Result<QString> StoragePool::createOverlay(const QString &name, const QString &backingPath,
                                           const QString &backingFormat, quint64 capacityBytes)
{
    const QString xml = QStringLiteral(
        "<volume type='file'><name>%1</name><capacity unit='bytes'>%2</capacity>"
        "<target><format type='qcow2'/><permissions><mode>0600</mode></permissions></target>"
        "<backingStore><path>%3</path><format type='%4'/></backingStore></volume>")
                            .arg(escapeXml(name)).arg(capacityBytes).arg(escapeXml(backingPath), backingFormat);
    VirVolume vol(virStorageVolCreateXML(m_pool.get(), xml.toUtf8().constData(), 0));
    if (!vol)
        return LibvirtConnection::lastError(QStringLiteral("cannot create the disk overlay %1").arg(name));
    return takeVirString(virStorageVolGetPath(vol.get()));
}

Result<QString> StoragePool::volumePath(const QString &name) const
{
    VirVolume vol = lookupVolume(m_pool.get(), name);
    if (!vol)
        return LibvirtConnection::lastError(QStringLiteral("the volume %1 is missing from the pool %2").arg(name, m_name));
    return takeVirString(virStorageVolGetPath(vol.get()));
}

bool StoragePool::hasVolume(const QString &name) const
{
    return bool(lookupVolume(m_pool.get(), name));
}

quint64 StoragePool::volumeAllocation(const QString &name) const
{
    VirVolume vol = lookupVolume(m_pool.get(), name);
    if (!vol)
        return 0;
    virStorageVolInfo info{};
    virStorageVolGetInfo(vol.get(), &info);
    return info.allocation;
}

Status StoragePool::deleteVolume(const QString &name)
{
    VirVolume vol = lookupVolume(m_pool.get(), name);
    if (!vol)
        return ok();
    if (virStorageVolDelete(vol.get(), 0) < 0)
        return LibvirtConnection::lastError(QStringLiteral("cannot delete the volume %1").arg(name));
    return ok();
}

QStringList StoragePool::volumeNames() const
{
    QStringList names;
    for (const VirVolume &vol : listAllVolumes(m_pool.get()))
        names << QString::fromUtf8(virStorageVolGetName(vol.get()));
    return names;
}

} // namespace airlock
