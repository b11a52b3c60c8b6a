#include "models/pendingmodel.h"

#include <limits>
#include "models/decisioncolors.h"

#include <QDateTime>
#include <QFont>

namespace airlock::ui {

PendingModel::PendingModel(QObject *parent) : QAbstractTableModel(parent)
{
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &PendingModel::expire);
    m_tick.start();
}

int PendingModel::rowOfKey(const QString &key) const
{
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].key == key)
            return int(i);
    return -1;
}

int PendingModel::rowOfId(qint64 id) const
{
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].ids.contains(id))
            return int(i);
    return -1;
}

void PendingModel::apply(const proto::EgressEvent &o)
{
    const qint64 id = o.id;
    if (o.decision != Decision::Pending) {
        // Decided (by a person, a rule or the timeout): the whole target is answered.
        const int row = rowOfId(id);
        if (row >= 0)
            removeEntry(m_entries[size_t(row)].key);
        return;
    }
    Entry e;
    e.sandbox = o.sandbox;
    e.host = o.host;
    e.ip = o.ip;
    e.port = o.port;
    e.proto = o.proto;
    if (!o.method.isEmpty())
        e.request = o.method + QLatin1Char(' ') + o.path;
    if (o.guestProcess)
        e.process = o.guestProcess->describe();
    e.heldRequest = o.request;
    e.key = e.sandbox + QLatin1Char('\n') + (e.host.isEmpty() ? e.ip : e.host) + QLatin1Char('\n') + QString::number(e.port);
    if (e.heldRequest)
        e.key += QLatin1Char('\n') + o.method + QLatin1Char(' ') + o.path.section(QLatin1Char('?'), 0, 0);
    e.heldAtMs = o.time.toMSecsSinceEpoch();
    e.deadlineMs = deadlineOf(e.heldAtMs);

    const int row = rowOfKey(e.key);
    if (row >= 0) {
        Entry &existing = m_entries[size_t(row)];
        if (!existing.ids.contains(id)) {
            existing.ids.append(id);
            ++existing.attempts;
        }
        existing.latestId = std::max(existing.latestId, id);
        if (!e.request.isEmpty())
            existing.request = e.request;
        if (!e.process.isEmpty() && (existing.process.isEmpty() || id == existing.latestId))
            existing.process = e.process; // the report may come after the request was held
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        return;
    }
    if (e.deadlineMs <= QDateTime::currentMSecsSinceEpoch())
        return; // already timed out: the broker has denied it
    e.latestId = id;
    e.ids = {id};
    e.attempts = 1;
    const int at = int(m_entries.size());
    beginInsertRows({}, at, at);
    m_entries.push_back(e);
    endInsertRows();
    Q_EMIT newRequest(e);
    Q_EMIT countsChanged(countsBySandbox());
}

void PendingModel::removeEntry(const QString &key)
{
    const int row = rowOfKey(key);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_entries.erase(m_entries.begin() + row);
    endRemoveRows();
    Q_EMIT countsChanged(countsBySandbox());
}

void PendingModel::clear()
{
    beginResetModel();
    m_entries.clear();
    endResetModel();
    Q_EMIT countsChanged({});
}

void PendingModel::expire()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (int row = int(m_entries.size()) - 1; row >= 0; --row) {
        // A little grace: the broker's own "denied" event normally removes the row first.
        if (m_entries[size_t(row)].deadlineMs + 3000 < now)
            removeEntry(m_entries[size_t(row)].key);
    }
    if (!m_entries.empty())
        Q_EMIT dataChanged(index(0, Default), index(int(m_entries.size()) - 1, Default), {Qt::DisplayRole});
}

qint64 PendingModel::deadlineOf(qint64 heldAtMs) const
{
    return m_holdSeconds > 0 ? heldAtMs + qint64(m_holdSeconds) * 1000 : std::numeric_limits<qint64>::max() - 3000;
}

void PendingModel::setHoldTimeout(int seconds)
{
    if (seconds == m_holdSeconds)
        return;
    m_holdSeconds = seconds;
    for (Entry &e : m_entries)
        e.deadlineMs = deadlineOf(e.heldAtMs);
    if (!m_entries.empty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_entries.size()) - 1, ColumnCount - 1));
}

int PendingModel::secondsLeft(const Entry &e) const
{
    return int(std::max<qint64>(0, (e.deadlineMs - QDateTime::currentMSecsSinceEpoch() + 999) / 1000));
}

QHash<QString, int> PendingModel::countsBySandbox() const
{
    QHash<QString, int> counts;
    for (const Entry &e : m_entries)
        ++counts[e.sandbox];
    return counts;
}

int PendingModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_entries.size()); }
int PendingModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PendingModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_entries.size()))
        return {};
    const Entry &e = m_entries[size_t(index.row())];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Sandbox: return e.sandbox;
        case Target: return QStringLiteral("%1:%2").arg(e.host.isEmpty() ? e.ip : e.host).arg(e.port);
        case Proto: return e.proto;
        case Request: return e.request;
        case Attempts: return e.attempts;
        case Default: return holdsUntilAnswered() ? tr("waits for you") : tr("deny in %n s", nullptr, secondsLeft(e));
        }
    }
    if (role == Qt::ToolTipRole)
        return QString((holdsUntilAnswered() ? tr("%1 wants to reach %2 (%3) on port %4. It waits until you answer.")
                                             : tr("%1 wants to reach %2 (%3) on port %4. Without an answer it is denied in %n s.", nullptr, secondsLeft(e)))
            .arg(e.sandbox, e.host.isEmpty() ? e.ip : e.host, e.ip)
            .arg(e.port) + (e.process.isEmpty() ? QString() : QString(QLatin1Char('\n') + e.process)));
    if (role == Qt::ForegroundRole && index.column() == Default)
        return decisionColor(Decision::Pending);
    if (role == Qt::FontRole && index.column() == Target) {
        QFont f;
        f.setBold(true);
        return f;
    }
    return {};
}

QVariant PendingModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Sandbox: return tr("Sandbox");
    case Target: return tr("Host:port");
    case Proto: return tr("Protocol");
    case Request: return tr("Request");
    case Attempts: return tr("Attempts");
    case Default: return tr("On timeout");
    }
    return {};
}

} // namespace airlock::ui
