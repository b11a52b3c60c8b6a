#pragma once
// The transparent proxy every guest TCP connection is redirected to (NftRuleset's steer chain).
// For each flow: SO_ORIGINAL_DST gives the address the guest dialled; a synthetic address
// maps back to the name the guest resolved, anything else stays a raw IP. A flow to a name
// is relayed only through a checker for that name (streamcheck.h): every HTTP/1.x request
// head on the connection must name it (httpstreamcheck.h), every TLS ClientHello until the
// handshake settles must carry it as SNI (tlshandshakewatch.h); anything the broker cannot
// verify passes only when the rule allows raw TCP (no domain fronting). A raw IP is decided
// on the IP; its first bytes are peeked. The decider (the policy) says allow, deny or ask. Ask holds only that flow as
// a pending item (identical sandbox+target flows join it) until decide() or the hold
// timeout. Allowed flows are relayed to the real upstream with splice() through pipes;
// denied plain HTTP gets a 403 page that names the host and the rule, anything else a reset.
// Per-sandbox limits (flows, pending items, header time) keep one guest from starving
// others. Everything runs on the proxy's own epoll thread.
#include "core/decision.h"
#include "core/result.h"
#include "egressevent.h"
#include "epollloop.h"
#include "pendingboard.h"
#include "requestdecider.h"
#include "sandboxnet.h"
#include "streamcheck.h"
#include "upstreamaddress.h"

#include <QHash>
#include <QList>
#include <QString>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>

namespace airlock {

class EventLog;
class FlowHandoff;
class GuestProcessTable;
class SyntheticNames;
class UpstreamResolver;

struct FlowTarget {
    QString sandbox;
    QString host;      // "" for a raw IP
    quint32 ip = 0;    // the address the guest dialled (host order)
    quint16 port = 0;
};

struct FlowVerdict {
    Decision decision = Decision::Pending; // Pending: hold the flow and ask
    qint64 rule = 0;
    QString reason;
    // The rule also lets through, to this host:port, what the broker cannot verify: bytes
    // that are neither TLS nor HTTP/1.x, a ClientHello without SNI, a protocol upgrade, a
    // protocol where the server speaks first. Without it a flow decided on a name carries
    // only what its checker (HTTP request heads, TLS ClientHellos) verified for that name.
    bool rawTcp = false;
    // Allowed as a connection, but each request on it is decided alone (a rule names a method,
    // path or git service on this host: Policy::decidesPerRequest). TLS goes to the interceptor
    // (the only relay that reads it); plain HTTP asks the RequestDecider per head.
    bool perRequest = false;
    // With perRequest: the verdict for the connection where its requests cannot be read (TLS
    // to a host not intercepted). Never an allow while a request rule denies.
    std::shared_ptr<const FlowVerdict> unread;
};

class TransparentProxy {
public:
    struct Limits {
        int maxFlows = 512;             // per sandbox: open, held and closing flows together
        int maxPending = 64;            // per sandbox: distinct pending items
        int headerTimeoutMs = 10000;    // the first request bytes must be complete by then
        int firstBytesMs = 250;         // no bytes by then: a server-speaks-first protocol
        int holdTimeoutMs = 120000;     // an unanswered ask is denied after this; 0: held until answered
        int connectTimeoutMs = 10000;
    };
    using Decider = std::function<FlowVerdict(const FlowTarget &)>;
    // Asked once a flow's upstream address is known, with FlowTarget::ip = that address:
    // the address rules only (Policy::decideAddress). Allow opens what UpstreamAddressCheck
    // refuses, Deny closes the flow, Ask leaves it to UpstreamAddressCheck.
    using AddressDecider = std::function<FlowVerdict(const FlowTarget &)>;

    TransparentProxy(SyntheticNames &names, EventLog &events, UpstreamResolver &upstream, quint16 port,
                     Decider decider, Limits limits);
    ~TransparentProxy();

