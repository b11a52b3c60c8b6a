#pragma once
// Test helpers: network namespaces the test makes (and removes), commands run in them, and
// code run on a thread that has entered one.
#include <QString>
#include <QStringList>
#include <functional>

namespace airlock::test {

// Runs a program, waits (serving the Qt event loop meanwhile); returns its exit code or -1.
int run(const QString &program, const QStringList &args, QByteArray *out = nullptr, int timeoutMs = 30000,
        QByteArray *err = nullptr);
// `ip netns exec NS argv...`
int runIn(const QString &ns, const QStringList &argv, QByteArray *out = nullptr, int timeoutMs = 30000);
// Moves the calling thread (and the threads it starts later) into namespace `ns`.
bool enter(const QString &ns);
// Runs `work` on a new thread inside namespace `ns` and waits for it.
void inNamespace(const QString &ns, const std::function<void()> &work);

// Empty when this process may run a VM test; otherwise what is missing and how to fix it. A
// VM test needs root (`rootFor` says for what), AIRLOCKCTL_BIN (ctest sets it) and a network
// namespace of its own, never the host's (`ctestFilter` picks the test for the hint).
QString missingVmTestPrerequisite(const QString &test, const QString &rootFor, const QString &ctestFilter);

// An address on this namespace's own loopback. NOT an "outside" for the broker: an address of
// airlockd's own namespace is the host itself, which it never dials unless an address rule
// opens it (use OutsideNamespace). One an earlier run left behind is taken over.
class LoopbackAddress {
public:
    bool add(const QString &ipv4, QString *error);
    void remove();

private:
    QString m_ip;
};

// "The internet" of a VM test: a namespace of its own with one address on its loopback, reached
// from the calling namespace over a veth pair (transfer net linkNet/30) and a host route, so a
// guest's traffic to it leaves through the real forwarding path and never leaves the machine.
class OutsideNamespace {
public:
    // `tag` (a few letters) keeps the names of concurrent tests apart; linkNet is like "192.0.2.4".
    bool create(const QString &tag, const QString &outsideIp, const QString &linkNet, QString *error);
    // Removes route, veth pair and namespace; stop the servers in it first.
    void remove();
    QString name() const { return m_ns; }

private:
    QString m_ns;
    QString m_vethHost;
    QString m_outsideIp;
    bool m_routeAdded = false;
};

} // namespace airlock::test
