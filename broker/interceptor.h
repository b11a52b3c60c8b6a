#pragma once
// The intercepting relay for hosts a sandbox's secrets are bound to (design.md, "Injection").
// The transparent proxy (egress) accepts the guest's TCP flow, peeks the ClientHello, decides
// the flow is allowed, sees (needsInterception) that a secret is bound to the name, and hands
// the connected socket over with the bytes it already read. From there, on the connection's
// own thread, this:
//   1. terminates the guest's TLS with a leaf minted by the sandbox's CA (ALPN: http/1.1 only);
//   2. connects upstream and verifies it fully (system roots + AIRLOCK_UPSTREAM_CA, host name)
//      before a single request byte is sent; a failure answers 502 and sends nothing;
//   3. for EVERY request of the keep-alive connection: parses the head, swaps the placeholder
//      for the real value in the header the secret's template names, refuses upgrades
//      (websocket), relays the body unchanged (Content-Length or chunked) and the response back;
//   4. blocks a request whose URL or body carries a placeholder, or whose headers carry one
//      of a secret not bound to this host (403 naming the reason + an "alert" event);
//   5. with the vault locked, answers 403 "the Airlock vault is locked".
#include "core/result.h"

#include <QByteArray>
#include <QHostAddress>
#include <QString>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <openssl/types.h>
#include <set>

namespace airlock {

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
    QString reason;        // why denied, or "" when allowed
    qint64 bytesUp = 0;    // request bytes sent upstream
    qint64 bytesDown = 0;  // response bytes sent to the guest
    QString alertKind;     // "exfiltration" (a placeholder went where it must not), "vault_locked"; else ""
    QString alertMessage;
};

class Interceptor {
public:
    struct Options {
        QString extraCaFile;         // AIRLOCK_UPSTREAM_CA (tests); empty: system roots only
        int idleTimeoutMs = 60000;   // a keep-alive connection idle this long is closed
        int connectTimeoutMs = 10000;
        qint64 bufferedBodyLimit = 256 * 1024; // bodies up to this are checked whole before sending
    };
    using EventSink = std::function<void(const InterceptEvent &)>; // called on connection threads

    Interceptor(Vault &vault, Options options, EventSink sink);
    ~Interceptor(); // shuts every connection down and waits for their threads

    Status init();  // builds the TLS contexts (fails clearly on an unreadable CA file)

    // Does a flow of `sandbox` to `host` need interception (a borrowed secret is bound to it)?
    bool needsInterception(const QString &sandbox, const QString &host);

    // For flows the proxy relays itself (plain HTTP, pass-through): the secret whose placeholder
    // `bytes` carry, if any. The caller blocks the flow and raises an "exfiltration" alert.
    std::optional<QString> placeholderOwner(const QString &sandbox, QByteArrayView bytes);

    // Takes ownership of `guestFd` (connected, blocking or not) and serves it on a thread of
    // its own; returns at once.
    void handle(int guestFd, const QString &sandbox, const QString &sni, const QByteArray &alreadyRead,
                const UpstreamAddress &upstream);

    int activeConnections() const { return m_active.load(); }

private:
    friend class InterceptedConnection;
    bool track(int fd);
    void untrack(int fd);

    Vault &m_vault;
    Options m_options;
    EventSink m_sink;
    SSL_CTX *m_serverCtx = nullptr;
    SSL_CTX *m_clientCtx = nullptr;
    std::atomic<int> m_active{0};
    std::mutex m_mutex;
    std::condition_variable m_idle;
    std::set<int> m_fds;
    bool m_stopping = false;
};

} // namespace airlock