    void start();
    void stop();
    Status attach(const SandboxNet &net);
    void detach(const QString &sandbox);
    // The sandbox's guest was replaced by an earlier one (a checkpoint resumed): its flows
    // and waiting requests belong to a guest that no longer exists. They end, denied with
    // `reason`; the listener stays for the guest that runs now. Returns the items denied.
    int endTimeline(const QString &sandbox, const QString &reason);
    // 0: held until someone answers. Items held now get the new deadline, from when they
    // were first held.
    void setHoldTimeoutMs(int ms);
    // Flows to names a borrowed secret is bound to go there (flowhandoff.h); set before start().
    void setHandoff(FlowHandoff *handoff) { m_handoff = handoff; }
    // Address rules for resolved addresses (see AddressDecider); set before start(). Without
    // one, every address UpstreamAddressCheck refuses stays refused.
    void setAddressDecider(AddressDecider decider) { m_addressDecider = std::move(decider); }
    // Decides each plain-HTTP request of a FlowVerdict::perRequest flow; set before start().
    // Without one such a flow is refused.
    void setRequestDecider(RequestDecider decider) { m_requestDecider = std::move(decider); }
    // What the guests report about their sockets' processes (guestprocess.h): shown on the
    // flows' events, never read by a decision. Set before start().
    void setGuestProcesses(const GuestProcessTable *table) { m_guestProcesses = table; }

    // Pending items (one event per distinct target), optionally of one sandbox. Any thread:
    // read from the PendingBoard, never waiting for the loop.
    QList<EgressEvent> pending(const QString &sandbox = {}) const;
    // The pending item that event `id` belongs to (its own id or a joined flow's); any thread.
    std::optional<EgressEvent> findPending(qint64 id) const;
    // Releases the item on the loop: every flow in it is allowed or denied now (`rawTcp`: as
    // FlowVerdict::rawTcp). Returns at once; `done` runs on the loop, found = false if the
    // item was gone by then.
    void decide(qint64 id, bool allow, qint64 rule, const QString &reason, bool rawTcp, std::function<void(bool found)> done);

    // A request a relay that reads requests holds (RequestAsking, requestdecider.h): a pending
    // item like a held flow's, keyed by sandbox, host, port, method and path, so identical
    // requests join one; decided by decide(), denied at the hold timeout, counted against
    // maxPending. `event` (decision Pending, its id set) is recorded here. `answer` runs once,
    // on the loop. Any thread; returns at once.
    using RequestAnswer = std::function<void(const RequestVerdict &)>;
    void holdRequest(EgressEvent event, RequestAnswer answer);
    // The holder of event `eventId` stopped waiting; the item goes when nobody waits on it.
    void leaveRequest(qint64 eventId);

    // Counters for tests and status.
    struct Stats {
        qint64 flows = 0;
        qint64 open = 0;
        qint64 pendingItems = 0;
    };
    Stats stats() const; // any thread, without waiting for the loop

private:
    // On the loop: every pending item of `sandbox` denied (a held request's worker stops
    // waiting), then every flow of it ended. Returns the items denied.
    int endFlowsOf(const QString &sandbox, const QString &reason);
    struct Pipe {
        int r = -1;
        int w = -1;
        size_t buffered = 0;
        size_t capacity = 65536;
        bool eof = false;
        bool done = false;
    };
    enum class State { Peeking, Held, Resolving, Connecting, Relaying, Closing };
    struct Flow {
        quint64 id = 0;
        quint16 guestPort = 0;    // the guest's source port (its helper reports by it)
        int client = -1;
        int upstream = -1;
        State state = State::Peeking;
        FlowTarget target;
        EgressEvent event;
        std::chrono::steady_clock::time_point started;
        std::chrono::steady_clock::time_point deadline;   // state-specific
        QByteArray head;          // client bytes read before relaying (forwarded first)
        qsizetype headSent = 0;
        bool http = false;        // a complete HTTP head was seen
        bool inspected = false;   // the first bytes were checked
        bool clientEof = false;
        bool handoff = false;     // allowed, and goes to the FlowHandoff once resolved
        qint64 pendingId = 0;
        std::optional<FlowVerdict> verdict; // the decider's answer (asked once) or the person's
        bool rawTcp = false;      // the verdict lets through what cannot be verified
        // A name flow's checker; every guest byte passes it until it is settled.
        std::unique_ptr<StreamCheck> check;
        qsizetype checkFed = 0;   // bytes of `head` the checker has seen
        QString unverified;       // why the first bytes cannot be verified ("" when they can)
        qint64 upRead = 0;        // guest bytes read into user space (the head included)
        Pipe up;                  // client -> upstream
        Pipe down;                // upstream -> client
        // Guest bytes of a checked or scanned flow go through user space: checked (check), and
        // for plain HTTP searched for a placeholder (scanUp) in every later request and body.
        bool userUp = false;
        bool userDown = false;    // upstream bytes too, while the checker reads them
        bool scanUp = false;
        QByteArray upPending;     // read from the guest, not yet sent (front: checked first)
        QByteArray downPending;   // read from the upstream for the checker, not yet sent
        QByteArray scanTail;      // the last bytes searched: a placeholder may straddle reads
    };
    struct PendingItem {
        qint64 id = 0;
        QString key;
        EgressEvent event;
        QList<quint64> flows;
        QList<std::pair<qint64, RequestAnswer>> requests; // held requests: event id, answer
        std::chrono::steady_clock::time_point since; // when it was first held
        std::chrono::steady_clock::time_point deadline; // max(): held until answered
    };
    struct Sandbox {
        SandboxNet net;
        int listener = -1;
        int flows = 0;
        // Flows handed to the FlowHandoff and not ended yet (it counts down from any thread).
        std::shared_ptr<std::atomic<int>> handedOff = std::make_shared<std::atomic<int>>(0);
    };

