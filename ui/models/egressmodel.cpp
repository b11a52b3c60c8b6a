#include "models/egressmodel.h"
#include "common/replies.h"
#include "models/decisioncolors.h"

#include <QDateTime>
#include <QLocale>

namespace airlock::ui {

EgressModel::EgressModel(QObject *parent) : QAbstractTableModel(parent)
{
    // Short enough that a new attempt is on screen well within 100 ms, long enough to batch a burst.
    m_flushTimer.setInterval(30);
    m_flushTimer.setSingleShot(true);
    connect(&m_flushTimer, &QTimer::timeout, this, &EgressModel::flush);
}

void EgressModel::enqueue(const proto::EgressEvent &attempt)
{
    m_queue.push_back(attempt);
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void EgressModel::enqueue(const QList<proto::EgressEvent> &attempts)
{
    m_queue.reserve(m_queue.size() + size_t(attempts.size()));
    m_queue.insert(m_queue.end(), attempts.begin(), attempts.end());
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

QString EgressModel::decisionText(Decision d)
{
    switch (d) {
    case Decision::Allowed: return tr("allowed");
    case Decision::Denied: return tr("denied");
    case Decision::Pending: return tr("pending");
    case Decision::Dropped: return tr("dropped");
    }
    return {};
}

QString EgressModel::intern(const QString &s)
{
    if (s.isEmpty())
        return {};
    auto it = m_strings.constFind(s);
    if (it != m_strings.constEnd())
        return *it;
    m_strings.insert(s, s);
    return s;
}

EgressRecord EgressModel::toRecord(const proto::EgressEvent &e)
{
    EgressRecord r;
    r.id = e.id;
    r.timeMs = e.time.toMSecsSinceEpoch();
    r.sandbox = intern(e.sandbox);
    r.proto = intern(e.proto);
    r.host = intern(e.host);
    r.ip = intern(e.ip);
    r.sni = intern(e.sni);
    r.method = intern(e.method);
    r.path = e.path;
    // The broker names the deciding rule by its id (0: no rule decided).
    r.rule = e.rule > 0 ? intern(tr("rule #%1").arg(e.rule)) : QString();
    r.reason = intern(e.reason);
    if (e.guestProcess)
        r.process = e.guestProcess->describe();
    // Identical denials folded into one row (or events the log dropped): say how many.
    if (e.count > 1)
        r.reason = tr("%1 (×%2)").arg(r.reason).arg(e.count);
    r.port = e.port;
    r.heldRequest = e.request;
    r.decision = e.decision;
    r.bytesUp = e.bytesUp;
    r.bytesDown = e.bytesDown;
    return r;
}

void EgressModel::count(const EgressRecord &r, int delta)
{
    if (r.decision == Decision::Dropped)
        return; // not an attempt: the chart counts attempts
    m_buckets[r.sandbox][r.timeMs / 60000][size_t(r.decision)] += delta;
}

EgressModel::Buckets EgressModel::buckets(const QString &sandbox) const
{
    if (!sandbox.isEmpty())
        return m_buckets.value(sandbox);
    Buckets all;
    for (const Buckets &b : m_buckets)
        for (auto it = b.begin(); it != b.end(); ++it)
            for (size_t i = 0; i < 3; ++i)
                all[it.key()][i] += it.value()[i];
    return all;
}

void EgressModel::flush()
{
    m_flushTimer.stop();
    if (m_queue.empty())
        return;
    const std::vector<proto::EgressEvent> queue = std::exchange(m_queue, {});
    std::vector<EgressRecord> fresh;
    int firstChanged = INT_MAX, lastChanged = -1;
    QHash<qint64, size_t> freshIndex;
    for (const proto::EgressEvent &e : queue) {
        EgressRecord r = toRecord(e);
        const int existing = m_rowOfId.value(r.id, -1);
        if (existing >= 0) {
            count(m_rows[size_t(existing)], -1);
            m_rows[size_t(existing)] = std::move(r);
            count(m_rows[size_t(existing)], +1);
            firstChanged = std::min(firstChanged, existing);
            lastChanged = std::max(lastChanged, existing);
        } else if (auto f = freshIndex.constFind(r.id); f != freshIndex.constEnd()) {
            fresh[*f] = std::move(r); // changed again within this batch
        } else {
            freshIndex.insert(r.id, fresh.size());
            fresh.push_back(std::move(r));
        }
    }
    if (lastChanged >= 0)
        Q_EMIT dataChanged(index(firstChanged, 0), index(lastChanged, ColumnCount - 1));
    if (!fresh.empty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(fresh.size()) - 1);
        // No exact reserve() here: it would reallocate on every batch; geometric growth amortises.
        for (EgressRecord &r : fresh) {
            m_rowOfId.insert(r.id, int(m_rows.size()));
            count(r, +1);
            m_rows.push_back(std::move(r));
        }
        endInsertRows();
    }
    Q_EMIT batchApplied();
}

void EgressModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_rowOfId.clear();
    m_strings.clear();
    m_queue.clear();
    m_buckets.clear();
    endResetModel();
    Q_EMIT batchApplied();
}

qint64 EgressModel::oldestId(const QString &sandbox) const
{
    qint64 oldest = 0;
    for (const EgressRecord &r : m_rows)
        if ((sandbox.isEmpty() || r.sandbox == sandbox) && (oldest == 0 || r.id < oldest))
            oldest = r.id;
    return oldest;
}

int EgressModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }
int EgressModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EgressModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const EgressRecord &r = m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Time: return QDateTime::fromMSecsSinceEpoch(r.timeMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        case Sandbox: return r.sandbox;
        case Proto: return r.proto;
        case Host: return r.host.isEmpty() ? r.ip : r.host;
        case Port: return r.port;
        case DecisionColumn: return decisionText(r.decision);
        case Rule: return r.rule.isEmpty() ? r.reason : r.rule;
        case Bytes:
            if (!r.bytesUp && !r.bytesDown)
                return {};
            return QStringLiteral("↑ %1  ↓ %2").arg(formatBytes(r.bytesUp), formatBytes(r.bytesDown));
        case Request:
            return r.method.isEmpty() ? QString() : r.method + QLatin1Char(' ') + r.path;
        case Process: return r.process;
        }
        break;
    case Qt::ToolTipRole: {
        QString tip = tr("%1 to %2 (%3) port %4").arg(r.proto, r.host.isEmpty() ? r.ip : r.host, r.ip).arg(r.port);
        if (!r.sni.isEmpty())
            tip += QLatin1Char('\n') + tr("TLS name: %1").arg(r.sni);
        if (!r.rule.isEmpty())
            tip += QLatin1Char('\n') + tr("Rule: %1").arg(r.rule);
        if (!r.reason.isEmpty())
            tip += QLatin1Char('\n') + r.reason;
        if (r.bytesUp || r.bytesDown)
            tip += QLatin1Char('\n') + tr("Bytes: ↑ %1  ↓ %2").arg(formatBytes(r.bytesUp), formatBytes(r.bytesDown));
        if (!r.method.isEmpty())
            tip += QLatin1Char('\n') + r.method + QLatin1Char(' ') + r.path;
        if (!r.process.isEmpty())
            tip += QLatin1Char('\n') + r.process;
        return tip;
    }
    case Qt::ForegroundRole:
        if (index.column() == DecisionColumn)
            return decisionColor(r.decision);
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Port)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case RecordIdRole: return r.id;
    case DecisionRole: return int(r.decision);
    }
    return {};
}

