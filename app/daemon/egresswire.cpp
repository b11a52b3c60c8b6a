#include "daemon/egresswire.h"

namespace airlock {

proto::EgressEvent toProtocol(const EgressEvent &e)
{
    proto::EgressEvent p;
    p.id = e.id;
    p.sandbox = e.sandbox;
    p.time = e.time;
    p.proto = e.proto;
    p.host = e.host;
    p.ip = e.ip;
    p.port = e.port;
    p.sni = e.sni;
    p.method = e.method;
    p.path = e.path;
    p.decision = e.decision;
    p.rule = e.rule;
    p.reason = e.reason;
    p.bytesUp = e.bytesUp;
    p.bytesDown = e.bytesDown;
    p.durationMs = e.durationMs;
    p.count = e.count;
    p.request = e.request;
    if (e.guestProcess)
        p.guestProcess = proto::GuestProcess{e.guestProcess->pid, e.guestProcess->ppid, e.guestProcess->comm,
                                             e.guestProcess->parent, e.guestProcess->cmdline, e.guestProcess->chain};
    return p;
}

QJsonArray egressEventsToJson(const QList<EgressEvent> &events)
{
    QJsonArray out;
    for (const EgressEvent &e : events)
        out.append(toProtocol(e).toJson());
    return out;
}

} // namespace airlock
