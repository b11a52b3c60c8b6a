#include "guestprocess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace airlock {

namespace {

constexpr int kFieldsV1 = 10;
constexpr int kFieldsV2 = 11;

// Decimal digits only, no sign, at most `maxDigits`, at most `max`.
std::optional<qint64> number(QByteArrayView text, int maxDigits, qint64 max)
{
    if (text.isEmpty() || text.size() > maxDigits)
        return std::nullopt;
    qint64 value = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + (c - '0');
    }
    if (value > max)
        return std::nullopt;
    return value;
}

std::optional<quint32> ipv4(QByteArrayView text)
{
    if (text.size() > 15)
        return std::nullopt;
    quint32 ip = 0;
    int parts = 0;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= text.size(); ++i) {
        if (i < text.size() && text[i] != '.')
            continue;
        const auto octet = number(text.sliced(start, i - start), 3, 255);
        if (!octet || ++parts > 4)
            return std::nullopt;
        ip = (ip << 8) | quint32(*octet);
        start = i + 1;
    }
    if (parts != 4)
        return std::nullopt;
    return ip;
}

// "a>b>parent": 0 to kMaxChain names of 1 to kMaxComm bytes each.
std::optional<QStringList> ancestors(QByteArrayView text)
{
    QStringList names;
    if (text.isEmpty())
        return names;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= text.size(); ++i) {
        if (i < text.size() && text[i] != '>')
            continue;
        const QByteArrayView name = text.sliced(start, i - start);
        if (name.isEmpty() || name.size() > guestprocess::kMaxComm || names.size() == guestprocess::kMaxChain)
            return std::nullopt;
        names.append(QString::fromLatin1(name));
        start = i + 1;
    }
    return names;
}

} // namespace

namespace guestprocess {

std::optional<GuestSocketReport> parseLine(QByteArrayView line)
{
    if (line.size() > kMaxLine)
        return std::nullopt;
    QByteArrayView fields[kFieldsV2];
    int count = 0;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= line.size(); ++i) {
        if (i < line.size()) {
            const char c = line[i];
            if (c == '\t') {
                // the separator
            } else if (c < 0x20 || c > 0x7e) {
                return std::nullopt; // printable ASCII only
            } else {
                continue;
            }
        }
        if (count == kFieldsV2)
            return std::nullopt; // more fields than a report has
        fields[count++] = line.sliced(start, i - start);
        start = i + 1;
    }
    const bool v2 = count == kFieldsV2 && fields[0] == "v2";
    if (!v2 && (count != kFieldsV1 || fields[0] != "v1"))
        return std::nullopt;
    GuestSocketReport r;
    if (fields[1] == "udp")
        r.udp = true;
    else if (fields[1] != "tcp")
        return std::nullopt;
    const auto localPort = number(fields[2], 5, 65535);
    const auto remoteIp = ipv4(fields[3]);
    const auto remotePort = number(fields[4], 5, 65535);
    const auto pid = number(fields[5], 10, 0x7fffffff);
    const auto ppid = number(fields[6], 10, 0x7fffffff);
    if (!localPort || !*localPort || !remoteIp || !remotePort || !*remotePort || !pid || !*pid || !ppid)
        return std::nullopt;
    if (fields[7].isEmpty() || fields[7].size() > kMaxComm || fields[8].size() > kMaxComm || fields[9].size() > kMaxCmdline)
        return std::nullopt;
    r.localPort = quint16(*localPort);
    r.remoteIp = *remoteIp;
    r.remotePort = quint16(*remotePort);
    r.process.pid = *pid;
    r.process.ppid = *ppid;
    r.process.comm = QString::fromLatin1(fields[7]);
    r.process.parent = QString::fromLatin1(fields[8]);
    r.process.cmdline = QString::fromLatin1(fields[9]);
    if (v2) {
        const auto chain = ancestors(fields[10]);
        if (!chain)
            return std::nullopt;
        r.process.chain = *chain;
    }
    return r;
}

} // namespace guestprocess

QString GuestProcess::toStored(const std::optional<GuestProcess> &p)
{
    if (!p)
        return {};
    QJsonObject stored{{QStringLiteral("pid"), p->pid},       {QStringLiteral("ppid"), p->ppid},
                       {QStringLiteral("comm"), p->comm},     {QStringLiteral("parent"), p->parent},
                       {QStringLiteral("cmdline"), p->cmdline}};
    if (!p->chain.isEmpty())
        stored.insert(QStringLiteral("chain"), QJsonArray::fromStringList(p->chain));
    return QString::fromUtf8(QJsonDocument(stored).toJson(QJsonDocument::Compact));
}

