#include "headertemplate.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace airlock {

bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

Result<HeaderTemplate> HeaderTemplate::parse(const QString &text)
{
    const auto bad = [&](const QString &why) {
        return Error{QStringLiteral("invalid header template \"%1\"").arg(text), why, ErrorKind::InvalidParams};
    };
    const QByteArray raw = text.toUtf8();
    if (raw.startsWith('?')) {
        HeaderTemplate t;
        t.query = raw.mid(1).chopped(raw.endsWith("={}") ? 3 : 0);
        const bool unreserved = std::all_of(t.query.begin(), t.query.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '~';
        });
        if (!raw.endsWith("={}") || t.query.isEmpty() || !unreserved)
            return bad(QStringLiteral("a query parameter is written \"?name={}\" with a name of letters, digits, - . _ or ~ "
                                      "(airlockctl secret set ... --query name)"));
        return t;
    }
    const qsizetype colon = raw.indexOf(':');
    if (colon <= 0)
        return bad(QStringLiteral("write it as \"Name: value\" with {} where the secret goes, e.g. "
                                  "'Authorization: Bearer {}' or 'x-api-key: {}'"));
    HeaderTemplate t;
    t.name = raw.left(colon).trimmed();
    for (char c : t.name) {
        if (!isTokenChar(c))
            return bad(QStringLiteral("the header name \"%1\" contains a character header names may not have")
                           .arg(QString::fromUtf8(t.name)));
    }
    if (t.name.isEmpty())
        return bad(QStringLiteral("the header name is empty"));
    static const char *reserved[] = {"host", "content-length", "transfer-encoding", "connection", "upgrade",
                                     "te", "trailer", "keep-alive", "proxy-connection", "expect"};
    for (const char *r : reserved) {
        if (t.name.compare(r, Qt::CaseInsensitive) == 0)
            return bad(QStringLiteral("\"%1\" controls the connection itself and cannot carry a secret; use e.g. "
                                      "Authorization or x-api-key").arg(QString::fromUtf8(t.name)));
    }
    const QByteArray value = raw.mid(colon + 1).trimmed();
    const qsizetype at = value.indexOf("{}");
    if (at < 0 || value.indexOf("{}", at + 2) >= 0)
        return bad(QStringLiteral("it must contain exactly one {} (where the secret goes)"));
    for (char c : value) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && u != '\t') || u == 0x7f || u >= 0x80)
            return bad(QStringLiteral("the value part may only hold printable ASCII"));
    }
    t.prefix = value.left(at);
    t.suffix = value.mid(at + 2);
    return t;
}

QString HeaderTemplate::text() const
{
    if (!query.isEmpty())
        return QString::fromUtf8("?" + query + "={}");
    return QString::fromUtf8(name + ": " + prefix + "{}" + suffix);
}

} // namespace airlock
