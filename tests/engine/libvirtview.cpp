#include "libvirtview.h"
#include "virhandle.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QUuid>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

QString airlockVolumePath(const QString &uri, const QString &volume)
{
    airlock::VirConnection conn(virConnectOpen(uri.toUtf8().constData()));
    airlock::VirPool pool(conn ? virStoragePoolLookupByName(conn.get(), "airlock") : nullptr);
    if (!pool)
        return {};
    virStoragePoolRefresh(pool.get(), 0);
    airlock::VirVolume vol = airlock::lookupVolume(pool.get(), volume);
    return vol ? airlock::takeVirString(virStorageVolGetPath(vol.get())) : QString();
}

LibvirtView libvirtObjectsMatching(const QString &uri, const QString &filter)
{
    LibvirtView view;
    airlock::VirConnection conn(virConnectOpen(uri.toUtf8().constData()));
    if (!conn) {
        virErrorPtr e = virGetLastError();
        view.error = QStringLiteral("cannot reach libvirt at %1 (%2); is libvirtd running?")
                         .arg(uri, e && e->message ? QString::fromUtf8(e->message) : QString());
        return view;
    }
    for (const airlock::VirDomain &d : airlock::listAllDomains(conn.get()))
        if (const QString n = QString::fromUtf8(virDomainGetName(d.get())); n.contains(filter))
            view.domains << n;
    for (const airlock::VirNetwork &net : airlock::listAllNetworks(conn.get()))
        if (const QString n = QString::fromUtf8(virNetworkGetName(net.get())); n.contains(filter))
            view.networks << n;
    if (airlock::VirPool pool{virStoragePoolLookupByName(conn.get(), "airlock")}) {
        virStoragePoolRefresh(pool.get(), 0);
        for (const airlock::VirVolume &vol : airlock::listAllVolumes(pool.get()))
            if (const QString n = QString::fromUtf8(virStorageVolGetName(vol.get())); n.contains(filter))
                view.volumes << n;
    }
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
