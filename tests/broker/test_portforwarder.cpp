// The relay of exposed guest ports (broker/portforwarder.h) with real sockets on loopback:
// a "guest" server on 127.0.0.1 stands in for the guest's address (the nftables side is
// test_egress's). Bytes both ways, half-closes, a guest that refuses, the per-port bound,
// a port another program holds, and listeners that follow the sandbox's list.
#include "portforwarder.h"

#include <QTest>
#include <atomic>
#include <cerrno>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace airlock;

namespace {

constexpr quint32 kLoopback = 0x7f000001;

int listenOn(quint16 *port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(kLoopback);
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0) {
        ::close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

quint16 freePort()
{
    quint16 port = 0;
    const int fd = listenOn(&port);
    ::close(fd);
    return port;
}

int dial(quint16 port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(kLoopback);
    a.sin_port = htons(port);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool sendAll(int fd, const QByteArray &bytes)
{
    qsizetype sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n = ::send(fd, bytes.constData() + sent, size_t(bytes.size() - sent), MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        sent += n;
    }
    return true;
}

// Reads until the peer ends its side (or 10 s of silence).
QByteArray readToEnd(int fd)
{
    QByteArray all;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0)
            return all;
        all.append(buffer, n);
    }
}

// The guest's server: each connection gets "guest:" + everything it sent, after the
// client ended its side; the server then ends its own.
class EchoGuest {
public:
    bool start()
    {
        m_fd = listenOn(&m_port);
        if (m_fd < 0)
            return false;
        m_thread = std::thread([this] {
            for (;;) {
                const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
                if (c < 0)
                    return;
                ++m_accepted;
                std::thread([c] {
                    const QByteArray got = readToEnd(c);
                    sendAll(c, "guest:" + got);
                    ::close(c);
                }).detach();
            }
        });
        return true;
    }
    ~EchoGuest()
    {
        ::shutdown(m_fd, SHUT_RDWR);
        ::close(m_fd);
        if (m_thread.joinable())
            m_thread.join();
    }
    quint16 port() const { return m_port; }
    int accepted() const { return m_accepted; }

private:
    int m_fd = -1;
    quint16 m_port = 0;
    std::thread m_thread;
    std::atomic<int> m_accepted{0};
};

SandboxNet netWith(QList<ExposedPort> ports)
{
    SandboxNet net;
    net.name = QStringLiteral("dev");
    net.guestIp = kLoopback;
    net.exposed = std::move(ports);
    return net;
}

} // namespace

class TestPortForwarder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void bytesGoBothWaysAndEndsArePassedOn();
    void aGuestThatRefusesClosesTheConnection();
    void theListenersFollowTheSandboxList();
    void aPortAnotherProgramHoldsIsAnError();
    void connectionsPerPortAreBounded();
};

void TestPortForwarder::initTestCase()
{
    if (::geteuid() != 0)
        QFAIL("test_portforwarder needs root: the relay marks its sockets (SO_MARK needs CAP_NET_ADMIN)");
}

void TestPortForwarder::bytesGoBothWaysAndEndsArePassedOn()
{
    EchoGuest guest;
    QVERIFY(guest.start());
    PortForwarder forwarder;
    forwarder.start();
    const quint16 host = freePort();
    QVERIFY(forwarder.apply(netWith({{guest.port(), host}})));

    // 8 MiB through 64 KiB buffers: many fills and drains each way.
    QByteArray big(8 << 20, Qt::Uninitialized);
    for (qsizetype i = 0; i < big.size(); ++i)
        big[i] = char((i * 7919) >> 3);
    const int c = dial(host);
    QVERIFY(c >= 0);
    QVERIFY(sendAll(c, big));
    ::shutdown(c, SHUT_WR); // the guest answers only once it has seen the end
    const QByteArray back = readToEnd(c);
    ::close(c);
    QCOMPARE(back.size(), big.size() + 6);
    QVERIFY(back == "guest:" + big);

    QTRY_VERIFY_WITH_TIMEOUT(forwarder.state(QStringLiteral("dev")).value(0).bytesToGuest == big.size(), 5000);
    const PortForwarder::PortState s = forwarder.state(QStringLiteral("dev")).value(0);
    QVERIFY(s.listening);
    QCOMPARE(s.bytesFromGuest, big.size() + 6);
    QTRY_COMPARE_WITH_TIMEOUT(forwarder.state(QStringLiteral("dev")).value(0).connections, 0, 5000);
}

void TestPortForwarder::aGuestThatRefusesClosesTheConnection()
{
    PortForwarder forwarder;
    forwarder.start();
    const quint16 host = freePort();
    QVERIFY(forwarder.apply(netWith({{freePort(), host}}))); // nothing listens in the "guest"
    const int c = dial(host);
    QVERIFY(c >= 0); // the host side is accepted at once...
    QVERIFY(sendAll(c, "hello"));
    QCOMPARE(readToEnd(c), QByteArray()); // ...and closed when the guest refuses
    ::close(c);
}

