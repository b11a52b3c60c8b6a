#pragma once
// One sandbox's attempts grouped by destination: domain → host → port, each row with how
// many attempts, how many were denied, the bytes each way, the last decision and the rule
// that made it. Fed by EgressModel (every batch it applies); the grouping is redone only
// while a view shows it (setActive), and rows are only ever added or changed in place, so a
// tree keeps what was expanded and selected while the agent works.
#include "core/decision.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QPointer>
#include <memory>
#include <vector>

namespace airlock::ui {

class EgressModel;

class DestinationModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Destination, Attempts, DeniedCount, BytesUp, BytesDown, LastDecision, LastRule, ColumnCount };
    enum Role { DecisionRole = Qt::UserRole + 1, DecidableIdRole };
    enum class Level { Domain, Host, Port };

    explicit DestinationModel(EgressModel *source, QObject *parent = nullptr);

    void setSandbox(const QString &sandbox);
    // Only an active model follows the source; activating it catches up at once.
    void setActive(bool active);

    // The domain a host is grouped under: its registrable domain (Public Suffix List), the
    // host itself when it has none, "IP addresses" for a raw IP.
    static QString domainOf(const QString &host);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Node {
        Level level = Level::Domain;
        QString name;
        Node *parent = nullptr;
        std::vector<std::unique_ptr<Node>> children;
        QHash<QString, Node *> childByName;
        qint64 attempts = 0, denied = 0, bytesUp = 0, bytesDown = 0;
        qint64 lastTimeMs = -1;
        Decision lastDecision = Decision::Allowed;
        QString lastRule;
        qint64 decidableId = 0; // the newest pending or denied attempt: what Allow / Deny answer
        qint64 decidableTimeMs = -1;
        int row() const;
    };
    void regroup();
    void clearNodes();
    Node *child(Node *parent, Level level, const QString &name);
    static void reset(Node &node);
    QModelIndex indexOf(Node *node, int column) const;
    void changedBelow(Node *node);
    Node *nodeOf(const QModelIndex &index) const;

    QString cachedDomainOf(const QString &host); // domainOf, looked up once per host
    QPointer<EgressModel> m_source;
    QHash<QString, QString> m_domains;
    QString m_sandbox;
    bool m_active = false;
    bool m_dirty = true;
    Node m_root;
};

} // namespace airlock::ui
