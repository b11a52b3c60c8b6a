#pragma once
// How a relay that reads requests (the interceptor, the proxy's plain-HTTP checker) asks the
// policy about one request of a flow that is decided request by request
// (FlowVerdict::perRequest; Policy::decidesPerRequest). Implemented by EgressService over
// Policy::decideRequest; called on the relay's own thread, so it must return quickly.
#include "core/decision.h"
#include "requestfacts.h"

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

} // namespace airlock
