#include "saveddefinition.h"

#include <QHostAddress>
#include <QRegularExpression>

namespace airlock {

namespace {

Error notOurs(const QString &what)
{
    return Error{QStringLiteral("the checkpoint's saved definition %1").arg(what),
                 QStringLiteral("its memory file was not written by Airlock; remove the snapshot")};
}

// [start, end) of the first `<tag …>…</tag>` (or `<tag …/>`); {-1, -1} if none.
std::pair<qsizetype, qsizetype> elementSpan(const QString &xml, const QString &tag)
{
    const QString open = QLatin1Char('<') + tag;
    qsizetype start = xml.indexOf(open);
    while (start >= 0 && start + open.size() < xml.size() && !QStringLiteral(" />").contains(xml.at(start + open.size())))
        start = xml.indexOf(open, start + 1); // <name> is not <nameserver>
    if (start < 0)
        return {-1, -1};
    const qsizetype tagEnd = xml.indexOf(QLatin1Char('>'), start);
    if (tagEnd < 0)
        return {-1, -1};
    if (xml.at(tagEnd - 1) == QLatin1Char('/'))
        return {start, tagEnd + 1};
    const QString close = QStringLiteral("</%1>").arg(tag);
    const qsizetype end = xml.indexOf(close, tagEnd);
    return end < 0 ? std::pair<qsizetype, qsizetype>{-1, -1} : std::pair<qsizetype, qsizetype>{start, end + close.size()};
}

QString elementOf(const QString &xml, const QString &tag)
{
    const auto [start, end] = elementSpan(xml, tag);
    return start < 0 ? QString() : xml.mid(start, end - start);
}

// `within` (an element's text) with its first `tag` element replaced by `with` (removed when empty).
QString replaceElement(QString within, const QString &tag, const QString &with)
{
    const auto [start, end] = elementSpan(within, tag);
    return start < 0 ? within : within.replace(start, end - start, with);
}

QString attribute(const QString &element, const QString &name)
{
    const QString key = name + QStringLiteral("='");
    const qsizetype at = element.indexOf(key);
    if (at < 0)
        return {};
    const qsizetype valueStart = at + key.size();
    const qsizetype valueEnd = element.indexOf(QLatin1Char('\''), valueStart);
    return valueEnd < 0 ? QString() : element.mid(valueStart, valueEnd - valueStart);
}

// The NIC with its link as asked: an existing <link> goes, the new one closes the element.
QString withLink(QString interface, const char *state)
{
    interface = replaceElement(interface, QStringLiteral("link"), QString());
    const qsizetype close = interface.lastIndexOf(QLatin1String("</interface>"));
    return interface.insert(close, QStringLiteral("<link state='%1'/>").arg(QLatin1String(state)));
}

} // namespace

Result<QString> pointSavedDisk(QString xml, const QString &newPath)
{
    const qsizetype target = xml.indexOf(QLatin1String("<target dev='vda'"));
    const qsizetype disk = target < 0 ? -1 : xml.lastIndexOf(QLatin1String("<disk "), target);
    const QLatin1String sourceAttr("<source file='");
    const qsizetype source = disk < 0 ? -1 : xml.indexOf(sourceAttr, disk);
    if (source < 0 || source > target)
        return notOurs(QStringLiteral("has no disk vda"));
    const qsizetype valueStart = source + sourceAttr.size();
    const qsizetype valueEnd = xml.indexOf(QLatin1Char('\''), valueStart);
    if (valueEnd < 0 || valueEnd > target)
        return Error{QStringLiteral("the checkpoint's saved definition is damaged"), QStringLiteral("remove the snapshot")};
    xml.replace(valueStart, valueEnd - valueStart, newPath.toHtmlEscaped());
    return xml;
}

Result<QString> liveForkDefinition(const QString &saved, const QString &forkDefinition)
{
    QString out = saved;
    // The domain's own <name> and <uuid> come first, before any device's.
    for (const QString &tag : {QStringLiteral("name"), QStringLiteral("uuid"), QStringLiteral("cmdline")}) {
        const QString mine = elementOf(forkDefinition, tag);
        const auto [start, end] = elementSpan(out, tag);
        if (mine.isEmpty() || start < 0)
            return notOurs(QStringLiteral("or the fork's has no <%1>").arg(tag));
        out.replace(start, end - start, mine);
    }
    const auto [nicStart, nicEnd] = elementSpan(out, QStringLiteral("interface"));
    const QString forkNic = elementOf(forkDefinition, QStringLiteral("interface"));
    const QString forkSource = elementOf(forkNic, QStringLiteral("source"));
    if (nicStart < 0 || forkSource.isEmpty())
        return notOurs(QStringLiteral("or the fork's has no network interface"));
    QString nic = out.mid(nicStart, nicEnd - nicStart);
    nic = replaceElement(nic, QStringLiteral("source"), forkSource);
    nic = replaceElement(nic, QStringLiteral("target"), QString()); // the origin's tap device
    out.replace(nicStart, nicEnd - nicStart, withLink(nic, "down"));
    // The fork's disk: where its own definition has it.
    const QString diskPath =
        attribute(elementOf(elementOf(forkDefinition, QStringLiteral("disk")), QStringLiteral("source")), QStringLiteral("file"));
    if (diskPath.isEmpty())
        return notOurs(QStringLiteral("or the fork's has no disk"));
    return pointSavedDisk(out, diskPath);
}

Result<GuestNetwork> guestNetworkOf(const QString &definition)
{
    GuestNetwork n;
    n.mac = attribute(elementOf(elementOf(definition, QStringLiteral("interface")), QStringLiteral("mac")), QStringLiteral("address"));
    const QString cmdline = elementOf(definition, QStringLiteral("cmdline"));
    for (const QString &word : cmdline.mid(cmdline.indexOf(QLatin1Char('>')) + 1).split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (word.startsWith(QLatin1String("airlock.ip=")))
            n.address = word.mid(11);
        else if (word.startsWith(QLatin1String("airlock.gw=")))
            n.gateway = word.mid(11);
        else if (word.startsWith(QLatin1String("airlock.hostname=")))
            n.hostname = word.mid(17).section(QLatin1Char('<'), 0, 0);
    }
    static const QRegularExpression mac(QStringLiteral("^[0-9a-f]{2}(:[0-9a-f]{2}){5}$"), QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression host(QStringLiteral("^[a-z0-9][a-z0-9-]{0,62}$"));
    const auto subnet = QHostAddress::parseSubnet(n.address);
    if (!mac.match(n.mac).hasMatch() || subnet.first.protocol() != QAbstractSocket::IPv4Protocol ||
        QHostAddress(n.gateway).protocol() != QAbstractSocket::IPv4Protocol || !host.match(n.hostname).hasMatch())
        return Error{QStringLiteral("the sandbox's definition does not name its guest's network"),
                     QStringLiteral("mac '%1', address '%2', gateway '%3', host '%4'").arg(n.mac, n.address, n.gateway, n.hostname)};
    return n;
}

Result<QString> interfaceWithLinkUp(const QString &liveDefinition)
{
    const QString nic = elementOf(liveDefinition, QStringLiteral("interface"));
    if (nic.isEmpty())
        return Error{QStringLiteral("the running sandbox has no network interface"), {}};
    return withLink(nic, "up");
}

} // namespace airlock
