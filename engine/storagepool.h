#pragma once
#include "core/result.h"
#include "virhandle.h"

#include <QString>
#include <libvirt/libvirt.h>

namespace airlock {

// The libvirt storage pool `airlock` (a dir pool) that holds image volumes and sandbox
// overlays. Everything goes through libvirt's storage API. AIRLOCK_POOL_NAME names another
// pool, so that an airlockd whose AIRLOCK_POOL_DIR is elsewhere (a test's own small disk)
// does not find and share the host's `airlock` pool.
class StoragePool {
public:
    explicit StoragePool(virConnectPtr conn);
    StoragePool(const StoragePool &) = delete;
    StoragePool &operator=(const StoragePool &) = delete;

    // Finds the pool, or defines, builds and starts it at `dir`; makes sure it is active.
    Status ensure(const QString &dir);
    QString path() const { return m_path; }
    QString name() const { return m_name; }
    Status refresh();

    // A qcow2 overlay `name` of `capacityBytes` whose backing store is `backingPath`.
    Result<QString> createOverlay(const QString &name, const QString &backingPath, const QString &backingFormat,
                                  quint64 capacityBytes);
    Result<QString> volumePath(const QString &name) const; // error when missing
    bool hasVolume(const QString &name) const;
    quint64 volumeAllocation(const QString &name) const;
    // Deleting a volume that is already gone is fine.
    Status deleteVolume(const QString &name);
    QStringList volumeNames() const;

private:
    virConnectPtr m_conn;
    QString m_name;
    VirPool m_pool;
    QString m_path;
};

} // namespace airlock
