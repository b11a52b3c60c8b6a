#include "models/sandboxmodel.h"
#include "common/replies.h"

#include <QApplication>
#include <QFont>
#include <QJsonArray>
#include <QPalette>

namespace airlock::ui {

namespace {
QString str(const QJsonObject &o, const char *key) { return o.value(QLatin1String(key)).toString(); }
}

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
    m_client->call(QStringLiteral("sandbox.list"), {}, this, [this](const ApiClient::Reply &r) {
        m_reloadQueued = false;
        const Availability before = m_availability;
        if (isMethodMissing(r)) {
            m_availability = NotAvailable;
            m_lastError = r.errorMessage;
            setRows({});
        } else if (!r.ok) {
            m_lastError = r.errorMessage;
        } else {
            m_availability = Available;
            m_lastError.clear();
            setRows(r.result.toArray());
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

void SandboxModel::setRows(const QJsonArray &list)
{
    beginResetModel();
    m_rows.clear();
    m_rows.reserve(size_t(list.size()));
    for (const QJsonValue &v : list) {
        Row row;
        row.json = v.toObject();
        row.uptimeAtReceipt = row.json.value(QLatin1String("uptime_s")).toInteger(-1);
        row.received.start();
        m_rows.push_back(std::move(row));
    }
    endResetModel();
}

void SandboxModel::applyEvent(const QJsonObject &data)
{
    const QString name = str(data, "name");
    const int row = rowOf(name);
    const QString state = str(data, "state");
    if (row < 0 || state == QLatin1String("removed") || state == QLatin1String("deleted")) {
        reload(); // a new or vanished sandbox: the list is the authority
        return;
    }
    Row &r = m_rows[size_t(row)];
    const QString oldState = str(r.json, "state");
    for (auto it = data.begin(); it != data.end(); ++it)
        r.json.insert(it.key(), it.value());
    if (data.contains(QLatin1String("uptime_s"))) {
        r.uptimeAtReceipt = data.value(QLatin1String("uptime_s")).toInteger(-1);
        r.received.start();
    } else if (state == QLatin1String("running") && oldState != state) {
        r.uptimeAtReceipt = 0;
        r.received.start();
    } else if (!state.isEmpty() && state != QLatin1String("running") && state != QLatin1String("paused")) {
        r.uptimeAtReceipt = -1;
    }
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
        if (str(m_rows[i].json, "name") == name)
            return int(i);
    return -1;
}

QString SandboxModel::nameAt(int row) const
{
    return row >= 0 && row < int(m_rows.size()) ? str(m_rows[size_t(row)].json, "name") : QString();
}

QJsonObject SandboxModel::sandbox(const QString &name) const
{
    const int row = rowOf(name);
    return row < 0 ? QJsonObject() : m_rows[size_t(row)].json;
}

bool SandboxModel::isRunning(const QString &name) const { return str(sandbox(name), "state") == QLatin1String("running"); }

qint64 SandboxModel::uptimeOf(const Row &r) const
{
    if (r.uptimeAtReceipt < 0)
        return -1;
    if (str(r.json, "state") != QLatin1String("running"))
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
    const QString name = str(r.json, "name");
    const int pending = std::max(m_pending.value(name), int(r.json.value(QLatin1String("pending")).toInt()));
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name: return name;
        case State: return str(r.json, "state");
        case Image: return str(r.json, "image");
        case Ip: return str(r.json, "ip");
        case Uptime: return formatDuration(uptimeOf(r));
        case Resources: {
            const int cpus = r.json.value(QLatin1String("cpus")).toInt();
            const int mem = r.json.value(QLatin1String("memory_mib")).toInt();
            if (!cpus && !mem)
                return {};
            return QString(tr("%n CPU(s)", nullptr, cpus) + QStringLiteral(" / ") + tr("%1 MiB").arg(mem));
        }
        case Pending: return pending > 0 ? QVariant(pending) : QVariant();
        }
    }
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
