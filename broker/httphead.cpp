#include "httphead.h"

namespace airlock::http {

QByteArray RequestHead::header(const QByteArray &name) const
{
    for (const Header &h : headers)
        if (h.name.compare(name, Qt::CaseInsensitive) == 0)
            return h.value;
    return {};
}

QList<QByteArray> RequestHead::headerValues(const QByteArray &name) const
{
    QList<QByteArray> out;
    for (const Header &h : headers)
        if (h.name.compare(name, Qt::CaseInsensitive) == 0)
            out.append(h.value);
    return out;
}

HeadResult parseRequestHead(std::span<const char>) { return {}; }

QByteArray serializeRequestHead(const RequestHead &head)
{
    QByteArray out = head.method + ' ' + head.target + ' ' + head.version + "\r\n";
    for (const Header &h : head.headers)
        out += h.name + ": " + h.value + "\r\n";
    out += "\r\n";
    return out;
}

} // namespace airlock::http
