#pragma once
#include <QString>

// A listener that a guest must never reach: the test binds it where a leak would land and
// asks afterwards whether anything arrived.
class Sentinel {
public:
    Sentinel() = default;
    Sentinel(const Sentinel &) = delete;
    Sentinel &operator=(const Sentinel &) = delete;
    ~Sentinel();

    // type: SOCK_STREAM or SOCK_DGRAM. `shared`: SO_REUSEADDR; without it the port is taken
    // even from a socket that sets it.
    bool start(int type, const QString &ipv4, quint16 port, bool shared = true);
    // A connection (stream) or a datagram has come in.
    bool heardAnything();

private:
    int m_fd = -1;
    int m_type = 0;
};
