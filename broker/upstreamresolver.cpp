#include "upstreamresolver.h"
#include "hostpattern.h"
#include "sandboxnet.h"
#include "upstreamaddress.h"

#include <QFile>
#include <QRegularExpression>
#include <arpa/inet.h>
#include <condition_variable>
#include <deque>
#include <netdb.h>
#include <thread>

namespace airlock {

struct UpstreamResolver::Lookups {
    struct Job {
        QString name;
        QString owner;
        Done done;
    };
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<Job> waiting;
    QHash<QString, int> perOwner; // waiting and running lookups of each owner
    bool stopping = false;

    static void run(const std::shared_ptr<Lookups> &self);
};

namespace {

// One blocking getaddrinfo for an IPv4 address.
quint32 lookUp(const QString &name, QString *why)
{
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *result = nullptr;
    const QByteArray ascii = name.toLatin1();
    const int rc = ::getaddrinfo(ascii.constData(), nullptr, &hints, &result);
    if (rc != 0 || !result) {
        *why = QString::fromLocal8Bit(gai_strerror(rc));
        return 0;
    }
    const quint32 ip = ntohl(reinterpret_cast<sockaddr_in *>(result->ai_addr)->sin_addr.s_addr);
    ::freeaddrinfo(result);
    return ip;
}

} // namespace

void UpstreamResolver::Lookups::run(const std::shared_ptr<Lookups> &self)
{
    for (;;) {
        Job job;
        {
            std::unique_lock lock(self->mutex);
            self->wake.wait(lock, [&] { return self->stopping || !self->waiting.empty(); });
            if (self->stopping)
                return;
            job = std::move(self->waiting.front());
            self->waiting.pop_front();
        }
        QString why;
        const quint32 ip = lookUp(job.name, &why);
        {
            std::lock_guard lock(self->mutex);
            if (--self->perOwner[job.owner] <= 0)
                self->perOwner.remove(job.owner);
        }
        job.done(ip, why);
    }
}

UpstreamResolver::UpstreamResolver(QString hostsFile)
    : m_lookups(std::make_shared<Lookups>()), m_hostsFile(std::move(hostsFile))
{
    // Started once, with the daemon: a thread that cannot start fails the start, never a flow.
    for (int i = 0; i < kLookupThreads; ++i)
        m_threads.emplace_back([lookups = m_lookups] { Lookups::run(lookups); });
}

UpstreamResolver::~UpstreamResolver()
{
    std::deque<Lookups::Job> abandoned;
    {
        std::lock_guard lock(m_lookups->mutex);
        m_lookups->stopping = true;
        abandoned.swap(m_lookups->waiting);
    }
    m_lookups->wake.notify_all();
    for (Lookups::Job &job : abandoned)
        job.done(0, QStringLiteral("the broker is stopping"));
    // A thread inside getaddrinfo finishes that lookup (the resolver's own timeout bounds it)
    // and calls its `done`, then ends: no lookup thread outlives the resolver.
    for (std::thread &t : m_threads)
        t.join();
}

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

void UpstreamResolver::resolve(const QString &name, Done done, const QString &owner)
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
    QString refusal;
    {
        std::lock_guard lock(m_lookups->mutex);
        int &ofOwner = m_lookups->perOwner[owner];
        if (m_lookups->stopping)
            refusal = QStringLiteral("the broker is stopping");
        else if (ofOwner >= kMaxWaitingPerOwner)
            refusal = QStringLiteral("%1 lookups of this sandbox are already under way, its limit").arg(kMaxWaitingPerOwner);
        else if (m_lookups->waiting.size() >= size_t(kMaxWaiting))
            refusal = QStringLiteral("%1 lookups already wait for the resolver, its limit").arg(kMaxWaiting);
        if (refusal.isEmpty()) {
            ++ofOwner;
            m_lookups->waiting.push_back({name, owner, std::move(done)});
        } else if (ofOwner == 0) {
            m_lookups->perOwner.remove(owner);
        }
    }
    if (!refusal.isEmpty()) {
        done(0, refusal);
        return;
    }
    m_lookups->wake.notify_one();
}

} // namespace airlock
