#pragma once
// How a relay that reads requests (the interceptor, the proxy's plain-HTTP checker) asks the
// policy about one request of a flow that is decided request by request
// (FlowVerdict::perRequest; Policy::decidesPerRequest). Implemented by EgressService over
// Policy::decideRequest; called on the relay's own thread, so it must return quickly.
#include "core/decision.h"
#include "guestprocess.h"
#include "requestfacts.h"

#include <QByteArray>
#include <QString>
#include <functional>

namespace airlock {

struct RequestVerdict {
    Decision decision = Decision::Pending; // Pending: no rule answers this request
    qint64 rule = 0;
    QString reason;
};

using RequestDecider = std::function<RequestVerdict(const QString &sandbox, const QString &host, quint16 port,
                                                    const RequestFacts &request)>;

// A request no rule answers, asked of the person like a held flow (a pending item of its own).
struct HeldRequest {
    QString sandbox;
    QString host;
    quint16 port = 0;
    QByteArray method;
    QByteArray target; // as the record shows it (a secret's query value masked)
    std::optional<GuestProcess> process; // the guest's report on the connection, if it came
};

// Implemented by EgressService over the proxy's pending items. ask() returns the event id the
// request is recorded under (its final record reuses it) and calls `answer` exactly once, on
// any thread: the person's decision, or a denial when the hold times out or the ask cannot be
// held. leave(): the requester stopped waiting (its guest closed); `answer` may still run.
struct RequestAsking {
    std::function<qint64(const HeldRequest &request, std::function<void(RequestVerdict)> answer)> ask;
    std::function<void(qint64 eventId)> leave;
    explicit operator bool() const { return ask && leave; }
};

} // namespace airlock
