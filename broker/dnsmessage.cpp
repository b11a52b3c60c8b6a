#include "dnsmessage.h"

namespace airlock::dns {

ParseResult parseQuery(std::span<const char> message)
{
    ParseResult r;
    Q_UNUSED(message)
    r.error = QStringLiteral("not implemented");
    return r;
}

bool readName(std::span<const char>, int, QString *, QByteArray *, int *, QString *error)
{
    if (error)
        *error = QStringLiteral("not implemented");
    return false;
}

QByteArray encodeName(const QString &) { return {}; }
QByteArray answerA(const Query &, quint32, quint32) { return {}; }
QByteArray answerEmpty(const Query &) { return {}; }
QByteArray answerRcode(const Query &, Rcode) { return {}; }
QByteArray formErr(quint16, quint16) { return {}; }

} // namespace airlock::dns
