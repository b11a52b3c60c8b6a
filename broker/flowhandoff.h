#pragma once
// Where the transparent proxy sends flows it must not relay blindly:
// a TLS flow to a name a sandbox's borrowed secret is bound to, or whose requests rules decide
// on a name the sandbox's CA covers, goes to the intercepting relay,
// and plain HTTP carrying a placeholder is refused with an alert. Implemented in app/daemon
// (SecretBridge, secretbridge.h) over the vault's Interceptor so the proxy needs no vault. Called on the
// proxy's epoll thread: every method must return quickly.
#include "guestprocess.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHostAddress>
#include <QString>
#include <functional>
#include <optional>

namespace airlock {

class FlowHandoff {
public:
    virtual ~FlowHandoff() = default;
    // Should an allowed TLS flow of `sandbox` to `host` be intercepted? `perRequest`: rules
    // decide its requests one by one (FlowVerdict::perRequest), which only interception can read.
    virtual bool wants(const QString &sandbox, const QString &host, bool perRequest) = 0;
    // Takes ownership of `guestFd` with the bytes the proxy already read (the ClientHello).
    // `perRequest`: every request is decided alone (FlowVerdict::perRequest). `whoAsks`: the
    // guest's report on the flow's socket, for the requests' records. `done` must run exactly
    // once, on any thread, when the flow has ended or was refused: until then it counts
    // against the sandbox's flow limit.
    virtual void take(int guestFd, const QString &sandbox, const QString &host, const QByteArray &alreadyRead,
                      const QHostAddress &upstream, quint16 port, bool perRequest, GuestProcessLookup whoAsks,
                      std::function<void()> done) = 0;
    // The secret whose placeholder `bytes` carry (a relayed, not intercepted, flow), if any.
    virtual std::optional<QString> placeholderIn(const QString &sandbox, QByteArrayView bytes) = 0;
    // The sandbox stopped or went back to a checkpoint: the flows taken for it end.
    virtual void endFlowsOf(const QString &sandbox) = 0;
    // A placeholder was about to leave towards `host` where it is not bound; the flow is refused.
    virtual void exfiltration(const QString &sandbox, const QString &host, const QString &secret) = 0;
};

} // namespace airlock
