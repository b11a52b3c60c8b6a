#pragma once
// The protocol's enums and their wire names. fromString refuses a name it does not know,
// with an error that names the field and the names it accepts.
#include "core/decision.h"
#include "core/policylimits.h"
#include "core/result.h"
#include "core/vaultstate.h"

#include <QString>

namespace airlock::proto {

// A sandbox as the daemon reports it (SandboxEngine::stateOf, plus "removed" after a remove).
enum class SandboxState : quint8 { Running, Paused, Stopping, Stopped, Crashed, Suspended, Missing, Unknown, Removed };

QString toString(SandboxState state);
Result<SandboxState> sandboxStateFromString(const QString &text, const QString &field = QStringLiteral("state"));

QString toString(Decision decision); // "allowed" | "denied" | "pending" | "dropped"
Result<Decision> decisionFromString(const QString &text, const QString &field = QStringLiteral("decision"));

QString toString(VaultState state); // "uninitialised" | "locked" | "unlocked"
Result<VaultState> vaultStateFromString(const QString &text, const QString &field = QStringLiteral("vault"));

QString toString(PolicyFileFormat format); // "json" | "yaml"
Result<PolicyFileFormat> policyFileFormatFromString(const QString &text, const QString &field = QStringLiteral("format"));

} // namespace airlock::proto
