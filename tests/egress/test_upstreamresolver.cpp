// The upstream resolver's bounds with a real resolver that never answers: the test's own
// network namespace holds the nameserver address of /etc/resolv.conf on its loopback, where
// a UDP socket takes the queries and answers none, so the lookup threads really wait inside
// getaddrinfo. Past its bounds a lookup is refused at once with the reason, and destroying
// the resolver leaves no lookup thread behind (every `done` has run when it returns).
#include "netns.h"
#include "upstreamresolver.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTest>
#include <arpa/inet.h>
#include <atomic>
#include <memory>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace airlock;
using namespace airlock::test;

namespace {

// The first nameserver glibc will ask (127.0.0.1 when resolv.conf names none).
QString firstNameserver()
{
    QFile f(QStringLiteral("/etc/resolv.conf"));
    if (f.open(QIODevice::ReadOnly)) {
        static const QRegularExpression line(QStringLiteral("^\\s*nameserver\\s+(\\d+\\.\\d+\\.\\d+\\.\\d+)\\s*$"),
                                             QRegularExpression::MultilineOption);
        const QRegularExpressionMatch m = line.match(QString::fromLatin1(f.readAll()));
        if (m.hasMatch())
            return m.captured(1);
    }
    return QStringLiteral("127.0.0.1");
}

// What the lookups were told, counted from any thread.
struct Answers {
    std::mutex mutex;
    int count = 0;
    QStringList reasons;
    UpstreamResolver::Done done()
    {
        return [this](quint32, const QString &why) {
            std::lock_guard lock(mutex);
            ++count;
            reasons.append(why);
        };
    }
    int answered()
    {
        std::lock_guard lock(mutex);
        return count;
    }
};

} // namespace

class TestUpstreamResolver : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void lookupsPastTheBoundsAreRefusedAtOnce();

private:
    // Waits until `n` lookups (distinct source ports) have asked the silent nameserver.
    bool queriesArrived(int n);

    QString m_ns;
    int m_dns = -1; // the nameserver that never answers
};

void TestUpstreamResolver::initTestCase()
{
    if (::geteuid() != 0)
        QFAIL("test_upstreamresolver needs root: it creates a network namespace (run ctest as root)");
    m_ns = QStringLiteral("alk-ur-") + QString::number(::getpid());
    QVERIFY(run(QStringLiteral("ip"), {QStringLiteral("netns"), QStringLiteral("add"), m_ns}) == 0);
    QVERIFY2(enter(m_ns), "cannot enter the test's namespace"); // the lookup threads start in it too
    QVERIFY(run(QStringLiteral("ip"), {QStringLiteral("link"), QStringLiteral("set"), QStringLiteral("lo"), QStringLiteral("up")}) == 0);
    const QString server = firstNameserver();
    if (!server.startsWith(QStringLiteral("127.")))
        QVERIFY(run(QStringLiteral("ip"), {QStringLiteral("addr"), QStringLiteral("add"), server + QStringLiteral("/32"),
                                           QStringLiteral("dev"), QStringLiteral("lo")}) == 0);
    m_dns = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    QVERIFY(m_dns >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(53);
    QVERIFY(::inet_pton(AF_INET, server.toLatin1().constData(), &a.sin_addr) == 1);
    QVERIFY2(::bind(m_dns, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0, qPrintable(server));
}

void TestUpstreamResolver::cleanupTestCase()
{
    if (m_dns >= 0)
        ::close(m_dns);
    if (!m_ns.isEmpty())
        run(QStringLiteral("ip"), {QStringLiteral("netns"), QStringLiteral("del"), m_ns});
}

bool TestUpstreamResolver::queriesArrived(int n)
{
    QSet<quint16> ports;
    QElapsedTimer t;
    t.start();
    while (ports.size() < n && t.elapsed() < 10000) {
        pollfd p{m_dns, POLLIN, 0};
        if (::poll(&p, 1, 200) <= 0)
            continue;
        char buffer[512];
        sockaddr_in from{};
        socklen_t len = sizeof from;
        if (::recvfrom(m_dns, buffer, sizeof buffer, 0, reinterpret_cast<sockaddr *>(&from), &len) > 0)
            ports.insert(ntohs(from.sin_port));
    }
    return ports.size() >= n;
}

void TestUpstreamResolver::lookupsPastTheBoundsAreRefusedAtOnce()
{
    Answers answers;
    auto resolver = std::make_unique<UpstreamResolver>();
    const auto name = [](int i) { return QStringLiteral("slow%1.example.com").arg(i); };
    // Every lookup thread waits on the silent nameserver...
    for (int i = 0; i < UpstreamResolver::kLookupThreads; ++i)
        resolver->resolve(name(i), answers.done(), QStringLiteral("busy%1").arg(i));
    QVERIFY2(queriesArrived(UpstreamResolver::kLookupThreads), "the lookups never reached the test's nameserver");
    // ...and the queue fills to its bound, no owner past its own.
    const int owners = UpstreamResolver::kMaxWaiting / UpstreamResolver::kMaxWaitingPerOwner;
    for (int o = 0; o < owners; ++o)
        for (int i = 0; i < UpstreamResolver::kMaxWaitingPerOwner; ++i)
            resolver->resolve(name(1000 + o * 100 + i), answers.done(), QStringLiteral("owner%1").arg(o));
    QCOMPARE(answers.answered(), 0);

    // One more of a full owner: refused at once, with the owner's bound as the reason.
    resolver->resolve(name(1), answers.done(), QStringLiteral("owner0"));
    QCOMPARE(answers.answered(), 1);
    QVERIFY2(answers.reasons.last().contains(QStringLiteral("32 lookups of this sandbox")), qPrintable(answers.reasons.last()));
    // One more of a new owner: refused at once, the queue being full.
    resolver->resolve(name(2), answers.done(), QStringLiteral("newcomer"));
    QCOMPARE(answers.answered(), 2);
    QVERIFY2(answers.reasons.last().contains(QStringLiteral("256 lookups already wait")), qPrintable(answers.reasons.last()));

    // Destroying the resolver answers the queued lookups and waits for the running ones:
    // no lookup thread is left to call `done` later.
    QElapsedTimer t;
    t.start();
    resolver.reset();
    const int total = UpstreamResolver::kLookupThreads + UpstreamResolver::kMaxWaiting + 2;
    QCOMPARE(answers.answered(), total);
    QVERIFY2(t.elapsed() < 60000, "the lookups under way took longer than the resolver's own timeout");
    int stopping = 0;
    for (const QString &why : std::as_const(answers.reasons))
        stopping += why.contains(QStringLiteral("the broker is stopping"));
    QCOMPARE(stopping, UpstreamResolver::kMaxWaiting);
}

QTEST_GUILESS_MAIN(TestUpstreamResolver)
#include "test_upstreamresolver.moc"
