#include "views/snapshotsview.h"
#include "widgets/checkpointschedulefields.h"
#include "widgets/availabilitystack.h"
#include "api/apiclient.h"
#include "common/replies.h"
#include "protocol/snapshots.h"
#include "models/sandboxmodel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace airlock::ui {

SnapshotsView::SnapshotsView(ApiClient *client, SandboxModel *sandboxes, QWidget *parent)
    : QWidget(parent), m_client(client), m_sandboxes(sandboxes)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_stack = new AvailabilityStack(tr("This airlockd has no snapshots yet (snapshot.list is not available)."), this);
    outer->addWidget(m_stack);
    QWidget *page = m_stack->page();
    auto *layout = new QVBoxLayout(page);

    auto *buttons = new QHBoxLayout;
    m_create = new QPushButton(tr("&Take snapshot…"), page);
    m_restore = new QPushButton(tr("&Restore"), page);
    m_fork = new QPushButton(tr("&Fork…"), page);
    m_delete = new QPushButton(tr("De&lete"), page);
    for (QPushButton *b : {m_create, m_restore, m_fork, m_delete})
        buttons->addWidget(b);
    buttons->addStretch();
    m_progress = new QProgressBar(page);
    m_progress->hide();
    buttons->addWidget(m_progress);
    layout->addLayout(buttons);

    // The sandbox's checkpoint schedule (snapshot.schedule): a timeline to go back in.
    auto *schedule = new QHBoxLayout;
    m_schedule = new CheckpointScheduleFields(page);
    auto *everyLabel = new QLabel(tr("Automatic &checkpoints:"), page);
    everyLabel->setBuddy(m_schedule->everyBox());
    schedule->addWidget(everyLabel);
    schedule->addWidget(m_schedule, 1);
    layout->addLayout(schedule);

    m_tree = new QTreeWidget(page);
    m_tree->setHeaderLabels({tr("Snapshot"), tr("Kind"), tr("Taken"), tr("ID")});
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int column : {1, 2, 3})
        m_tree->header()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    m_tree->setAccessibleName(tr("Snapshot tree"));
    layout->addWidget(m_tree, 1);

    m_undoBar = new QWidget(page);
    auto *undoLayout = new QHBoxLayout(m_undoBar);
    undoLayout->setContentsMargins(0, 0, 0, 0);
    m_undoLabel = new QLabel(m_undoBar);
    auto *undo = new QPushButton(tr("&Undo"), m_undoBar);
    undoLayout->addWidget(m_undoLabel, 1);
    undoLayout->addWidget(undo);
    m_undoBar->hide();
    layout->addWidget(m_undoBar);
    m_message = new QLabel(page);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_message);

    m_undoTimer.setSingleShot(true);
    m_undoTimer.setInterval(8000);
    connect(&m_undoTimer, &QTimer::timeout, this, &SnapshotsView::commitRemoval);
    connect(undo, &QPushButton::clicked, this, &SnapshotsView::undoRemoval);
    connect(m_create, &QPushButton::clicked, this, &SnapshotsView::create);
    connect(m_restore, &QPushButton::clicked, this, &SnapshotsView::restore);
    connect(m_fork, &QPushButton::clicked, this, &SnapshotsView::fork);
    connect(m_delete, &QPushButton::clicked, this, &SnapshotsView::remove);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, &SnapshotsView::updateButtons);
    connect(m_schedule, &CheckpointScheduleFields::edited, this, &SnapshotsView::saveSchedule);
    updateButtons();
}

QComboBox *SnapshotsView::everyBox() const { return m_schedule->everyBox(); }

void SnapshotsView::setSandbox(const QString &sandbox)
{
    if (m_sandbox == sandbox)
        return;
    commitRemoval();
    m_sandbox = sandbox;
    m_message->clear();
    reload();
    callSchedule({});
}

// Reads the schedule ({} params beyond the sandbox) or sets it, and shows what is in force.
void SnapshotsView::callSchedule(const QJsonObject &change)
{
    if (change.isEmpty()) // another sandbox's schedule: off until it is read (a change keeps the focus where it is)
        m_schedule->setEnabled(false);
    if (!m_client || m_sandbox.isEmpty())
        return;
    QJsonObject params = change;
    params.insert(QStringLiteral("sandbox"), m_sandbox);
    m_client->call(QStringLiteral("snapshot.schedule"), params, this, [this, sandbox = m_sandbox](const ApiClient::Reply &r) {
        if (sandbox != m_sandbox)
            return;
        if (!r.ok && r.errorCode == -32601)
            return; // an older airlockd: no schedules, the controls stay off
        m_schedule->setEnabled(true);
        if (!r.ok) {
            report(tr("Could not change the automatic checkpoints"), r.errorMessage);
            return;
        }
        const Result<proto::CheckpointSchedule> s = replyAs<proto::CheckpointSchedule>(r);
        if (!s)
            return report(tr("Could not read the automatic checkpoints"), s.error().message());
        m_schedule->showSchedule(int(s->everySeconds.value_or(0)), int(s->keep.value_or(0)));
    });
}

