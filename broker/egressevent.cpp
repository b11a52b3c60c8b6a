#include "egressevent.h"
#include "core/isotime.h"

namespace airlock {

QString EgressEvent::isoTime(const QDateTime &time) { return isoTimeMs(time); }

EgressEvent EgressEvent::interceptedRequest(qint64 id, const QString &sandbox, const QString &host, int port, const QString &method,
                                            const QString &path)
{
    EgressEvent e;
    e.id = id;
    e.sandbox = sandbox;
    e.time = QDateTime::currentDateTimeUtc();
    e.proto = QStringLiteral("https");
    e.host = host;
    e.sni = host;
    e.port = port;
    e.method = method.left(32);
    e.path = path.left(512);
    return e;
}

} // namespace airlock
