#pragma once
// A process without privileges that tries to take one of the broker's ports: a child forked
// from the test drops to an unprivileged user (nobody; created with useradd -r if missing),
// clears its groups and capabilities, binds the port and reports whether anything arrived.
// It lives in the test's network namespace, as any local user's process would.
#include <QString>
#include <sys/types.h>

class Squatter {
public:
    Squatter() = default;
    Squatter(const Squatter &) = delete;
    Squatter &operator=(const Squatter &) = delete;
    ~Squatter();

    // type SOCK_STREAM (then it listens) or SOCK_DGRAM; `shared`: SO_REUSEADDR and
    // SO_REUSEPORT, the most a rogue can ask for. 0 when it holds the port, else the errno of
    // the failed bind (or -1 with *error set when the child could not be made).
    int start(int type, const QString &ipv4, quint16 port, bool shared, QString *error);
    // Whether a connection or datagram reached it so far; ends the child.
    bool heardAnything();
    void stop();

private:
    pid_t m_pid = -1;
    int m_report = -1;  // child -> parent
    int m_control = -1; // parent -> child: "report now"
};
