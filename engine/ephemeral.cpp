// Ephemeral sandboxes (CreateRequest::ephemeral): nothing of them outlives their run. Once
// the domain is off they are removed like `remove` does (domain, network, disk layers, rows;
// the network hooks let go of their guard), and they keep no snapshots. After a restart of
// the daemon, running ones go too: the session that made them ended with the old daemon.
#include "sandboxengine.h"

#include "core/logging.h"
#include "virhandle.h"

namespace airlock {

Status SandboxEngine::refuseIfEphemeral(const QString &name, const QString &what)
{
    const auto row = m_store.firstRow(QStringLiteral("SELECT ephemeral FROM sandboxes WHERE name = ?"), {name});
    if (!row)
        return Error{QStringLiteral("cannot read whether %1 is ephemeral").arg(name), row.error().why};
    if (*row && (*row)->value(0).toBool())
        return Error{QStringLiteral("sandbox %1 is ephemeral: it cannot %2").arg(name, what),
                     QStringLiteral("its disk is discarded when it stops; create it without --ephemeral to keep snapshots"),
                     ErrorKind::Conflict};
    return ok();
}

Result<QStringList> SandboxEngine::discardEphemerals(bool evenRunning)
{
    if (Status s = ensureLibvirt(); !s)
        return s.error(); // libvirt cannot say what stopped: nothing is judged gone
    const auto rows = m_store.rows(QStringLiteral("SELECT name, owner_uid FROM sandboxes WHERE ephemeral = 1"));
    if (!rows)
        return Error{QStringLiteral("cannot read the ephemeral sandboxes"), rows.error().why};
    QStringList gone;
    for (const QSqlRecord &row : *rows) {
        const QString name = row.value(0).toString();
        const QString obj = objectName(name);
        if (!hasStopped(stateOf(m_libvirt.get(), obj))) {
            if (!evenRunning)
                continue;
            if (VirDomain d = lookupDomain(m_libvirt.get(), obj); d && virDomainIsActive(d.get()) == 1)
                virDomainDestroy(d.get());
        }
        if (Status s = remove(name, uid_t(row.value(1).toLongLong())); !s) {
            qCWarning(lcEngine) << "cannot discard the ephemeral sandbox" << name << ":" << s.error().message();
            continue;
        }
        qCInfo(lcEngine) << "discarded the ephemeral sandbox" << name;
        gone << name;
    }
    return gone;
}

} // namespace airlock
