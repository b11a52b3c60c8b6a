#pragma once
// What happened to one egress attempt: the ONE decision type of the broker's policy, the
// proxy, the event log and every client. Its names are both what the event log stores and
// what the protocol sends (app/protocol/enums.h adds the error for a name it does not know).
#include <QString>
#include <QStringList>
#include <optional>

namespace airlock {

enum class Decision : quint8 {
    Allowed,
    Denied,
    Pending, // held for a person (the policy's "ask": no rule matched)
    Dropped, // not an outcome: an event row standing for events the log had no room for
};

QString decisionName(Decision decision); // "allowed" | "denied" | "pending" | "dropped"
std::optional<Decision> decisionFromName(QStringView name);
QStringList decisionNames();

} // namespace airlock
