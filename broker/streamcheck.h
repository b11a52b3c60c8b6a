#pragma once
// What the transparent proxy relays a flow decided on a name through (httpstreamcheck.h,
// tlshandshakewatch.h): the checker reads every byte the guest sends (and, while it needs
// them, the upstream's), says how many of the guest's bytes may go on, refuses what does not
// go to that name, and names what it cannot verify (which passes only on a raw-TCP rule).
#include <QByteArrayView>
#include <QString>

namespace airlock {

class StreamCheck {
public:
    virtual ~StreamCheck() = default;
    // The guest's next bytes. False once refused (error() says why); nothing more passes then.
    virtual bool client(QByteArrayView bytes) = 0;
    // The upstream's next bytes, while wantsServer(). False once refused.
    virtual bool server(QByteArrayView) { return true; }
    virtual bool wantsServer() const { return false; }
    // Bytes of the guest's stream, from its first, that were checked and may go upstream.
    virtual qint64 cleared() const = 0;
    // From here on the flow needs no checking (a TLS handshake past its ServerHello).
    virtual bool settled() const { return false; }
    virtual QString error() const = 0;
    // Why part of the stream cannot be verified ("" when all of it can): allowed only when the
    // flow's rule allows raw TCP, refused otherwise.
    virtual QString unverified() const = 0;
};

} // namespace airlock
