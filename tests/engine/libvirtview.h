#pragma once
// What libvirt itself holds, asked through its API (never virsh): tests check that nothing
// of a sandbox is left behind.
#include <QString>
#include <QStringList>

struct LibvirtView {
    QStringList domains, networks, volumes; // names containing the filter
    QString error;                          // set when libvirt could not be asked
};

LibvirtView libvirtObjectsMatching(const QString &uri, const QString &filter);
// Where libvirt keeps `volume` of the airlock pool (refreshed first); empty if it has none.
QString airlockVolumePath(const QString &uri, const QString &volume);
// Rows of `table` whose `column` equals `value` in the store at `dbPath`.
int storeRows(const QString &dbPath, const QString &table, const QString &column, const QString &value);
