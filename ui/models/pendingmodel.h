#pragma once
#include "protocol/egress.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QTimer>
#include <vector>

namespace airlock::ui {

// Connection requests waiting for a decision, across all sandboxes. Repeated attempts to
// the same target (sandbox, host, port; and method and path for a held request) join one row, so a retrying agent never floods
// the user; each row counts down to the default that applies when the broker times out.
class PendingModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Sandbox, Target, Proto, Request, Attempts, Default, ColumnCount };
    struct Entry {
        QString key;
        QString sandbox, host, ip, proto, request;
        QString process; // the guest's report on who asks (GuestProcess::describe), "" if none
        bool heldRequest = false; // one request (`request`) on a connection the broker reads, not a connection
        int port = 0;
        qint64 latestId = 0;
        QList<qint64> ids;
        int attempts = 0;
        qint64 heldAtMs = 0;   // the attempt's time
        qint64 deadlineMs = 0; // max: held until someone answers
    };

    explicit PendingModel(QObject *parent = nullptr);

    // How long the broker holds a flow before denying it (120 s by default; 0: until
    // someone answers). The rows shown now count down to the new deadline.
    void setHoldTimeout(int seconds);
    int holdTimeout() const { return m_holdSeconds; }
    bool holdsUntilAnswered() const { return m_holdSeconds == 0; }

    // An egress.list row or an `egress` event: a pending one joins or opens its target's
    // row, any other decision answers the row it belongs to. The countdown runs from the
    // attempt's time to the broker's hold timeout (setHoldTimeout: status.egress).
    void apply(const proto::EgressEvent &attempt);
    void clear();
    void removeEntry(const QString &key);

    const Entry &entry(int row) const { return m_entries[size_t(row)]; }
    int secondsLeft(const Entry &e) const;
    QHash<QString, int> countsBySandbox() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

Q_SIGNALS:
    void newRequest(const airlock::ui::PendingModel::Entry &entry);
    void countsChanged(const QHash<QString, int> &bySandbox);

private:
    qint64 deadlineOf(qint64 heldAtMs) const;
    int rowOfKey(const QString &key) const;
    int rowOfId(qint64 id) const;
    void expire();

    std::vector<Entry> m_entries;
    int m_holdSeconds = 120;
    QTimer m_tick;
};

} // namespace airlock::ui
