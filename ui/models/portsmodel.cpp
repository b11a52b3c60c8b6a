#include "models/portsmodel.h"
#include "common/replies.h"

#include <QColor>
#include <QPalette>

namespace airlock::ui {

PortsModel::PortsModel(QObject *parent) : QAbstractTableModel(parent) {}

void PortsModel::setPorts(const QList<proto::ExposedPortInfo> &ports)
{
    const auto sameRows = [&] {
        if (ports.size() != m_ports.size())
            return false;
        for (qsizetype i = 0; i < ports.size(); ++i)
            if (ports.at(i).sandbox != m_ports.at(i).sandbox || ports.at(i).guestPort != m_ports.at(i).guestPort)
                return false;
        return true;
    };
    if (sameRows()) { // a refresh of the same ports keeps the selection
        m_ports = ports;
        if (!m_ports.isEmpty())
            Q_EMIT dataChanged(index(0, 0), index(int(m_ports.size()) - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_ports = ports;
    endResetModel();
}

const proto::ExposedPortInfo *PortsModel::portAt(int row) const
{
    return row >= 0 && row < m_ports.size() ? &m_ports.at(row) : nullptr;
}

QString PortsModel::urlOf(const proto::ExposedPortInfo &port)
{
    return QStringLiteral("http://%1:%2/").arg(port.address).arg(port.hostPort);
}

int PortsModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_ports.size()); }

int PortsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PortsModel::data(const QModelIndex &index, int role) const
{
    const proto::ExposedPortInfo *p = portAt(index.row());
    if (!p)
        return {};
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case GuestPort:
            return p->guestPort;
        case ReachedAt:
            return QStringLiteral("%1:%2").arg(p->address).arg(p->hostPort);
        case State:
            if (p->listening)
                return tr("Listening");
            return p->error.isEmpty() ? tr("Sandbox stopped") : tr("Not listening: %1").arg(p->error);
        case Connections:
            return p->connections;
        case Traffic:
            return tr("%1 to the guest, %2 back").arg(formatBytes(p->bytesToGuest), formatBytes(p->bytesFromGuest));
        }
    }
    if (role == Qt::ToolTipRole && index.column() == ReachedAt)
        return tr("Only this machine reaches it; the guest gets no way out through it");
    if (role == Qt::ForegroundRole && index.column() == State && !p->listening && !p->error.isEmpty())
        return QColor(Qt::darkRed);
    if (role == Qt::TextAlignmentRole && (index.column() == GuestPort || index.column() == Connections))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant PortsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case GuestPort:
        return tr("Guest port");
    case ReachedAt:
        return tr("Reached at");
    case State:
        return tr("State");
    case Connections:
        return tr("Connections");
    case Traffic:
        return tr("Traffic");
    }
    return {};
}

} // namespace airlock::ui