void SnapshotsView::saveSchedule()
{
    const int every = m_schedule->everySeconds();
    QJsonObject change{{QStringLiteral("every_s"), every}};
    if (every)
        change.insert(QStringLiteral("keep"), m_schedule->keep());
    callSchedule(change);
}

void SnapshotsView::reload()
{
    m_tree->clear();
    updateButtons();
    if (!m_client || m_sandbox.isEmpty())
        return;
    m_client->call(QStringLiteral("snapshot.list"), {{QStringLiteral("sandbox"), m_sandbox}}, this,
                   [this, sandbox = m_sandbox](const ApiClient::Reply &r) {
        if (sandbox != m_sandbox)
            return;
        if (m_stack->missing(r))
            return;
        const Result<QList<proto::SnapshotInfo>> snapshots = replyListAs<proto::SnapshotInfo>(r);
        if (!snapshots) {
            report(tr("Could not list snapshots"), snapshots.error().message());
            return;
        }
        m_tree->clear();
        QHash<QString, QTreeWidgetItem *> items;
        QList<QPair<QString, QTreeWidgetItem *>> withParent;
        for (const proto::SnapshotInfo &s : snapshots.value()) {
            const QString id = QString::number(s.id);
            if (id == m_removingId && sandbox == m_removingSandbox)
                continue; // hidden while its undo window is open
            auto *item = new QTreeWidgetItem;
            const bool automatic = s.automatic.value_or(false);
            QString label = !s.label.isEmpty() ? s.label : automatic ? tr("(automatic)") : tr("(no label)");
            if (s.current.value_or(false))
                label += QStringLiteral("  ") + tr("← current");
            item->setText(0, label);
            const bool memory = s.memory.value_or(false);
            item->setText(1, memory ? tr("checkpoint, %1").arg(QLocale().formattedDataSize(s.memoryBytes.value_or(0), 0))
                                    : tr("disk only"));
            item->setToolTip(1, memory ? tr("Disk, memory and devices: a restore resumes its processes where they were")
                                       : tr("Disk only: a restore boots from these files"));
            item->setText(2, s.created.isValid() ? QLocale().toString(s.created.toLocalTime(), QLocale::ShortFormat) : QString());
            item->setText(3, id);
            item->setData(0, Qt::UserRole, id);
            item->setData(1, Qt::UserRole, memory);
            if (automatic) { // the schedule's: retention may remove it
                QFont italic = item->font(0);
                italic.setItalic(true);
                item->setFont(0, italic);
            }
            items.insert(id, item);
            withParent.append({s.parent ? QString::number(*s.parent) : QString(), item});
        }
        for (const auto &[parent, item] : withParent) {
            if (QTreeWidgetItem *p = items.value(parent))
                p->addChild(item);
            else
                m_tree->addTopLevelItem(item);
        }
        m_tree->expandAll();
        updateButtons();
    });
}

// The id as the tree keeps it (text); the API takes it as a number (snapshot ids are integers).
QString SnapshotsView::currentId() const
{
    const QTreeWidgetItem *item = m_tree->currentItem();
    return item ? item->data(0, Qt::UserRole).toString() : QString();
}

void SnapshotsView::updateButtons()
{
    const bool has = !currentId().isEmpty();
    m_create->setEnabled(!m_sandbox.isEmpty());
    m_restore->setEnabled(has);
    m_fork->setEnabled(has);
    m_delete->setEnabled(has);
}

QString SnapshotsView::message() const
{
    return m_message->text();
}

void SnapshotsView::report(const QString &what, const QString &error)
{
    m_message->setText(error.isEmpty() ? what : tr("%1: %2").arg(what, error));
}

void SnapshotsView::create()
{
    // A running sandbox gets a checkpoint: a restore brings its agent back alive.
    const bool memory = m_sandboxes->isRunning(m_sandbox);
    bool ok = false;
    const QString label = QInputDialog::getText(
        this, tr("Take snapshot"),
        memory ? tr("Label (optional). Its running processes are saved too: a restore resumes them.") : tr("Label (optional):"),
        QLineEdit::Normal, {}, &ok);
    if (!ok || !m_client)
        return;
    QJsonObject params{{QStringLiteral("sandbox"), m_sandbox}};
    if (memory)
        params.insert(QStringLiteral("memory"), true);
    if (!label.isEmpty())
        params.insert(QStringLiteral("label"), label);
    m_progress->setRange(0, 0);
    m_progress->show();
    m_client->call(QStringLiteral("snapshot.create"), params, this, [this](const ApiClient::Reply &r) {
        m_progress->hide();
        report(r.ok ? tr("Snapshot taken.") : tr("Could not take the snapshot"), r.ok ? QString() : r.errorMessage);
        reload();
    });
}

