#pragma once
#include "protocol/events.h"

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QComboBox;
class QJsonObject;
class QLabel;
class QProgressBar;
class QPushButton;
class QTreeWidget;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class AvailabilityStack;
class CheckpointScheduleFields;

class SandboxModel;

// The Snapshots tab: the layer tree with labels, kinds (checkpoint with its memory size, or
// disk only; the schedule's own in italics) and times; create (a checkpoint when the sandbox
// runs), restore (confirmed when the sandbox runs), fork, delete with Undo (the removal is
// sent only when the undo window closes, as GNOME Boxes does), and the automatic checkpoint
// schedule.
class SnapshotsView : public QWidget {
    Q_OBJECT
public:
    SnapshotsView(ApiClient *client, SandboxModel *sandboxes, QWidget *parent = nullptr);
    void setSandbox(const QString &sandbox);
    void reload();
    // `snapshot` progress: shown when it is this sandbox's; the tree reloads once done.
    void onProgress(const proto::SnapshotProgress &progress);
    QTreeWidget *tree() const { return m_tree; }
    QPushButton *createButton() const { return m_create; }
    QPushButton *restoreButton() const { return m_restore; }
    QPushButton *forkButton() const { return m_fork; }
    QComboBox *everyBox() const;
    QString message() const;

private:
    QString currentId() const;
    void create();
    void restore();
    void fork();
    void remove();
    void commitRemoval();
    void undoRemoval();
    void updateButtons();
    void callSchedule(const QJsonObject &change);
    void saveSchedule();
    void report(const QString &what, const QString &error);

    QPointer<ApiClient> m_client;
    SandboxModel *m_sandboxes;
    QString m_sandbox;
    AvailabilityStack *m_stack;
    QTreeWidget *m_tree;
    QPushButton *m_create, *m_restore, *m_fork, *m_delete;
    QProgressBar *m_progress;
    CheckpointScheduleFields *m_schedule;
    QLabel *m_message;
    QWidget *m_undoBar;
    QLabel *m_undoLabel;
    QTimer m_undoTimer;
    QString m_removingSandbox, m_removingId;
};

} // namespace airlock::ui
