#pragma once
// The one place the broker's EgressEvent becomes the protocol's: the broker links no app
// code, so it records its own struct and the daemon converts what it sends (egress.list,
// egress.decide, the `egress` and `pending` topics).
#include "egressevent.h"
#include "protocol/egress.h"

#include <QJsonArray>

namespace airlock {

proto::EgressEvent toProtocol(const EgressEvent &event);
QJsonArray egressEventsToJson(const QList<EgressEvent> &events);

} // namespace airlock
