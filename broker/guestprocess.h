#pragma once
// Which guest process opened a connection, as the guest's helper (airlock-procwatch, in the
// images) reports it on its virtio-serial port org.airlock.proc.0. The guest is the adversary:
// this is its claim, shown as "the guest reports", never read by a rule or a decision, and
// its absence never holds a flow. Everything here is bounded: the line reader, each field,
// the table of sockets per sandbox and the bytes a sandbox may send per second.
//
// One report per line, tab-separated, printable ASCII only:
//   v2 PROTO LPORT RADDR RPORT PID PPID COMM PARENT CMDLINE CHAIN
// PROTO tcp|udp, RADDR an IPv4 address in dotted form (what the guest dialled), COMM and
// PARENT the process's and its parent's names (at most 16 bytes), CMDLINE at most 256 bytes,
// CHAIN the ancestors' names below PID 1, oldest first, the parent last, '>'-separated (at
// most 8). A v1 line (older images' helper) is the same without CHAIN.
#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>

namespace airlock {

struct GuestProcess {
    qint64 pid = 0;
    qint64 ppid = 0;
    QString comm;
    QString parent;  // the parent's comm
    QString cmdline; // arguments joined by spaces, truncated by the guest
    QStringList chain; // the ancestors' comms, oldest first, ending with the parent; empty from a v1 helper
    bool operator==(const GuestProcess &) const = default;

    // The stored form (egress_events.guest_process): compact JSON; "" for none.
    static QString toStored(const std::optional<GuestProcess> &p);
    static std::optional<GuestProcess> fromStored(const QString &text);
};

// The guest's report on one of its sockets, looked up when asked (it may come after the
// socket opened); nullopt while there is none. Called on whichever thread serves the flow.
using GuestProcessLookup = std::function<std::optional<GuestProcess>()>;

struct GuestSocketReport {
    bool udp = false;
    quint16 localPort = 0;
    quint32 remoteIp = 0; // host order
    quint16 remotePort = 0;
    GuestProcess process;
};

namespace guestprocess {

constexpr qsizetype kMaxLine = 512;
constexpr qsizetype kMaxComm = 16;
constexpr qsizetype kMaxCmdline = 256;
constexpr qsizetype kMaxChain = 8; // ancestors

// One line without its newline. nullopt for anything that is not exactly a report.
std::optional<GuestSocketReport> parseLine(QByteArrayView line);

// Splits a byte stream into lines of at most kMaxLine; a longer line is skipped up to its
// newline and counted as junk, as is a line parseLine refuses.
class LineReader {
public:
    template <typename F>
    void feed(QByteArrayView bytes, F &&onReport)
    {
        for (char c : bytes) {
            if (c == '\n') {
                if (m_skipping)
                    ++m_junk;
                else if (auto r = parseLine(m_line))
                    onReport(*r);
                else
                    ++m_junk;
                m_line.clear();
                m_skipping = false;
            } else if (!m_skipping) {
                if (m_line.size() >= kMaxLine) {
                    m_line.clear();
                    m_skipping = true;
                } else {
                    m_line.append(c);
                }
            }
        }
    }
    qint64 junk() const { return m_junk; }

private:
    QByteArray m_line;
    bool m_skipping = false;
    qint64 m_junk = 0;
};

} // namespace guestprocess

// The last reports of every sandbox, keyed by the guest's socket (protocol, local port,
// remote address and port). Fed by the channel reader's thread, read by the proxy's loop.
class GuestProcessTable {
public:
    using Clock = std::chrono::steady_clock;
    struct Limits {
        qsizetype maxSockets = 4096;      // per sandbox; the oldest go first
        std::chrono::seconds keep{60};    // a report older than this is forgotten
        qint64 bytesPerSecond = 256 * 1024; // per sandbox; the reader waits past it (backpressure)
    };
    GuestProcessTable() = default;
    explicit GuestProcessTable(Limits limits) : m_limits(limits) {}

    // Bytes from the sandbox's channel, in order. Returns how long the caller should wait
    // before reading more from this sandbox (zero while under its byte budget).
    std::chrono::milliseconds feed(const QString &sandbox, QByteArrayView bytes, Clock::time_point now = Clock::now());
    void add(const QString &sandbox, const GuestSocketReport &report, Clock::time_point now = Clock::now());
    std::optional<GuestProcess> find(const QString &sandbox, bool udp, quint16 localPort, quint32 remoteIp, quint16 remotePort,
                                     Clock::time_point now = Clock::now()) const;
    // The sandbox stopped: its reports and its partial line go.
    void forget(const QString &sandbox);

    struct Stats {
        qint64 reports = 0;
        qint64 junk = 0;
        qsizetype sockets = 0;
    };
    Stats stats(const QString &sandbox) const;

private:
    struct Entry {
        quint64 seq = 0; // which report: the order's entry for an older one leaves it alone
        Clock::time_point at;
        GuestProcess process;
    };
    struct Ordered {
        bool udp;
        quint64 key;
        quint64 seq;
        Clock::time_point at;
    };
    struct Sandbox {
        guestprocess::LineReader reader;
        QHash<quint64, Entry> byKey[2]; // [udp]
        std::deque<Ordered> order;      // oldest first; may name sockets reported again since
        quint64 nextSeq = 0;
        Clock::time_point windowStart;
        qint64 windowBytes = 0;
        qint64 reports = 0;
        qsizetype sockets() const { return byKey[0].size() + byKey[1].size(); }
    };
    static quint64 keyOf(quint16 localPort, quint32 remoteIp, quint16 remotePort);
    void addLocked(Sandbox &s, const GuestSocketReport &report, Clock::time_point now);
    static void popOldest(Sandbox &s);
    void expire(Sandbox &s, Clock::time_point now);

    Limits m_limits;
    mutable std::mutex m_mutex;
    QHash<QString, Sandbox> m_sandboxes;
};

} // namespace airlock