std::optional<GuestProcess> GuestProcess::fromStored(const QString &text)
{
    if (text.isEmpty())
        return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(text.toUtf8()).object();
    if (o.isEmpty())
        return std::nullopt;
    GuestProcess p;
    p.pid = o.value(QStringLiteral("pid")).toInteger();
    p.ppid = o.value(QStringLiteral("ppid")).toInteger();
    p.comm = o.value(QStringLiteral("comm")).toString();
    p.parent = o.value(QStringLiteral("parent")).toString();
    p.cmdline = o.value(QStringLiteral("cmdline")).toString();
    for (const QJsonValue &name : o.value(QStringLiteral("chain")).toArray())
        p.chain.append(name.toString());
    return p;
}

quint64 GuestProcessTable::keyOf(quint16 localPort, quint32 remoteIp, quint16 remotePort)
{
    return (quint64(localPort) << 48) | (quint64(remoteIp) << 16) | remotePort;
}

std::chrono::milliseconds GuestProcessTable::feed(const QString &sandbox, QByteArrayView bytes, Clock::time_point now)
{
    std::lock_guard lock(m_mutex);
    Sandbox &s = m_sandboxes[sandbox];
    if (now - s.windowStart >= std::chrono::seconds(1)) {
        s.windowStart = now;
        s.windowBytes = 0;
    }
    s.windowBytes += bytes.size();
    s.reader.feed(bytes, [&](const GuestSocketReport &r) { addLocked(s, r, now); });
    if (s.windowBytes <= m_limits.bytesPerSecond)
        return std::chrono::milliseconds(0);
    // Over budget: the reader waits out the rest of the second, so the guest's writes block.
    return std::chrono::duration_cast<std::chrono::milliseconds>(s.windowStart + std::chrono::seconds(1) - now);
}

void GuestProcessTable::add(const QString &sandbox, const GuestSocketReport &report, Clock::time_point now)
{
    std::lock_guard lock(m_mutex);
    addLocked(m_sandboxes[sandbox], report, now);
}

void GuestProcessTable::addLocked(Sandbox &s, const GuestSocketReport &r, Clock::time_point now)
{
    expire(s, now);
    const quint64 key = keyOf(r.localPort, r.remoteIp, r.remotePort);
    const quint64 seq = s.nextSeq++;
    s.byKey[r.udp].insert(key, Entry{seq, now, r.process});
    s.order.push_back(Ordered{r.udp, key, seq, now});
    ++s.reports;
    // Bounded: the oldest sockets go first (stale order entries count too, so order stays bounded).
    while (s.sockets() > m_limits.maxSockets || qsizetype(s.order.size()) > 2 * m_limits.maxSockets)
        popOldest(s);
}

void GuestProcessTable::popOldest(Sandbox &s)
{
    const Ordered o = s.order.front();
    s.order.pop_front();
    const auto it = s.byKey[o.udp].constFind(o.key);
    if (it != s.byKey[o.udp].cend() && it->seq == o.seq)
        s.byKey[o.udp].erase(it);
}

void GuestProcessTable::expire(Sandbox &s, Clock::time_point now)
{
    while (!s.order.empty() && now - s.order.front().at > m_limits.keep)
        popOldest(s);
}

std::optional<GuestProcess> GuestProcessTable::find(const QString &sandbox, bool udp, quint16 localPort, quint32 remoteIp,
                                                    quint16 remotePort, Clock::time_point now) const
{
    std::lock_guard lock(m_mutex);
    const auto s = m_sandboxes.constFind(sandbox);
    if (s == m_sandboxes.cend())
        return std::nullopt;
    const auto it = s->byKey[udp].constFind(keyOf(localPort, remoteIp, remotePort));
    if (it == s->byKey[udp].cend() || now - it->at > m_limits.keep)
        return std::nullopt;
    return it->process;
}

void GuestProcessTable::forget(const QString &sandbox)
{
    std::lock_guard lock(m_mutex);
    m_sandboxes.remove(sandbox);
}

GuestProcessTable::Stats GuestProcessTable::stats(const QString &sandbox) const
{
    std::lock_guard lock(m_mutex);
    const auto s = m_sandboxes.constFind(sandbox);
    if (s == m_sandboxes.cend())
        return {};
    return Stats{s->reports, s->reader.junk(), s->sockets()};
}

} // namespace airlock
