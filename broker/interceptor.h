#pragma once
// The intercepting relay for hosts a sandbox's secrets are bound to.
// The transparent proxy (egress) accepts the guest's TCP flow, peeks the ClientHello, decides
// the flow is allowed, sees (needsInterception) that a secret is bound to the name, and hands
// the connected socket over with the bytes it already read. From there, on a worker of a
// bounded pool, this:
//   1. terminates the guest's TLS with a leaf minted by the sandbox's CA (ALPN: http/1.1 only);
//   2. connects upstream and verifies it fully (system roots + AIRLOCK_UPSTREAM_CA, host name)
//      before a single request byte is sent; a failure answers 502 and sends nothing;
//   3. for EVERY request of the keep-alive connection: parses the head, swaps the placeholder
//      for the real value in the header the secret's template names, refuses upgrades
//      (websocket), relays the body unchanged (Content-Length or chunked) and the response back;
//   4. blocks a request whose URL or body carries a placeholder, or whose headers carry one
//      of a secret not bound to this host (403 naming the reason + an "alert" event);
//   5. with the vault locked, answers 403 "the Airlock vault is locked";
//   6. refuses what a strict server and a lax one could read differently: bare LF line ends
//      (head and chunk lines), absolute-form targets, CONNECT, TRACE, a Host other than the
//      TLS name or none, Transfer-Encoding with Content-Length, anything but exactly chunked.
// Threads: at most maxWorkers workers serve connections that have bytes to handle. A connection
// waiting for the guest (its handshake, or the next request on keep-alive) is parked on one
// epoll thread and holds no worker; one sandbox gets at most maxWorkersPerSandbox workers, so
// a guest holding slow connections delays only itself. Every wait is bounded (the handshake
// and each request head by headerTimeoutMs, each read or write by idleTimeoutMs). When no
// worker can take a new flow (the queue is full, or no worker thread could be started) the
// flow is refused with a reset and an event that says why; the process never dies of it.
#include "core/result.h"
#include "requestdecider.h"

#include <QByteArray>
#include <QHostAddress>
#include <QString>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <openssl/types.h>
#include <set>
#include <thread>
#include <vector>

namespace airlock {

class EpollLoop;
class InterceptedConnection;
class Vault;

struct UpstreamAddress {
    QString host;          // the name to verify the certificate against (the flow's SNI)
    QHostAddress address;  // where to connect
    quint16 port = 443;
};

// One event per request (or per connection when it failed before any request).
struct InterceptEvent {
    QString sandbox;
    QString host;
    quint16 port = 0;
    QString method;
    QString path;
    bool allowed = false;
    qint64 rule = 0;       // the rule that decided the request (a flow decided per request), else 0
    qint64 eventId = 0;    // the record of a request that was asked about (RequestAsking::ask), else 0: a new one
    QString reason;        // why denied, or "" when allowed
    qint64 bytesUp = 0;    // request bytes sent upstream
    qint64 bytesDown = 0;  // response bytes sent to the guest
    QString alertKind;     // "exfiltration" (a placeholder went where it must not), "vault_locked"; else ""
    QString alertMessage;
    std::optional<GuestProcess> process; // the guest's report on the flow's socket, if it came
};

class Interceptor {
public:
    struct Options {
        QString extraCaFile;         // AIRLOCK_UPSTREAM_CA (tests); empty: system roots only
        int idleTimeoutMs = 60000;   // a keep-alive connection idle this long is closed; also per read/write
        int headerTimeoutMs = 10000; // the TLS handshake, and each request head once begun, within this
        int connectTimeoutMs = 10000;
        qint64 bufferedBodyLimit = 256 * 1024; // bodies up to this are checked whole before sending
        int maxWorkers = 64;              // threads serving connections, started as needed
        int maxWorkersPerSandbox = 16;    // one sandbox never holds more of them
        int maxQueued = 256;              // new flows waiting for a worker, all sandboxes together
        int maxQueuedPerSandbox = 32;     // ... and of one sandbox
        int maxConnections = 8192;        // open intercepted connections (parked ones too)
        int lingerMs = 20;                // a worker waits this long for the next request before parking
        // How a worker thread is started; tests make it fail. Empty: std::thread.
        std::function<std::thread(std::function<void()>)> startThread;
    };
    // Called on workers, the parker, or (for a refused flow) the caller of handle().
    using EventSink = std::function<void(const InterceptEvent &)>;

