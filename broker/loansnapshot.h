#pragma once
// What the transparent proxy's loop asks about a sandbox's borrowed secrets on every flow
// (Vault::boundHosts: intercept this host? Vault::caHosts: may a flow whose requests rules
// decide be intercepted? Vault::placeholders: does this plain request carry one?), answered from memory: an immutable map swapped whole when secrets or loans change,
// so the loop never runs a SQLite query (a busy database would stall every guest's traffic).
// Readers take the current map with one atomic load; writers (the vault's owners) replace it.
#include "core/loginspec.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>
#include <mutex>

namespace airlock {

struct SandboxLoans {
    QStringList hosts;                             // every host pattern its secrets are bound to
    QList<QPair<QString, QByteArray>> placeholders; // (secret name, placeholder or one of its base64Forms)
    QList<LoginSpec> logins;                       // its sign-ins (their hosts are in `hosts` too)
    QStringList caHosts;                           // every name its CA may speak for (Vault::issueSandboxCa)
};

class LoanSnapshot {
public:
    using Map = QHash<QString, SandboxLoans>; // sandbox name ->

    LoanSnapshot() : m_current(std::make_shared<const Map>()) {}

    // The loans of `sandbox` now (empty when it borrows nothing). Any thread, never waits on SQLite.
    SandboxLoans of(const QString &sandbox) const;
    // Replaces everything (rows read after the change was committed).
    void replace(Map all);
    // Replaces one sandbox's entry (rows read inside the transaction that lends to it).
    void replaceSandbox(const QString &name, SandboxLoans loans);

private:
    std::mutex m_writer; // one replacement at a time; readers never take it
    std::atomic<std::shared_ptr<const Map>> m_current;
};

} // namespace airlock