void SnapshotsView::restore()
{
    const QString id = currentId();
    if (id.isEmpty() || !m_client)
        return;
    if (m_sandboxes->isRunning(m_sandbox)) {
        const bool checkpoint = m_tree->currentItem()->data(1, Qt::UserRole).toBool();
        const auto answer = QMessageBox::question(
            this, tr("Restore snapshot"),
            checkpoint ? tr("%1 is running. Restoring resumes it as it was at this checkpoint, its processes included, and "
                            "discards every change since. Restore?").arg(m_sandbox)
                       : tr("%1 is running. Restoring stops it and discards every change since this snapshot. Restore?").arg(m_sandbox),
            QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
        if (answer != QMessageBox::Yes)
            return;
    }
    m_client->call(QStringLiteral("snapshot.restore"), {{QStringLiteral("sandbox"), m_sandbox}, {QStringLiteral("id"), id.toLongLong()}}, this,
                   [this](const ApiClient::Reply &r) {
                       report(r.ok ? tr("Restored.") : tr("Could not restore"), r.ok ? QString() : r.errorMessage);
                       reload();
                   });
}

void SnapshotsView::fork()
{
    const QString id = currentId();
    if (id.isEmpty() || !m_client)
        return;
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Fork snapshot"), tr("Name of the new sandbox:"), QLineEdit::Normal,
                                               m_sandbox + QStringLiteral("-fork"), &ok);
    if (!ok || name.isEmpty())
        return;
    // A checkpoint's fork starts at once: it resumes where the origin was, processes and all,
    // at its own address. A disk-only snapshot's fork waits, stopped, to be started.
    const bool live = m_tree->currentItem() && m_tree->currentItem()->data(1, Qt::UserRole).toBool();
    if (live)
        m_message->setText(tr("Forking into %1: it resumes from the checkpoint…").arg(name));
    m_client->call(QStringLiteral("sandbox.fork"),
                   {{QStringLiteral("sandbox"), m_sandbox}, {QStringLiteral("id"), id.toLongLong()}, {QStringLiteral("new_name"), name},
                    {QStringLiteral("start"), live}},
                   this, [this, name, live](const ApiClient::Reply &r) {
                       if (!r.ok)
                           return report(tr("Could not fork"), r.errorMessage);
                       report(live ? tr("Forked into %1: it runs on from the checkpoint at its own address.").arg(name)
                                   : tr("Forked into %1.").arg(name),
                              QString());
                   });
}

void SnapshotsView::remove()
{
    const QString id = currentId();
    if (id.isEmpty())
        return;
    commitRemoval(); // one undo window at a time
    m_removingSandbox = m_sandbox;
    m_removingId = id;
    m_undoLabel->setText(tr("Snapshot %1 deleted.").arg(m_tree->currentItem()->text(0)));
    m_undoBar->show();
    m_undoTimer.start();
    reload();
}

void SnapshotsView::undoRemoval()
{
    m_undoTimer.stop();
    m_removingId.clear();
    m_removingSandbox.clear();
    m_undoBar->hide();
    reload();
}

void SnapshotsView::commitRemoval()
{
    m_undoTimer.stop();
    m_undoBar->hide();
    if (m_removingId.isEmpty() || !m_client)
        return;
    const QString sandbox = std::exchange(m_removingSandbox, {});
    const QString id = std::exchange(m_removingId, {});
    m_client->call(QStringLiteral("snapshot.remove"), {{QStringLiteral("sandbox"), sandbox}, {QStringLiteral("id"), id.toLongLong()}}, this,
                   [this](const ApiClient::Reply &r) {
                       if (!r.ok)
                           report(tr("Could not delete the snapshot"), r.errorMessage);
                       reload();
                   });
}

void SnapshotsView::onProgress(const proto::SnapshotProgress &progress)
{
    if (progress.sandbox != m_sandbox)
        return;
    const int percent = progress.percent;
    m_progress->setRange(0, percent < 0 ? 0 : 100);
    if (percent >= 0)
        m_progress->setValue(percent);
    m_progress->setFormat(progress.phase + QStringLiteral(" %p%"));
    m_progress->setVisible(percent < 100);
    if (percent >= 100)
        reload();
}

} // namespace airlock::ui
