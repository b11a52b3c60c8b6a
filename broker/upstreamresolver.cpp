#include "upstreamresolver.h"
#include "hostpattern.h"
#include "sandboxnet.h"
#include "upstreamaddress.h"

#include <QFile>
#include <QRegularExpression>
#include <arpa/inet.h>
#include <netdb.h>
#include <thread>

namespace airlock {

std::optional<quint32> UpstreamResolver::fromHostsFile(const QString &name)
{
    if (m_hostsFile.isEmpty())
        return std::nullopt;
    std::lock_guard lock(m_mutex);
    // Re-read when the file changed, looking at most once a second.
    const auto now = std::chrono::steady_clock::now();
    QDateTime modified = m_loaded;
    if (now - m_checked > std::chrono::seconds(1)) {
        m_checked = now;
        modified = QFileInfo(m_hostsFile).lastModified();
    }
    if (modified != m_loaded || !m_read) {
        m_read = true;
        m_loaded = modified;
        m_hosts.clear();
        QFile f(m_hostsFile);
        if (f.open(QIODevice::ReadOnly)) {
            static const QRegularExpression space(QStringLiteral("\\s+"));
            while (!f.atEnd()) {
                const QString line = QString::fromUtf8(f.readLine()).section(QLatin1Char('#'), 0, 0).trimmed();
                const QStringList fields = line.split(space, Qt::SkipEmptyParts);
                quint32 ip;
                if (fields.size() < 2 || !parseIpv4(fields.at(0), &ip))
                    continue;
                for (qsizetype i = 1; i < fields.size(); ++i)
                    m_hosts.insert(normalizeHost(fields.at(i)), ip);
            }
        }
    }
    const auto it = m_hosts.constFind(normalizeHost(name));
    return it == m_hosts.constEnd() ? std::nullopt : std::optional<quint32>(*it);
}

void UpstreamResolver::resolve(const QString &name, std::function<void(quint32, QString)> done)
{
    if (const auto ip = fromHostsFile(name)) {
        done(*ip, QString());
        return;
    }
    // Numeric and single-label names become addresses (or LAN lookups) without DNS: never asked.
    if (const QString refused = refusedName(name); !refused.isEmpty()) {
        done(0, refused);
        return;
    }
    // getaddrinfo blocks: never on the proxy's loop.
    std::thread([name, done = std::move(done)] {
        addrinfo hints{};
        hints.ai_family = AF_INET;
        hints.ai_socktype = SOCK_STREAM;
        addrinfo *result = nullptr;
        const QByteArray ascii = name.toLatin1();
        const int rc = ::getaddrinfo(ascii.constData(), nullptr, &hints, &result);
        if (rc != 0 || !result) {
            done(0, QString::fromLocal8Bit(gai_strerror(rc)));
            return;
        }
        const quint32 ip = ntohl(reinterpret_cast<sockaddr_in *>(result->ai_addr)->sin_addr.s_addr);
        ::freeaddrinfo(result);
        done(ip, QString());
    }).detach();
}

} // namespace airlock