void TestPortForwarder::theListenersFollowTheSandboxList()
{
    EchoGuest guest;
    QVERIFY(guest.start());
    PortForwarder forwarder;
    forwarder.start();
    const quint16 host = freePort();
    QVERIFY(forwarder.apply(netWith({{guest.port(), host}})));

    // An open connection survives an apply that keeps its port.
    const int kept = dial(host);
    QVERIFY(kept >= 0);
    QVERIFY(sendAll(kept, "one"));
    EchoGuest other;
    QVERIFY(other.start());
    const quint16 second = freePort();
    QVERIFY(forwarder.apply(netWith({{guest.port(), host}, {other.port(), second}})));
    const int added = dial(second);
    QVERIFY(added >= 0);
    ::shutdown(added, SHUT_WR);
    QCOMPARE(readToEnd(added), QByteArray("guest:"));
    ::close(added);
    QVERIFY(forwarder.apply(netWith({{guest.port(), host}})));
    QCOMPARE(dial(second), -1); // left out of the list: closed
    ::shutdown(kept, SHUT_WR);
    QCOMPARE(readToEnd(kept), QByteArray("guest:one"));
    ::close(kept);
    QCOMPARE(other.accepted(), 1);

    // Moved to another host port: the old one is closed, the new one relays.
    const quint16 moved = freePort();
    QVERIFY(forwarder.apply(netWith({{guest.port(), moved}})));
    QCOMPARE(dial(host), -1);
    const int c = dial(moved);
    QVERIFY(c >= 0);
    ::shutdown(c, SHUT_WR);
    QCOMPARE(readToEnd(c), QByteArray("guest:"));
    ::close(c);

    // The guest stops: nothing listens and open connections are cut.
    const int open = dial(moved);
    QVERIFY(open >= 0);
    QTRY_COMPARE_WITH_TIMEOUT(forwarder.state(QStringLiteral("dev")).value(0).connections, 1, 5000);
    forwarder.drop(QStringLiteral("dev"));
    QCOMPARE(readToEnd(open), QByteArray());
    ::close(open);
    QCOMPARE(dial(moved), -1);
    QVERIFY(forwarder.state(QStringLiteral("dev")).isEmpty());

    // reconcile: what runs gets its listeners, what does not loses them.
    forwarder.reconcile({netWith({{guest.port(), host}})});
    const int again = dial(host);
    QVERIFY(again >= 0);
    ::close(again);
    forwarder.reconcile({});
    QCOMPARE(dial(host), -1);
}

void TestPortForwarder::aPortAnotherProgramHoldsIsAnError()
{
    quint16 held = 0;
    const int other = listenOn(&held);
    QVERIFY(other >= 0);
    PortForwarder forwarder;
    forwarder.start();
    const quint16 free = freePort();
    Status s = forwarder.apply(netWith({{8080, held}, {8081, free}}));
    QVERIFY(!s);
    QVERIFY2(s.error().message().contains(QStringLiteral("127.0.0.1:%1").arg(held)), qPrintable(s.error().message()));
    QVERIFY(s.error().message().contains(QLatin1String("in use")));
    const QList<PortForwarder::PortState> state = forwarder.state(QStringLiteral("dev"));
    QCOMPARE(state.size(), 2);
    QVERIFY(!state.at(0).listening);
    QVERIFY(state.at(0).error.contains(QLatin1String("in use")));
    QVERIFY(state.at(1).listening); // the other port is open all the same
    ::close(other);
}

void TestPortForwarder::connectionsPerPortAreBounded()
{
    EchoGuest guest;
    QVERIFY(guest.start());
    PortForwarder::Limits limits;
    limits.maxConnectionsPerPort = 3;
    PortForwarder forwarder(limits);
    forwarder.start();
    const quint16 host = freePort();
    QVERIFY(forwarder.apply(netWith({{guest.port(), host}})));
    std::vector<int> open;
    for (int i = 0; i < 3; ++i) {
        open.push_back(dial(host));
        QVERIFY(open.back() >= 0);
    }
    QTRY_COMPARE_WITH_TIMEOUT(forwarder.state(QStringLiteral("dev")).value(0).connections, 3, 5000);
    const int extra = dial(host);
    QVERIFY(extra >= 0);
    QCOMPARE(readToEnd(extra), QByteArray()); // closed at once, never relayed
    ::close(extra);
    QTRY_COMPARE_WITH_TIMEOUT(guest.accepted(), 3, 5000);
    for (int fd : open)
        ::close(fd);
}

QTEST_GUILESS_MAIN(TestPortForwarder)
#include "test_portforwarder.moc"
