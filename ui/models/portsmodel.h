#pragma once
#include "protocol/ports.h"

#include <QAbstractTableModel>

namespace airlock::ui {

// One sandbox's exposed guest ports, as port.list answers and "port" events update them.
class PortsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { GuestPort, ReachedAt, State, Connections, Traffic, ColumnCount };

    explicit PortsModel(QObject *parent = nullptr);

    void setPorts(const QList<proto::ExposedPortInfo> &ports);
    const proto::ExposedPortInfo *portAt(int row) const;
    // "http://127.0.0.1:PORT/": what "Open in browser" opens.
    static QString urlOf(const proto::ExposedPortInfo &port);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QList<proto::ExposedPortInfo> m_ports;
};

} // namespace airlock::ui
