#pragma once
#include "protocol/sandbox.h"

#include <QAbstractTableModel>
#include <QElapsedTimer>
#include <QHash>
#include <QPointer>
#include <QTimer>
#include <vector>

namespace airlock { class ApiClient; }

namespace airlock::ui {

// The sandbox list: fed by `sandbox.list` and kept live by "sandbox" events.
class SandboxModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, State, Image, Ip, Uptime, Resources, Pending, ColumnCount };
    enum Availability { Unknown, Available, NotAvailable };

    explicit SandboxModel(QObject *parent = nullptr);

    void setClient(ApiClient *client);
    void reload();
    void clear();
    Availability availability() const { return m_availability; }
    QString lastError() const { return m_lastError; }

    // A `sandbox` event: a known sandbox's row is updated in place; a new or removed one
    // reloads the list, which is the authority.
    void applyEvent(const proto::SandboxRow &row);
    // The whole list, as sandbox.list answered it (reload() calls this).
    void setRows(const QList<proto::SandboxRow> &list);
    void setPendingCounts(const QHash<QString, int> &counts);

    int rowOf(const QString &name) const;
    QString nameAt(int row) const;
    // The row of that sandbox; nullopt when the list has none.
    std::optional<proto::SandboxRow> sandbox(const QString &name) const;
    bool isRunning(const QString &name) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

Q_SIGNALS:
    void availabilityChanged();
    void loaded();

private:
    struct Row {
        proto::SandboxRow row;
        qint64 uptimeAtReceipt = -1;
        QElapsedTimer received;
    };
    qint64 uptimeOf(const Row &r) const;

    QPointer<ApiClient> m_client;
    std::vector<Row> m_rows;
    QHash<QString, int> m_pending;
    Availability m_availability = Unknown;
    QString m_lastError;
    QTimer m_tick;
    bool m_reloadQueued = false;
};

} // namespace airlock::ui
