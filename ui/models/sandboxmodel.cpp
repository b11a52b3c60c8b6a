#include "models/sandboxmodel.h"
#include "common/replies.h"

#include "protocol/names.h"

#include <QApplication>
#include <QFont>
#include <QPalette>

namespace airlock::ui {

using proto::SandboxState;

SandboxModel::SandboxModel(QObject *parent) : QAbstractTableModel(parent)
{
    // Uptime ticks locally between daemon updates; one dataChanged per second for the column.
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        if (!m_rows.empty())
            Q_EMIT dataChanged(index(0, Uptime), index(int(m_rows.size()) - 1, Uptime), {Qt::DisplayRole});
    });
    m_tick.start();
}

void SandboxModel::setClient(ApiClient *client) { m_client = client; }

void SandboxModel::reload()
{
    if (!m_client || m_reloadQueued)
        return;
    m_reloadQueued = true;
    m_client->call(proto::method::SandboxList, {}, this, [this](const ApiClient::Reply &r) {
        m_reloadQueued = false;
        const Availability before = m_availability;
        const Result<QList<proto::SandboxRow>> rows = replyListAs<proto::SandboxRow>(r);
        if (isMethodMissing(r)) {
            m_availability = NotAvailable;
            m_lastError = r.errorMessage;
            setRows({});
        } else if (!rows) {
            m_lastError = rows.error().message();
        } else {
            m_availability = Available;
            m_lastError.clear();
            setRows(rows.value());
        }
        if (before != m_availability)
            Q_EMIT availabilityChanged();
        Q_EMIT loaded();
    });
}

void SandboxModel::clear()
{
    setRows({});
    m_availability = Unknown;
    Q_EMIT availabilityChanged();
}

void SandboxModel::setRows(const QList<proto::SandboxRow> &list)
{
    beginResetModel();
    m_rows.clear();
    m_rows.reserve(size_t(list.size()));
    for (const proto::SandboxRow &sandbox : list) {
        Row row;
        row.row = sandbox;
        row.uptimeAtReceipt = sandbox.uptimeS;
        row.received.start();
        m_rows.push_back(std::move(row));
    }
    endResetModel();
}

void SandboxModel::applyEvent(const proto::SandboxRow &event)
{
    const int row = rowOf(event.name);
    if (row < 0 || event.state == SandboxState::Removed) {
        reload(); // a new or vanished sandbox: the list is the authority
        return;
    }
    Row &r = m_rows[size_t(row)];
    // Events carry no disk usage (only sandbox.list does): the last reading stays.
    const std::optional<proto::DiskUsage> disk = event.disk ? event.disk : r.row.disk;
    r.row = event;
    r.row.disk = disk;
    r.uptimeAtReceipt = event.uptimeS;
    r.received.start();
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void SandboxModel::setPendingCounts(const QHash<QString, int> &counts)
{
    m_pending = counts;
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, Pending), index(int(m_rows.size()) - 1, Pending));
}

int SandboxModel::rowOf(const QString &name) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].row.name == name)
            return int(i);
    return -1;
}

QString SandboxModel::nameAt(int row) const
{
    return row >= 0 && row < int(m_rows.size()) ? m_rows[size_t(row)].row.name : QString();
}

std::optional<proto::SandboxRow> SandboxModel::sandbox(const QString &name) const
{
    const int row = rowOf(name);
    return row < 0 ? std::nullopt : std::optional(m_rows[size_t(row)].row);
}

bool SandboxModel::isRunning(const QString &name) const
{
    const std::optional<proto::SandboxRow> row = sandbox(name);
    return row && row->state == SandboxState::Running;
}

qint64 SandboxModel::uptimeOf(const Row &r) const
{
    if (r.uptimeAtReceipt < 0)
        return -1;
    if (r.row.state != SandboxState::Running)
        return r.uptimeAtReceipt;
    return r.uptimeAtReceipt + r.received.elapsed() / 1000;
}

int SandboxModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }
int SandboxModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SandboxModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row &r = m_rows[size_t(index.row())];
    const QString name = r.row.name;
    const int pending = std::max(m_pending.value(name), int(r.row.pending));
    // QEMU paused it for its host disk: the state says so, the tooltip says what to do.
    if (role == Qt::DisplayRole && index.column() == State && r.row.pausedReason)
        return r.row.pausedReason->contains(QLatin1String(" is full")) ? tr("paused (host disk full)")
                                                                        : tr("paused (host disk error)");
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name: return name;
        case State: return proto::toString(r.row.state);
        case Image: return r.row.image;
        case Ip: return r.row.ip;
        case Uptime: return formatDuration(uptimeOf(r));
        case Resources: {
            const int cpus = r.row.cpus;
            const int mem = r.row.memoryMib;
            if (!cpus && !mem)
                return {};
            return QString(tr("%n CPU(s)", nullptr, cpus) + QStringLiteral(" / ") + tr("%1 MiB").arg(mem));
        }
        case Pending: return pending > 0 ? QVariant(pending) : QVariant();
        }
    }
    if (role == Qt::ToolTipRole && index.column() == State && r.row.pausedReason)
        return *r.row.pausedReason;
    if (role == Qt::ToolTipRole && index.column() == Pending && pending > 0)
        return tr("%n connection request(s) wait for your decision", nullptr, pending);
    if (role == Qt::FontRole && index.column() == Pending && pending > 0) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ForegroundRole && index.column() == Pending && pending > 0)
        return QApplication::palette().color(QPalette::Highlight);
    if (role == Qt::TextAlignmentRole && index.column() == Pending)
        return int(Qt::AlignCenter);
    if (role == Qt::UserRole)
        return name;
    return {};
}

QVariant SandboxModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Name");
    case State: return tr("State");
    case Image: return tr("Image");
    case Ip: return tr("IP");
    case Uptime: return tr("Uptime");
    case Resources: return tr("CPU / Memory");
    case Pending: return tr("Pending");
    }
    return {};
}

} // namespace airlock::ui
