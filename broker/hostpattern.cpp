#include "hostpattern.h"

namespace airlock {

namespace {

Error patternError(const QString &text, const QString &why)
{
    return Error{QStringLiteral("invalid host pattern '%1'").arg(text), why, ErrorKind::InvalidParams};
}

bool isLdhLabel(QStringView label)
{
    if (label.isEmpty() || label.size() > 63)
        return false;
    for (QChar c : label) {
        const char16_t u = c.unicode();
        const bool ok = (u >= u'a' && u <= u'z') || (u >= u'0' && u <= u'9') || u == u'-' || u == u'_';
        if (!ok)
            return false;
    }
    return label.front() != u'-' && label.back() != u'-';
}

// A host name of LDH labels (underscore tolerated: it appears in real service names).
QString checkHostName(const QString &host)
{
    if (host.isEmpty())
        return QStringLiteral("the host name is empty");
    if (host.size() > 253)
        return QStringLiteral("the host name is longer than 253 characters");
    for (QStringView label : QStringView(host).split(u'.')) {
        if (label.isEmpty())
            return QStringLiteral("it has an empty label (two dots in a row, or a leading dot)");
        if (label.size() > 63)
            return QStringLiteral("the label '%1' is longer than 63 characters").arg(label.toString());
        if (!isLdhLabel(label))
            return QStringLiteral("the label '%1' may hold only letters, digits, '-' and '_', and may not start or end "
                                  "with '-'").arg(label.toString());
    }
    return {};
}

QHostAddress unmapped(const QHostAddress &ip)
{
    if (ip.protocol() == QAbstractSocket::IPv6Protocol) {
        bool ok = false;
        const quint32 v4 = ip.toIPv4Address(&ok);
        if (ok)
            return QHostAddress(v4);
    }
    return ip;
}

} // namespace

Result<HostPattern> HostPattern::parse(const QString &input)
{
    const QString text = input.trimmed();
    if (text.isEmpty())
        return patternError(input, QStringLiteral("it is empty; give a host (example.com), a wildcard (*.example.com), "
                                                  "an address (192.0.2.1) or a block (10.0.0.0/8)"));
    for (QChar c : text) {
        if (c.unicode() > 0x7f)
            return patternError(input, QStringLiteral("it contains non-ASCII characters; write an international "
                                                      "domain name in its ASCII (xn--) form"));
        if (c.isSpace() || c.unicode() < 0x20)
            return patternError(input, QStringLiteral("it contains whitespace or control characters"));
    }
    HostPattern p;
    if (text == QLatin1String("*")) {
        p.m_kind = Kind::Any;
        p.m_text = text;
        return p;
    }
    if (text.contains(QLatin1String("://")))
        return patternError(input, QStringLiteral("give a host name, not a URL (e.g. example.com)"));
    if (text.contains(u'/')) {
        const auto subnet = QHostAddress::parseSubnet(text);
        const QString prefix = text.section(u'/', 1);
        bool prefixOk = false;
        prefix.toInt(&prefixOk);
        if (subnet.first.isNull() || subnet.second < 0 || !prefixOk)
            return patternError(input, QStringLiteral("it is not a valid CIDR block; write ADDRESS/PREFIX, "
                                                      "e.g. 10.0.0.0/8 or 2001:db8::/32"));
        p.m_kind = Kind::Cidr;
        p.m_subnet = {unmapped(subnet.first), subnet.second};
        if (p.m_subnet.first.protocol() == QAbstractSocket::IPv4Protocol && subnet.first.protocol() != QAbstractSocket::IPv4Protocol)
            p.m_subnet.second = std::max(0, subnet.second - 96);
        p.m_text = p.m_subnet.first.toString() + u'/' + QString::number(p.m_subnet.second);
        return p;
    }
    QString host = text;
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    QHostAddress address;
    if (address.setAddress(host) && !host.contains(u'%')) {
        p.m_kind = Kind::Address;
        p.m_subnet.first = unmapped(address);
        p.m_subnet.second = p.m_subnet.first.protocol() == QAbstractSocket::IPv4Protocol ? 32 : 128;
        p.m_text = p.m_subnet.first.toString();
        return p;
    }
    host = normalizeHost(text);
    if (host.contains(u':'))
        return patternError(input, QStringLiteral("a port does not belong in the pattern; use --port"));
    if (host.startsWith(QLatin1String("*."))) {
        const QString domain = host.mid(2);
        if (domain.contains(u'*'))
            return patternError(input, QStringLiteral("only one leading '*.' is allowed, as in *.example.com"));
        if (const QString why = checkHostName(domain); !why.isEmpty())
            return patternError(input, why);
        if (!domain.contains(u'.'))
            return patternError(input, QStringLiteral("a wildcard over a whole top-level domain is too broad; name "
                                                      "a domain such as *.example.com (or use * deliberately)"));
        p.m_kind = Kind::Wildcard;
        p.m_domain = domain;
        p.m_text = QStringLiteral("*.") + domain;
        return p;
    }
    if (host.contains(u'*'))
        return patternError(input, QStringLiteral("'*' is allowed only as a whole leading label (*.example.com) "
                                                  "or alone (*)"));
    if (const QString why = checkHostName(host); !why.isEmpty())
        return patternError(input, why);
    // "106.0.11." would be kept as the name "106.0.11", which reads back as the address
    // 106.0.0.11: a pattern must mean the same when its text is parsed again.
    if (address.setAddress(host))
        return patternError(input, QStringLiteral("it reads as the address %1; write the address in full").arg(unmapped(address).toString()));
    p.m_kind = Kind::Exact;
    p.m_domain = host;
    p.m_text = host;
    return p;
}

bool HostPattern::matchesHost(const QString &host) const
{
    if (host.isEmpty())
        return m_kind == Kind::Any;
    switch (m_kind) {
    case Kind::Any:
        return true;
    case Kind::Exact:
        return host == m_domain;
    case Kind::Wildcard:
        // Anchored at a label boundary: "x." + domain, never "evil" + domain nor domain itself.
        return host.size() > m_domain.size() + 1 && host.endsWith(m_domain)
            && host.at(host.size() - m_domain.size() - 1) == u'.';
    case Kind::Address:
    case Kind::Cidr:
        return false;
    }
    return false;
}

bool HostPattern::matchesAddress(const QHostAddress &ip) const
{
    if (ip.isNull())
        return false;
    switch (m_kind) {
    case Kind::Any:
        return true;
    case Kind::Address:
        return unmapped(ip) == m_subnet.first;
    case Kind::Cidr:
        return unmapped(ip).isInSubnet(m_subnet.first, m_subnet.second);
    case Kind::Exact:
    case Kind::Wildcard:
        return false;
    }
    return false;
}

bool HostPattern::matches(const QString &host, const QHostAddress &ip) const
{
    if (m_kind == Kind::Any)
        return true;
    return isAddressPattern() ? matchesAddress(ip) : matchesHost(host);
}

int HostPattern::specificity() const
{
    switch (m_kind) {
    case Kind::Any:
        return 0;
    case Kind::Exact:
    case Kind::Address:
        return 1000;
    case Kind::Cidr:
        return 500 + m_subnet.second + (m_subnet.first.protocol() == QAbstractSocket::IPv4Protocol ? 96 : 0);
    case Kind::Wildcard:
        return 100 + int(m_domain.count(u'.')) + 1;
    }
    return 0;
}

} // namespace airlock