    Interceptor(Vault &vault, Options options, EventSink sink);
    ~Interceptor(); // shuts every connection down and joins the workers

    Status init();  // builds the TLS contexts (fails clearly on an unreadable CA file)
    // Decides each request of a flow handed over with perRequest; set before the first flow.
    // Without one, such requests are refused.
    void setRequestDecider(RequestDecider decider) { m_requestDecider = std::move(decider); }
    // Asks the person about a request no rule answers; its worker waits for the answer (the
    // hold timeout bounds it, or the guest closing). Without it such a request is refused.
    void setRequestAsking(RequestAsking asking) { m_requestAsking = std::move(asking); }

    // Does a flow of `sandbox` to `host` need interception? Yes where a borrowed secret is
    // bound to the host, and for a flow whose requests rules decide (`perRequest`) where the
    // sandbox's CA may speak for the host (Vault::caHosts): the guest trusts no other leaf.
    bool needsInterception(const QString &sandbox, const QString &host, bool perRequest = false);

    // For flows the proxy relays itself (plain HTTP, pass-through): the secret whose placeholder
    // `bytes` carry, if any. The caller blocks the flow and raises an "exfiltration" alert.
    std::optional<QString> placeholderOwner(const QString &sandbox, QByteArrayView bytes);

    // Takes ownership of `guestFd` (connected, blocking or not) and queues it for a worker;
    // returns at once. `done` runs exactly once, on any thread, when the flow has ended or was
    // refused (the transparent proxy keeps the flow's slot until then).
    // `perRequest`: every request is decided by the RequestDecider before it goes upstream.
    // `whoAsks`: the guest's report on the flow's socket, put on each request's record.
    void handle(int guestFd, const QString &sandbox, const QString &sni, const QByteArray &alreadyRead,
                const UpstreamAddress &upstream, bool perRequest = false, std::function<void()> done = {},
                GuestProcessLookup whoAsks = {});

    // Ends every connection of `sandbox` (it stopped, or went back to a checkpoint): their
    // sockets are shut down, which wakes whatever serves or parks them; each ends as a guest
    // that hung up would. Returns at once.
    void endSandbox(const QString &sandbox);

    int activeConnections() const { return m_active.load(); }
    int workerThreads();

private:
    friend class InterceptedConnection;
    using Connection = std::unique_ptr<InterceptedConnection>;
    bool track(int fd, const QString &sandbox);
    void untrack(int fd);
    void connectionEnded();
    QString admit(const QString &sandbox); // "" or why a new flow cannot be queued (m_mutex held)
    bool startWorker(QString *why);        // m_mutex held
    bool ensureWorker(QString *why);       // m_mutex held
    void workerLoop();
    Connection nextJob(std::unique_lock<std::mutex> &lock); // waits; null when stopping
    void park(Connection connection);
    void expireParked();

    Vault &m_vault;
    Options m_options;
    EventSink m_sink;
    RequestDecider m_requestDecider;
    RequestAsking m_requestAsking;
    SSL_CTX *m_serverCtx = nullptr;
    SSL_CTX *m_clientCtx = nullptr;
    std::atomic<int> m_active{0};
    std::mutex m_mutex;
    std::condition_variable m_idle;
    std::condition_variable m_work;
    std::map<int, QString> m_fds; // open sockets (guest and upstream) -> their sandbox
    bool m_stopping = false;
    // The pool (m_mutex):
    std::vector<std::thread> m_workers;
    int m_idleWorkers = 0;
    std::deque<Connection> m_queue;
    std::map<QString, int> m_busy;       // sandbox -> workers serving it
    std::map<QString, int> m_newQueued;  // sandbox -> new flows in m_queue
    int m_newQueuedTotal = 0;
    // Parked connections (the parker's thread only):
    std::unique_ptr<EpollLoop> m_parker;
    std::map<int, Connection> m_parked;  // by guest fd
};

} // namespace airlock