QVariant EgressModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Time: return tr("Time");
    case Sandbox: return tr("Sandbox");
    case Proto: return tr("Protocol");
    case Host: return tr("Host");
    case Port: return tr("Port");
    case DecisionColumn: return tr("Decision");
    case Rule: return tr("Rule / reason");
    case Bytes: return tr("Bytes");
    case Request: return tr("Request");
    case Process: return tr("Process (reported by the guest)");
    }
    return {};
}

EgressFilterModel::EgressFilterModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setDynamicSortFilter(true);
}

void EgressFilterModel::setSandbox(const QString &sandbox)
{
    if (m_sandbox == sandbox)
        return;
    m_sandbox = sandbox;
    invalidate(); // a full re-filter and re-sort: O(n log n), where invalidateFilter() re-inserts row by row
}

void EgressFilterModel::setSearchText(const QString &text)
{
    if (m_text == text)
        return;
    m_text = text;
    invalidate(); // a full re-filter and re-sort: O(n log n), where invalidateFilter() re-inserts row by row
}

void EgressFilterModel::setShow(Show show)
{
    if (m_show == show)
        return;
    m_show = show;
    invalidate(); // a full re-filter and re-sort: O(n log n), where invalidateFilter() re-inserts row by row
}

bool EgressFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &) const
{
    const auto *model = static_cast<const EgressModel *>(sourceModel());
    const EgressRecord &r = model->record(sourceRow);
    if (!m_sandbox.isEmpty() && r.sandbox != m_sandbox)
        return false;
    switch (m_show) {
    case Show::All: break;
    case Show::Pending: if (r.decision != Decision::Pending) return false; break;
    case Show::Denied: if (r.decision != Decision::Denied) return false; break;
    case Show::Allowed: if (r.decision != Decision::Allowed) return false; break;
    }
    if (m_text.isEmpty())
        return true;
    return r.host.contains(m_text, Qt::CaseInsensitive) || r.ip.contains(m_text) || r.sni.contains(m_text, Qt::CaseInsensitive)
        || r.path.contains(m_text, Qt::CaseInsensitive) || r.rule.contains(m_text, Qt::CaseInsensitive)
        || r.proto.contains(m_text, Qt::CaseInsensitive) || QString::number(r.port) == m_text;
}

bool EgressFilterModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const auto *model = static_cast<const EgressModel *>(sourceModel());
    const EgressRecord &a = model->record(left.row());
    const EgressRecord &b = model->record(right.row());
    switch (left.column()) {
    case EgressModel::Sandbox: return a.sandbox < b.sandbox;
    case EgressModel::Proto: return a.proto < b.proto;
    case EgressModel::Host: return a.host < b.host;
    case EgressModel::Port: return a.port < b.port;
    case EgressModel::DecisionColumn: return a.decision < b.decision;
    case EgressModel::Rule: return a.rule < b.rule;
    case EgressModel::Bytes: return a.bytesUp + a.bytesDown < b.bytesUp + b.bytesDown;
    default: return a.id < b.id;
    }
}

} // namespace airlock::ui
