#include "libvirtview.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QUuid>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

QString airlockVolumePath(const QString &uri, const QString &volume)
{
    QString path;
    virConnectPtr conn = virConnectOpen(uri.toUtf8().constData());
    if (!conn)
        return path;
    if (virStoragePoolPtr pool = virStoragePoolLookupByName(conn, "airlock")) {
        virStoragePoolRefresh(pool, 0);
        if (virStorageVolPtr vol = virStorageVolLookupByName(pool, volume.toUtf8().constData())) {
            char *p = virStorageVolGetPath(vol);
            path = QString::fromUtf8(p);
            free(p);
            virStorageVolFree(vol);
        }
        virStoragePoolFree(pool);
    }
    virConnectClose(conn);
    return path;
}

LibvirtView libvirtObjectsMatching(const QString &uri, const QString &filter)
{
    LibvirtView view;
    virConnectPtr conn = virConnectOpen(uri.toUtf8().constData());
    if (!conn) {
        virErrorPtr e = virGetLastError();
        view.error = QStringLiteral("cannot reach libvirt at %1 (%2); is libvirtd running?")
                         .arg(uri, e && e->message ? QString::fromUtf8(e->message) : QString());
        return view;
    }
    virDomainPtr *doms = nullptr;
    const int nd = virConnectListAllDomains(conn, &doms, 0);
    for (int i = 0; i < nd; ++i) {
        const QString n = QString::fromUtf8(virDomainGetName(doms[i]));
        if (n.contains(filter))
            view.domains << n;
        virDomainFree(doms[i]);
    }
    free(doms);
    virNetworkPtr *nets = nullptr;
    const int nn = virConnectListAllNetworks(conn, &nets, 0);
    for (int i = 0; i < nn; ++i) {
        const QString n = QString::fromUtf8(virNetworkGetName(nets[i]));
        if (n.contains(filter))
            view.networks << n;
        virNetworkFree(nets[i]);
    }
    free(nets);
    if (virStoragePoolPtr pool = virStoragePoolLookupByName(conn, "airlock")) {
        virStoragePoolRefresh(pool, 0);
        virStorageVolPtr *vols = nullptr;
        const int nv = virStoragePoolListAllVolumes(pool, &vols, 0);
        for (int i = 0; i < nv; ++i) {
            const QString n = QString::fromUtf8(virStorageVolGetName(vols[i]));
            if (n.contains(filter))
                view.volumes << n;
            virStorageVolFree(vols[i]);
        }
        free(vols);
        virStoragePoolFree(pool);
    }
    virConnectClose(conn);
    return view;
}

int storeRows(const QString &dbPath, const QString &table, const QString &column, const QString &value)
{
    const QString connection = QUuid::createUuid().toString();
    int rows = -1;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        db.setDatabaseName(dbPath);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"));
        if (db.open()) {
            QSqlQuery q(db);
            q.prepare(QStringLiteral("SELECT count(*) FROM %1 WHERE %2 = ?").arg(table, column));
            q.addBindValue(value);
            if (q.exec() && q.next())
                rows = q.value(0).toInt();
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(connection);
    return rows;
}
