#include "storagepool.h"
#include "libvirtconnection.h"

#include <QDir>
#include <QRegularExpression>

namespace airlock {

namespace {
QString escapeXml(const QString &s) { return s.toHtmlEscaped(); }
} // namespace

StoragePool::~StoragePool()
{
    if (m_pool)
        virStoragePoolFree(m_pool);
}

Status StoragePool::ensure(const QString &dir)
{
    if (!m_pool)
        m_pool = virStoragePoolLookupByName(m_conn, kName);
    if (!m_pool) {
        if (!QDir().mkpath(dir))
            return Error{QStringLiteral("cannot create the storage directory %1").arg(dir),
                         QStringLiteral("check the permissions of its parent or pass another --data-dir")};
        const QString xml = QStringLiteral("<pool type='dir'><name>%1</name><target><path>%2</path></target></pool>")
                                .arg(QLatin1String(kName), escapeXml(dir));
        m_pool = virStoragePoolDefineXML(m_conn, xml.toUtf8().constData(), 0);
        if (!m_pool)
            return LibvirtConnection::lastError(QStringLiteral("cannot define the libvirt storage pool airlock"));
        if (virStoragePoolBuild(m_pool, 0) < 0)
            return LibvirtConnection::lastError(QStringLiteral("cannot build the libvirt storage pool airlock"));
        virStoragePoolSetAutostart(m_pool, 1);
    }
    if (virStoragePoolIsActive(m_pool) != 1 && virStoragePoolCreate(m_pool, 0) < 0)
        return LibvirtConnection::lastError(QStringLiteral("cannot start the libvirt storage pool airlock"));
    char *xml = virStoragePoolGetXMLDesc(m_pool, 0);
    if (xml) {
        static const QRegularExpression pathRe(QStringLiteral("<target>\\s*<path>([^<]+)</path>"));
        const auto m = pathRe.match(QString::fromUtf8(xml));
        if (m.hasMatch())
            m_path = m.captured(1);
        free(xml);
    }
    return ok();
}

Status StoragePool::refresh()
{
    if (virStoragePoolRefresh(m_pool, 0) < 0)
        return LibvirtConnection::lastError(QStringLiteral("cannot refresh the libvirt storage pool airlock"));
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
    virStorageVolPtr vol = virStorageVolCreateXML(m_pool, xml.toUtf8().constData(), 0);
    if (!vol)
        return LibvirtConnection::lastError(QStringLiteral("cannot create the disk overlay %1").arg(name));
    char *path = virStorageVolGetPath(vol);
    const QString result = QString::fromUtf8(path);
    free(path);
    virStorageVolFree(vol);
    return result;
}

Result<QString> StoragePool::volumePath(const QString &name) const
{
    virStorageVolPtr vol = virStorageVolLookupByName(m_pool, name.toUtf8().constData());
    if (!vol)
        return LibvirtConnection::lastError(QStringLiteral("the volume %1 is missing from the pool airlock").arg(name));
    char *path = virStorageVolGetPath(vol);
    const QString result = QString::fromUtf8(path);
    free(path);
    virStorageVolFree(vol);
    return result;
}

bool StoragePool::hasVolume(const QString &name) const
{
    virStorageVolPtr vol = virStorageVolLookupByName(m_pool, name.toUtf8().constData());
    if (vol)
        virStorageVolFree(vol);
    return vol != nullptr;
}

quint64 StoragePool::volumeAllocation(const QString &name) const
{
    virStorageVolPtr vol = virStorageVolLookupByName(m_pool, name.toUtf8().constData());
    if (!vol)
        return 0;
    virStorageVolInfo info{};
    virStorageVolGetInfo(vol, &info);
    virStorageVolFree(vol);
    return info.allocation;
}

Status StoragePool::deleteVolume(const QString &name)
{
    virStorageVolPtr vol = virStorageVolLookupByName(m_pool, name.toUtf8().constData());
    if (!vol)
        return ok();
    const int rc = virStorageVolDelete(vol, 0);
    virStorageVolFree(vol);
    if (rc < 0)
        return LibvirtConnection::lastError(QStringLiteral("cannot delete the volume %1").arg(name));
    return ok();
}

QStringList StoragePool::volumeNames() const
{
    QStringList names;
    virStorageVolPtr *vols = nullptr;
    const int n = virStoragePoolListAllVolumes(m_pool, &vols, 0);
    for (int i = 0; i < n; ++i) {
        names << QString::fromUtf8(virStorageVolGetName(vols[i]));
        virStorageVolFree(vols[i]);
    }
    free(vols);
    return names;
}

} // namespace airlock
