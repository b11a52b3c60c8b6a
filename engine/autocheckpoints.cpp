// Automatic checkpoints: a sandbox may carry a schedule (every N seconds, keep K). While it
// runs, SandboxService asks on its timer which sandboxes are due and takes a checkpoint of
// each here; then the oldest automatic checkpoints past K are removed (their layers merge,
// live, into the layer above). Retention never touches a snapshot a person made or labelled.
#include "core/logging.h"
#include "sandboxengine.h"

#include <QDateTime>

namespace airlock {

namespace {
constexpr qint64 kMinEverySeconds = 10;
constexpr qint64 kMaxEverySeconds = 7 * 24 * 3600;
constexpr int kMaxKeep = 100;
} // namespace

Status SandboxEngine::checkCheckpointSchedule(qint64 everySeconds, int keep)
{
    if (everySeconds != 0 && (everySeconds < kMinEverySeconds || everySeconds > kMaxEverySeconds))
        return Error{QStringLiteral("a checkpoint every %1 s is out of range").arg(everySeconds),
                     QStringLiteral("give between %1 s and 7 days (e.g. 10m), or 0 to stop automatic checkpoints").arg(kMinEverySeconds),
                     ErrorKind::InvalidParams};
    if (everySeconds != 0 && (keep < 1 || keep > kMaxKeep))
        return Error{QStringLiteral("keeping %1 automatic checkpoints is out of range").arg(keep),
                     QStringLiteral("keep between 1 and %1").arg(kMaxKeep), ErrorKind::InvalidParams};
    return ok();
}

Result<QJsonObject> SandboxEngine::checkpointSchedule(const QString &sandbox, uid_t uid, std::optional<qint64> everySeconds,
                                                      std::optional<int> keep)
{
    qint64 sid = 0;
    if (Status s = requireSandbox(sandbox, uid, &sid); !s)
        return s.error();
    if (everySeconds) {
        const qint64 every = *everySeconds;
        const int kept = keep.value_or(kDefaultCheckpointKeep);
        if (Status s = checkCheckpointSchedule(every, kept); !s)
            return s.error();
        if (every != 0)
            if (Status s = refuseIfEphemeral(sandbox, QStringLiteral("keep checkpoints")); !s)
                return s.error();
        if (Result<qint64> w = m_store.write(QStringLiteral("UPDATE sandboxes SET checkpoint_every_s = ?, checkpoint_keep = ? WHERE id = ?"),
                                             {every, every ? kept : 0, sid});
            !w)
            return Error{QStringLiteral("cannot store the checkpoint schedule of %1").arg(sandbox), w.error().why};
    } else if (keep) {
        return Error{QStringLiteral("a number to keep needs a schedule"), QStringLiteral("give --every too"), ErrorKind::InvalidParams};
    }
    const auto row = m_store.firstRow(QStringLiteral("SELECT checkpoint_every_s, checkpoint_keep FROM sandboxes WHERE id = ?"), {sid});
    if (!row || !row.value())
        return Error{QStringLiteral("cannot read the checkpoint schedule of %1").arg(sandbox), row ? QString() : row.error().why};
    return QJsonObject{{QStringLiteral("sandbox"), sandbox},
                       {QStringLiteral("every_s"), row.value()->value(0).toLongLong()},
                       {QStringLiteral("keep"), row.value()->value(1).toInt()}};
}

// Running sandboxes with a schedule whose last automatic checkpoint is older than it (or that
// have none yet: the first is taken at once).
QStringList SandboxEngine::checkpointsDue()
{
    const auto rows = m_store.rows(QStringLiteral(
        "SELECT s.name, s.checkpoint_every_s, (SELECT MAX(created) FROM snapshots WHERE sandbox_id = s.id AND automatic = 1) "
        "FROM sandboxes s WHERE s.checkpoint_every_s > 0"));
    if (!rows) {
        qCWarning(lcEngine) << "cannot read the checkpoint schedules:" << rows.error().message();
        return {};
    }
    QStringList due;
    const QDateTime current = QDateTime::currentDateTimeUtc();
    for (const QSqlRecord &r : *rows) {
        const QDateTime last = QDateTime::fromString(r.value(2).toString(), Qt::ISODate);
        if (last.isValid() && last.secsTo(current) < r.value(1).toLongLong())
            continue;
        if (stateOf(m_libvirt.get(), objectName(r.value(0).toString())) == QLatin1String("running"))
            due << r.value(0).toString();
    }
    return due;
}

Result<QJsonObject> SandboxEngine::takeAutomaticCheckpoint(const QString &sandbox)
{
    Result<QJsonObject> made = createSnapshot(sandbox, QString(), 0, true, true);
    if (!made)
        return made;
    const auto sid = m_store.firstRow(QStringLiteral("SELECT id, checkpoint_keep FROM sandboxes WHERE name = ?"), {sandbox});
    if (!sid || !sid.value())
        return made;
    const auto automatic = m_store.rows(QStringLiteral("SELECT id FROM snapshots WHERE sandbox_id = ? AND automatic = 1 AND label = '' "
                                                       "ORDER BY id DESC"),
                                        {sid.value()->value(0)});
    if (!automatic)
        return made;
    const int keep = qMax(1, sid.value()->value(1).toInt());
    for (int i = keep; i < automatic->size(); ++i) { // the oldest past `keep`
        const qint64 id = automatic->at(i).value(0).toLongLong();
        if (Status s = removeSnapshot(sandbox, id, 0); !s) // e.g. a fork builds on it: it stays, and is tried again next time
            qCWarning(lcEngine) << "cannot remove automatic checkpoint" << id << "of" << sandbox << ":" << s.error().message();
    }
    return made;
}

} // namespace airlock