    void onAccept(const QString &sandbox);
    void onClient(quint64 id, uint32_t events);
    void onUpstream(quint64 id, uint32_t events);
    void readHead(Flow &f);
    // Looks at the head: true when enough was seen to decide (or to deny, which it does).
    bool analyzeHead(Flow &f, bool final);
    bool analyzeRawIpHttp(Flow &f, bool final);
    bool analyzeChecked(Flow &f, bool final, bool tls);
    bool placeholderInHead(Flow &f);
    void awaitFirstBytes(Flow &f);
    void proceed(Flow &f);
    void hold(Flow &f);
    void allow(Flow &f);
    bool admitPerRequest(Flow &f); // false: denied
    void connectUpstream(quint64 id, quint32 ip, const QString &why);
    bool mayDial(Flow &f, quint32 ip); // false: denied, with the reason on record
    void startRelay(Flow &f);
    void pump(Flow &f);
    bool pumpUp(Flow &f, bool mayRead);  // client -> upstream through user space
    bool takeUp(Flow &f, QByteArrayView fresh); // scans and checks what was read
    bool pumpDown(Flow &f);              // upstream -> client while the checker reads it
    bool pumpUser(int from, int to, QByteArray &pending, Pipe &p, qint64 &counter, qint64 &read,
                  const std::function<qsizetype()> &ready, bool mayRead, const std::function<bool(QByteArrayView)> &take);
    void settle(Flow &f);                // back to splicing where the checker is done
    static qsizetype upSendable(const Flow &f);
    bool refuseLater(Flow &f, const QString &reason);
    void updateInterest(Flow &f);
    void deny(Flow &f, const QString &reason, qint64 rule = 0);
    void fail(Flow &f, const QString &reason);
    void finish(Flow &f, bool reset);
    void record(Flow &f);
    // The pending item for `key`, made (with id `firstEventId`) when there is none; null when
    // the sandbox already waits for maxPending items.
    PendingItem *pendingItem(const QString &key, qint64 firstEventId);
    QString waitingReason(const PendingItem &item, qint64 eventId) const;
    QString pendingLimitReason() const;
    void release(PendingItem &item, bool allow, qint64 rule, const QString &reason, bool rawTcp);
    void tick();
    bool forbiddenDestination(quint32 ip) const;
    // Looks the flow's guest process up; true when it was found now.
    bool attribute(Flow &f);
    // Flows whose report came after their event: their event (and pending item) again.
    void attributeLate(std::chrono::steady_clock::time_point now);
    Flow *flow(quint64 id);

    SyntheticNames &m_names;
    EventLog &m_events;
    UpstreamResolver &m_upstream;
    quint16 m_port;
    Decider m_decider;
    FlowHandoff *m_handoff = nullptr;
    AddressDecider m_addressDecider;
    RequestDecider m_requestDecider;
    const GuestProcessTable *m_guestProcesses = nullptr;
    UpstreamAddressCheck m_addresses;
    Limits m_limits;
    EpollLoop m_loop;
    struct Alive;
    std::shared_ptr<Alive> m_alive;           // lets resolver threads post safely
    // Loop thread only:
    QHash<QString, Sandbox> m_sandboxes;
    std::unordered_map<quint64, std::unique_ptr<Flow>> m_flows;
    QHash<QString, PendingItem> m_pending;    // by target key
    QHash<qint64, QString> m_pendingByEvent;  // any member flow's event id -> key
    quint64 m_nextFlow = 1;
    std::chrono::steady_clock::time_point m_lastProgress;
    std::atomic<qint64> m_totalFlows{0};
    std::atomic<qint64> m_openFlows{0};
    PendingBoard m_board; // what pending()/findPending() read from other threads
};

} // namespace airlock
