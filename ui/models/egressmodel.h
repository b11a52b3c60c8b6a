#pragma once
#include "core/decision.h"
#include "protocol/egress.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QMap>
#include <QSortFilterProxyModel>
#include <QTimer>
#include <array>
#include <type_traits>
#include <vector>

namespace airlock::ui {

// One egress attempt as a row (from a proto::EgressEvent). Repeating strings are interned
// so 100,000 rows share their host and sandbox names.
struct EgressRecord {
    qint64 id = 0;
    qint64 timeMs = 0;
    QString sandbox, proto, host, ip, sni, method, path, rule, reason;
    QString process; // the guest's report (GuestProcess::describe), "" if none
    int port = 0;
    bool heldRequest = false; // a single request held for a decision (proto::EgressEvent::request)
    Decision decision = Decision::Denied;
    qint64 bytesUp = 0, bytesDown = 0;
};

static_assert(std::is_nothrow_move_constructible_v<EgressRecord>, "rows are moved, not copied, when the vector grows");

// Every attempt the GUI has seen, in arrival order. Events are queued and applied in
// batches (one insert or change notification per batch), so a burst of attempts never
// floods the views with per-row signals.
class EgressModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Time, Sandbox, Proto, Host, Port, DecisionColumn, Rule, Bytes, Request, Process, ColumnCount };
    enum Role { RecordIdRole = Qt::UserRole + 1, DecisionRole };
    using Buckets = QMap<qint64, std::array<int, 3>>; // minute (epoch s / 60) -> allowed, denied, pending

    explicit EgressModel(QObject *parent = nullptr);

    // Queue attempts from egress.list or `egress` events; applied on the next flush.
    void enqueue(const proto::EgressEvent &attempt);
    void enqueue(const QList<proto::EgressEvent> &attempts);
    // Applies the queue now (the timer does this 30 ms after the first queued event).
    void flush();
    void clear();

    const EgressRecord &record(int row) const { return m_rows[size_t(row)]; }
    int rowOfId(qint64 id) const { return m_rowOfId.value(id, -1); }
    qint64 oldestId(const QString &sandbox) const;
    // Attempts per minute and decision for one sandbox (empty: all).
    Buckets buckets(const QString &sandbox) const;

    // What the Decision column says (translated).
    static QString decisionText(Decision d);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

Q_SIGNALS:
    void batchApplied();

private:
    EgressRecord toRecord(const proto::EgressEvent &e);
    QString intern(const QString &s);
    void count(const EgressRecord &r, int delta);

    std::vector<EgressRecord> m_rows;
    QHash<qint64, int> m_rowOfId;
    QHash<QString, QString> m_strings;
    std::vector<proto::EgressEvent> m_queue;
    QHash<QString, Buckets> m_buckets;
    QTimer m_flushTimer;
};

// Filter and search over EgressModel without asking data() for every cell.
class EgressFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Show { All, Pending, Denied, Allowed };
    explicit EgressFilterModel(QObject *parent = nullptr);

    void setSandbox(const QString &sandbox);
    void setSearchText(const QString &text);
    void setShow(Show show);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QString m_sandbox;
    QString m_text;
    Show m_show = Show::All;
};

} // namespace airlock::ui
