#include "models/destinationmodel.h"
#include "core/registrabledomain.h"
#include "models/decisioncolors.h"
#include "models/egressmodel.h"

#include <QHostAddress>
#include <QLocale>

namespace airlock::ui {

int DestinationModel::Node::row() const
{
    if (!parent)
        return 0;
    for (size_t i = 0; i < parent->children.size(); ++i)
        if (parent->children[i].get() == this)
            return int(i);
    return 0;
}

DestinationModel::DestinationModel(EgressModel *source, QObject *parent) : QAbstractItemModel(parent), m_source(source)
{
    connect(source, &EgressModel::batchApplied, this, [this] {
        m_dirty = true;
        if (m_active)
            regroup();
    });
    connect(source, &QAbstractItemModel::modelReset, this, [this] {
        clearNodes();
        m_dirty = true;
    });
}

void DestinationModel::setSandbox(const QString &sandbox)
{
    if (sandbox == m_sandbox)
        return;
    m_sandbox = sandbox;
    clearNodes();
    m_dirty = true;
    if (m_active)
        regroup();
}

void DestinationModel::setActive(bool active)
{
    m_active = active;
    if (m_active && m_dirty)
        regroup();
}

QString DestinationModel::domainOf(const QString &host)
{
    if (host.isEmpty() || !QHostAddress(host).isNull())
        return tr("IP addresses");
    const QStringList patterns = domainRulePatterns(host);
    if (patterns.isEmpty())
        return host;
    QString domain = patterns.last();
    if (domain.startsWith(QLatin1String("*.")))
        domain.remove(0, 2);
    return domain;
}

QString DestinationModel::cachedDomainOf(const QString &host)
{
    auto found = m_domains.constFind(host);
    if (found == m_domains.constEnd())
        found = m_domains.insert(host, domainOf(host));
    return *found;
}

void DestinationModel::clearNodes()
{
    beginResetModel();
    m_root.children.clear();
    m_root.childByName.clear();
    endResetModel();
}

DestinationModel::Node *DestinationModel::child(Node *parent, Level level, const QString &name)
{
    if (Node *found = parent->childByName.value(name))
        return found;
    const int row = int(parent->children.size());
    beginInsertRows(parent == &m_root ? QModelIndex() : indexOf(parent, 0), row, row);
    auto node = std::make_unique<Node>();
    node->level = level;
    node->name = name;
    node->parent = parent;
    Node *raw = node.get();
    parent->children.push_back(std::move(node));
    parent->childByName.insert(name, raw);
    endInsertRows();
    return raw;
}

void DestinationModel::reset(Node &node)
{
    node.attempts = node.denied = node.bytesUp = node.bytesDown = 0;
    node.lastTimeMs = node.decidableTimeMs = -1;
    node.decidableId = 0;
    node.lastRule.clear();
    for (auto &c : node.children)
        reset(*c);
}

// Counted again from every record of the sandbox: a record changes in place (decided,
// closed, its bytes), so sums kept from before would count it twice.
void DestinationModel::regroup()
{
    m_dirty = false;
    if (!m_source || m_sandbox.isEmpty())
        return;
    reset(m_root);
    for (int i = 0; i < m_source->rowCount(); ++i) {
        const EgressRecord &r = m_source->record(i);
        if (r.sandbox != m_sandbox || r.proto == QLatin1String("dns"))
            continue; // a lookup is not a destination reached
        const QString host = r.host.isEmpty() ? r.ip : r.host;
        Node *domain = child(&m_root, Level::Domain, cachedDomainOf(r.host));
        Node *hostNode = child(domain, Level::Host, host);
        Node *port = child(hostNode, Level::Port, QString::number(r.port));
        for (Node *n : {domain, hostNode, port}) {
            ++n->attempts;
            n->denied += r.decision == Decision::Denied || r.decision == Decision::Dropped;
            n->bytesUp += r.bytesUp;
            n->bytesDown += r.bytesDown;
            if (r.timeMs >= n->lastTimeMs) {
                n->lastTimeMs = r.timeMs;
                n->lastDecision = r.decision;
                n->lastRule = r.rule.isEmpty() ? r.reason : r.rule;
            }
            if ((r.decision == Decision::Pending || r.decision == Decision::Denied) && r.timeMs >= n->decidableTimeMs) {
                n->decidableTimeMs = r.timeMs;
                n->decidableId = r.id;
            }
        }
    }
    changedBelow(&m_root);
}

void DestinationModel::changedBelow(Node *node)
{
    if (node->children.empty())
        return;
    const QModelIndex parent = node == &m_root ? QModelIndex() : indexOf(node, 0);
    Q_EMIT dataChanged(index(0, 0, parent), index(int(node->children.size()) - 1, ColumnCount - 1, parent));
    for (auto &c : node->children)
        changedBelow(c.get());
}

QModelIndex DestinationModel::indexOf(Node *node, int column) const
{
    return createIndex(node->row(), column, node);
}

DestinationModel::Node *DestinationModel::nodeOf(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<Node *>(index.internalPointer()) : const_cast<Node *>(&m_root);
}

QModelIndex DestinationModel::index(int row, int column, const QModelIndex &parent) const
{
    const Node *p = nodeOf(parent);
    if (row < 0 || row >= int(p->children.size()) || column < 0 || column >= ColumnCount)
        return {};
    return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex DestinationModel::parent(const QModelIndex &child) const
{
    const Node *n = nodeOf(child);
    if (!child.isValid() || !n->parent || n->parent == &m_root)
        return {};
    return indexOf(n->parent, 0);
}

int DestinationModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(nodeOf(parent)->children.size());
}

int DestinationModel::columnCount(const QModelIndex &) const { return ColumnCount; }

QVariant DestinationModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const Node *n = nodeOf(index);
    if (role == DecisionRole)
        return int(n->lastDecision);
    if (role == DecidableIdRole)
        return n->decidableId;
    if (role == Qt::ForegroundRole && (index.column() == LastDecision || (index.column() == DeniedCount && n->denied > 0)))
        return decisionColor(index.column() == DeniedCount ? Decision::Denied : n->lastDecision);
    if (role == Qt::ToolTipRole && index.column() == LastRule)
        return n->lastRule;
    if (role != Qt::DisplayRole)
        return {};
    const QLocale locale;
    switch (Column(index.column())) {
    case Destination:
        return n->level == Level::Port ? tr("port %1").arg(n->name) : n->name;
    case Attempts:
        return n->attempts;
    case DeniedCount:
        return n->denied ? QVariant(n->denied) : QVariant(QString());
    case BytesUp:
        return locale.formattedDataSize(n->bytesUp);
    case BytesDown:
        return locale.formattedDataSize(n->bytesDown);
    case LastDecision:
        return EgressModel::decisionText(n->lastDecision);
    case LastRule:
        return n->lastRule;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant DestinationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Destination: return tr("Destination");
    case Attempts: return tr("Attempts");
    case DeniedCount: return tr("Denied");
    case BytesUp: return tr("Sent");
    case BytesDown: return tr("Received");
    case LastDecision: return tr("Last decision");
    case LastRule: return tr("Rule / reason");
    case ColumnCount: break;
    }
    return {};
}

} // namespace airlock::ui
