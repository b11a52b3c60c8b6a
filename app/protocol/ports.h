#pragma once
// Exposed guest ports: the host's loopback reaches a port in the guest (port.*, topic "port").
#include "protocol/payload.h"

namespace airlock::proto {

// port.expose params; host_port 0 or absent: the guest's number when free, else any.
struct PortExposeParams {
    QString sandbox;
    int guestPort = 0;
    int hostPort = 0;
    static void fields(auto &s, auto &f) { f("sandbox", s.sandbox)("guest_port", s.guestPort)("host_port", s.hostPort, Defaulted); }
    AIRLOCK_PAYLOAD(PortExposeParams)
};

// port.unexpose params.
struct PortRef {
    QString sandbox;
    int guestPort = 0;
    static void fields(auto &s, auto &f) { f("sandbox", s.sandbox)("guest_port", s.guestPort); }
    AIRLOCK_PAYLOAD(PortRef)
};

// A port.list row, port.expose's result, and an item of a "port" event.
struct ExposedPortInfo {
    QString sandbox;
    int guestPort = 0;
    int hostPort = 0;
    QString address = QStringLiteral("127.0.0.1");
    bool listening = false; // false while the sandbox is stopped, or when another program holds the port
    QString error;          // why it is not listening although the sandbox runs
    int connections = 0;    // open right now
    qint64 bytesToGuest = 0;
    qint64 bytesFromGuest = 0;
    static void fields(auto &s, auto &f)
    {
        f("sandbox", s.sandbox)("guest_port", s.guestPort)("host_port", s.hostPort)("address", s.address);
        f("listening", s.listening)("error", s.error, Omitted)("connections", s.connections, Defaulted);
        f("bytes_to_guest", s.bytesToGuest, Defaulted)("bytes_from_guest", s.bytesFromGuest, Defaulted);
    }
    AIRLOCK_PAYLOAD(ExposedPortInfo)
};

// Topic "port": a sandbox's exposed ports changed (all of them, as port.list would give).
struct PortsChanged {
    QString sandbox;
    QList<ExposedPortInfo> ports;
    static void fields(auto &s, auto &f) { f("sandbox", s.sandbox)("ports", s.ports); }
    AIRLOCK_PAYLOAD(PortsChanged)
};

} // namespace airlock::proto
