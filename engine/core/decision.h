#pragma once
// What happened to one egress attempt: the ONE decision type of the broker's policy, the
// proxy, the event log and every client. Its wire names are the protocol's
// (app/protocol/enums.h: "allowed", "denied", "pending", "dropped").
#include <QtGlobal>

namespace airlock {

enum class Decision : quint8 {
    Allowed,
    Denied,
    Pending, // held for a person (the policy's "ask": no rule matched)
    Dropped, // not an outcome: an event row standing for events the log had no room for
};

} // namespace airlock
