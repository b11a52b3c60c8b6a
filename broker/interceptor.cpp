#include "interceptor.h"
#include "api_codes.h"
#include "core/logging.h"
#include "httpframing.h"
#include "hostpattern.h"
#include "httphead.h"
#include "leafminter.h"
#include "sandboxca.h"
#include "secrethosts.h"
#include "tlsstream.h"
#include "vault.h"
#include "x509util.h"

#include <QFileInfo>
#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace airlock {

namespace {

constexpr unsigned char kAlpnHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
constexpr size_t kReadAheadBytes = 64 * 1024; // several TLS records per recv

int selectHttp11(SSL *, const unsigned char **out, unsigned char *outlen, const unsigned char *in, unsigned int inlen, void *)
{
    unsigned char *selected = nullptr;
    if (SSL_select_next_proto(&selected, outlen, kAlpnHttp11, sizeof kAlpnHttp11, in, inlen) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK; // no h2: the client falls back to HTTP/1.1 without ALPN
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

void setTimeouts(int fd, int ms)
{
    timeval tv{ms / 1000, (ms % 1000) * 1000};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void setBlocking(int fd)
{
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0 && (flags & O_NONBLOCK))
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
}

// Connects with a timeout; returns the socket or -1 with `why`.
int connectTo(const QHostAddress &address, quint16 port, int timeoutMs, QString *why)
{
    sockaddr_storage ss{};
    socklen_t len = 0;
    if (address.protocol() == QAbstractSocket::IPv6Protocol) {
        auto *a = reinterpret_cast<sockaddr_in6 *>(&ss);
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(port);
        const Q_IPV6ADDR raw = address.toIPv6Address();
        memcpy(&a->sin6_addr, raw.c, 16);
        len = sizeof *a;
    } else {
        auto *a = reinterpret_cast<sockaddr_in *>(&ss);
        a->sin_family = AF_INET;
        a->sin_port = htons(port);
        a->sin_addr.s_addr = htonl(address.toIPv4Address());
        len = sizeof *a;
    }
    const int fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        *why = QString::fromLocal8Bit(strerror(errno));
        return -1;
    }
    int rc = ::connect(fd, reinterpret_cast<sockaddr *>(&ss), len);
    if (rc < 0 && errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        rc = ::poll(&p, 1, timeoutMs);
        int err = 0;
        socklen_t errLen = sizeof err;
        if (rc == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errLen) == 0 && err == 0) {
            rc = 0;
        } else {
            errno = rc == 0 ? ETIMEDOUT : (err ? err : errno);
            rc = -1;
        }
    }
    if (rc < 0) {
        *why = QString::fromLocal8Bit(strerror(errno));
        ::close(fd);
        return -1;
    }
    setBlocking(fd);
    return fd;
}

QByteArray plainResponse(int status, const char *phrase, const QString &text)
{
    const QByteArray body = text.toUtf8() + '\n';
    return "HTTP/1.1 " + QByteArray::number(status) + ' ' + phrase +
           "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + QByteArray::number(body.size()) +
           "\r\nConnection: close\r\nCache-Control: no-store\r\nX-Airlock: denied\r\n\r\n" + body;
}

void wipe(QByteArray &bytes)
{
    if (!bytes.isEmpty() && bytes.isDetached())
        OPENSSL_cleanse(bytes.data(), size_t(bytes.size()));
    bytes.clear();
}

} // namespace

// One intercepted guest connection, served start to end on its own thread.
class InterceptedConnection {
public:
    InterceptedConnection(Interceptor &owner, int guestFd, QString sandbox, QString sni, QByteArray prefix,
                          UpstreamAddress upstream)
        : m_owner(owner), m_guestFd(guestFd), m_sandbox(std::move(sandbox)), m_sni(normalizeHost(sni)),
          m_prefix(std::move(prefix)), m_upstream(std::move(upstream))
    {
    }
    ~InterceptedConnection()
    {
        m_guest.shutdown();
        m_up.shutdown();
        for (int fd : {m_guestFd, m_upFd}) {
            if (fd >= 0) {
                m_owner.untrack(fd);
                ::close(fd);
            }
        }
        for (LentSecret &s : m_secrets)
            s.value.reset();
    }

    void run();

private:
    enum class Next { KeepAlive, Close };
    Next serveOne();
    bool readGuestHead(http::RequestHead *head, QString *error);
    bool ensureUpstream(QString *why);
    // `alert`, when given, also raises an alert event of `alertKind` for the person at the desktop.
    void deny(int status, const char *phrase, const QString &reason, const QString &alert = {},
              const QString &alertKind = QStringLiteral("exfiltration"));
    std::optional<QString> placeholderIn(const char *data, qsizetype size) const; // secret name
    bool relayRequestBody(const http::BodyFraming &framing, QString *blocked);
    bool relayResponse(Next *next);
    void emitEvent(bool allowed, const QString &reason, const QString &alert = {},
                   const QString &alertKind = QStringLiteral("exfiltration"));
    QString lockedAlert() const;

    Interceptor &m_owner;
    int m_guestFd;
    int m_upFd = -1;
    QString m_sandbox;
    QString m_sni;
    QByteArray m_prefix;
    UpstreamAddress m_upstream;
    TlsStream m_guest;
    TlsStream m_up;
    std::vector<LentSecret> m_secrets;
    int m_longestPlaceholder = 0;
    bool m_locked = false;
    // Per request
    QByteArray m_method;
    QByteArray m_path;
    qint64 m_bytesUp = 0;
    qint64 m_bytesDown = 0;
};

void InterceptedConnection::emitEvent(bool allowed, const QString &reason, const QString &alert, const QString &alertKind)
{
    if (!m_owner.m_sink)
        return;
    InterceptEvent e;
    e.sandbox = m_sandbox;
    e.host = m_sni;
    e.port = m_upstream.port;
    e.method = QString::fromLatin1(m_method);
    e.path = QString::fromLatin1(m_path.left(2048));
    e.allowed = allowed;
    e.reason = reason;
    e.bytesUp = m_bytesUp;
    e.bytesDown = m_bytesDown;
    if (!alert.isEmpty()) {
        e.alertKind = alertKind;
        e.alertMessage = alert;
    }
    m_owner.m_sink(e);
}

void InterceptedConnection::deny(int status, const char *phrase, const QString &reason, const QString &alert,
                                 const QString &alertKind)
{
    const QString text = QStringLiteral("Airlock blocked this request to %1: %2").arg(m_sni, reason);
    m_guest.write(plainResponse(status, phrase, text));
    if (!alert.isEmpty())
        qCWarning(lcBroker) << alertKind << "alert from sandbox" << m_sandbox << ":" << alert;
    emitEvent(false, reason, alert, alertKind);
}

// The agent sees a 403 (or a reset); the person, who can unlock, is told why and how.
QString InterceptedConnection::lockedAlert() const
{
    return QStringLiteral("sandbox %1 needs a secret to reach %2, but the Airlock vault is locked: unlock it "
                          "(Vault → Unlock, or airlockctl vault unlock)").arg(m_sandbox, m_sni);
}

void InterceptedConnection::run()
{
    setBlocking(m_guestFd);
    setTimeouts(m_guestFd, m_owner.m_options.idleTimeoutMs);
    Result<std::shared_ptr<SandboxCa>> ca = m_owner.m_vault.sandboxCa(m_sandbox);
    if (!ca) {
        // Without the CA key (a locked vault since airlockd started) nothing readable can be said over TLS.
        emitEvent(false, ca.error().message(), ca.error().code == kUnavailableCode ? lockedAlert() : QString(),
                  QStringLiteral("vault_locked"));
        return;
    }
    Result<std::shared_ptr<const Leaf>> leaf = ca.value()->minter().leafFor(m_sni);
    if (!leaf) {
        emitEvent(false, leaf.error().message());
        return;
    }
    if (!m_guest.attach(m_owner.m_serverCtx, m_guestFd, m_prefix) ||
        SSL_use_certificate(m_guest.ssl(), leaf.value()->cert) != 1 ||
        SSL_use_PrivateKey(m_guest.ssl(), leaf.value()->key) != 1 || SSL_accept(m_guest.ssl()) != 1) {
        emitEvent(false, QStringLiteral("the guest's TLS handshake failed (does it trust the sandbox CA?): %1")
                             .arg(x509util::lastError()));
        return;
    }
    Result<std::vector<LentSecret>> secrets = m_owner.m_vault.lentSecrets(m_sandbox);
    if (!secrets) {
        m_locked = true;
    } else {
        m_secrets = std::move(secrets.value());
        for (const LentSecret &s : m_secrets)
            m_longestPlaceholder = std::max(m_longestPlaceholder, int(s.placeholder.size()));
    }
    while (serveOne() == Next::KeepAlive) {
    }
}

bool InterceptedConnection::readGuestHead(http::RequestHead *head, QString *error)
{
    QByteArray &buf = m_guest.buffer();
    for (;;) {
        if (!buf.isEmpty()) {
            http::HeadResult r = http::parseRequestHead(buf);
            if (r.status == http::HeadResult::Status::Complete) {
                *head = std::move(r.head);
                return true;
            }
            if (r.status == http::HeadResult::Status::Invalid) {
                *error = r.error;
                return false;
            }
        }
        if (!m_guest.fill())
            return false;
    }
}

std::optional<QString> InterceptedConnection::placeholderIn(const char *data, qsizetype size) const
{
    const QByteArrayView view(data, size);
    for (const LentSecret &s : m_secrets) {
        if (view.indexOf(s.placeholder) >= 0)
            return s.name;
    }
    return std::nullopt;
}

bool InterceptedConnection::ensureUpstream(QString *why)
{
    if (m_upFd >= 0)
        return true;
    m_upFd = connectTo(m_upstream.address, m_upstream.port, m_owner.m_options.connectTimeoutMs, why);
    if (m_upFd < 0) {
        *why = QStringLiteral("cannot connect to %1 port %2: %3").arg(m_upstream.host).arg(m_upstream.port).arg(*why);
        return false;
    }
    m_owner.track(m_upFd);
    setTimeouts(m_upFd, m_owner.m_options.idleTimeoutMs);
    const QByteArray host = m_upstream.host.toLatin1();
    if (!m_up.attach(m_owner.m_clientCtx, m_upFd) || SSL_set_tlsext_host_name(m_up.ssl(), host.constData()) != 1 ||
        X509_VERIFY_PARAM_set1_host(SSL_get0_param(m_up.ssl()), host.constData(), size_t(host.size())) != 1) {
        *why = QStringLiteral("cannot set up TLS to %1").arg(m_upstream.host);
        return false;
    }
    if (SSL_connect(m_up.ssl()) != 1) {
        const long verify = SSL_get_verify_result(m_up.ssl());
        *why = verify != X509_V_OK
                   ? QStringLiteral("the certificate of %1 failed verification (%2); nothing was sent")
                         .arg(m_upstream.host, QString::fromLatin1(X509_verify_cert_error_string(verify)))
                   : QStringLiteral("the TLS handshake with %1 failed (%2); nothing was sent")
                         .arg(m_upstream.host, x509util::lastError());
        ERR_clear_error();
        return false;
    }
    return true;
}

InterceptedConnection::Next InterceptedConnection::serveOne()
{
    m_method.clear();
    m_path.clear();
    m_bytesUp = m_bytesDown = 0;
    http::RequestHead head;
    QString error;
    if (!readGuestHead(&head, &error)) {
        if (!error.isEmpty())
            deny(400, "Bad Request", QStringLiteral("malformed request: %1").arg(error));
        return Next::Close;
    }
    m_method = head.method;
    m_path = head.target;
    QByteArray &buf = m_guest.buffer();

    if (m_locked) {
        deny(403, "Forbidden", QStringLiteral("%1; unlock it with `airlockctl vault unlock`").arg(Vault::lockedMessage()), lockedAlert(),
             QStringLiteral("vault_locked"));
        return Next::Close;
    }
    if (!head.header("Upgrade").isNull() || http::hasToken(head.header("Connection"), "upgrade")) {
        deny(403, "Forbidden", QStringLiteral("protocol upgrades (websocket) are refused on connections that carry secrets"));
        return Next::Close;
    }
    if (!head.host.isEmpty() && head.host != m_sni) {
        deny(403, "Forbidden", QStringLiteral("the Host header (%1) differs from the TLS server name").arg(head.host));
        return Next::Close;
    }
    // The URL, raw and percent-decoded.
    const QByteArray decodedTarget = QByteArray::fromPercentEncoding(head.target);
    if (auto name = placeholderIn(head.target.constData(), head.target.size()); name || (name = placeholderIn(decodedTarget.constData(), decodedTarget.size()))) {
        const QString why = QStringLiteral("the placeholder of secret %1 is in the URL; secrets travel only in their header").arg(*name);
        deny(403, "Forbidden", why, QStringLiteral("sandbox %1 put the placeholder of secret %2 in a URL to %3").arg(m_sandbox, *name, m_sni));
        return Next::Close;
    }
    // Headers: swap the placeholder where its secret may go; anything else is an exfiltration attempt.
    for (http::Header &h : head.headers) {
        if (auto name = placeholderIn(h.name.constData(), h.name.size())) {
            deny(403, "Forbidden", QStringLiteral("a header name carries the placeholder of secret %1").arg(*name),
                 QStringLiteral("sandbox %1 put the placeholder of secret %2 in a header name to %3").arg(m_sandbox, *name, m_sni));
            return Next::Close;
        }
        for (const LentSecret &s : m_secrets) {
            if (h.value.indexOf(s.placeholder) < 0)
                continue;
            if (!secrethosts::matchesAny(s.hosts, m_sni)) {
                deny(403, "Forbidden",
                     QStringLiteral("secret %1 is not bound to this host (only to %2)").arg(s.name, s.hosts.join(QStringLiteral(", "))),
                     QStringLiteral("sandbox %1 sent the placeholder of secret %2 to %3, which it is not bound to").arg(m_sandbox, s.name, m_sni));
                return Next::Close;
            }
            if (h.name.compare(s.headerName, Qt::CaseInsensitive) != 0) {
                deny(403, "Forbidden",
                     QStringLiteral("secret %1 may only be sent in the %2 header, not in %3").arg(s.name, QString::fromLatin1(s.headerName), QString::fromLatin1(h.name)),
                     QStringLiteral("sandbox %1 sent the placeholder of secret %2 in header %3 to %4").arg(m_sandbox, s.name, QString::fromLatin1(h.name), m_sni));
                return Next::Close;
            }
            h.value.replace(s.placeholder, s.value->view());
        }
    }
    // Body framing; Expect: 100-continue is answered here so the body is checked before it leaves.
    QString framingError;
    const http::BodyFraming framing = http::requestFraming(head.header("Transfer-Encoding"), head.header("Content-Length"), &framingError);
    if (!framingError.isEmpty()) {
        deny(400, "Bad Request", framingError);
        return Next::Close;
    }
    const bool expectContinue = head.header("Expect").compare("100-continue", Qt::CaseInsensitive) == 0;
    if (expectContinue) {
        head.headers.removeIf([](const http::Header &h) { return h.name.compare("Expect", Qt::CaseInsensitive) == 0; });
        m_guest.write(QByteArrayLiteral("HTTP/1.1 100 Continue\r\n\r\n"));
    }
    const bool closeAfter = http::hasToken(head.header("Connection"), "close") ||
                            (head.version == "HTTP/1.0" && !http::hasToken(head.header("Connection"), "keep-alive"));
    buf.remove(0, head.headEnd);

    // A small body is read whole and checked before anything is sent.
    if (framing.kind == http::BodyFraming::Length && framing.length <= m_owner.m_options.bufferedBodyLimit) {
        while (buf.size() < framing.length) {
            if (!m_guest.fill())
                return Next::Close;
        }
        if (auto name = placeholderIn(buf.constData(), qsizetype(framing.length))) {
            deny(403, "Forbidden", QStringLiteral("the request body carries the placeholder of secret %1").arg(*name),
                 QStringLiteral("sandbox %1 put the placeholder of secret %2 in a request body to %3").arg(m_sandbox, *name, m_sni));
            return Next::Close;
        }
    }
    QString why;
    if (!ensureUpstream(&why)) {
        deny(502, "Bad Gateway", why);
        return Next::Close;
    }
    QByteArray wire = http::serializeRequestHead(head);
    for (http::Header &h : head.headers)
        wipe(h.value); // the real value: cleansed as soon as it is on the wire
    // A small body already checked whole goes out with the head, in one write.
    qint64 bodyWithHead = 0;
    if (framing.kind == http::BodyFraming::Length && framing.length <= m_owner.m_options.bufferedBodyLimit) {
        bodyWithHead = framing.length;
        wire.append(buf.constData(), qsizetype(bodyWithHead));
        buf.remove(0, qsizetype(bodyWithHead));
    }
    const bool sent = m_up.write(wire);
    m_bytesUp += wire.size();
    wipe(wire);
    if (!sent) {
        deny(502, "Bad Gateway", QStringLiteral("the connection to %1 broke").arg(m_sni));
        return Next::Close;
    }
    QString blocked;
    if (!bodyWithHead && !relayRequestBody(framing, &blocked)) {
        if (!blocked.isEmpty()) {
            // Cut the upstream connection mid-body: the request never completes there.
            linger hard{1, 0};
            ::setsockopt(m_upFd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
            deny(403, "Forbidden", QStringLiteral("the request body carries the placeholder of secret %1").arg(blocked),
                 QStringLiteral("sandbox %1 put the placeholder of secret %2 in a request body to %3").arg(m_sandbox, blocked, m_sni));
        }
        return Next::Close;
    }
    Next next = closeAfter ? Next::Close : Next::KeepAlive;
    if (!relayResponse(&next))
        return Next::Close;
    emitEvent(true, {});
    return closeAfter ? Next::Close : next;
}

bool InterceptedConnection::relayRequestBody(const http::BodyFraming &framing, QString *blocked)
{
    QByteArray &buf = m_guest.buffer();
    QByteArray tail; // the last bytes sent, so a placeholder split across reads is still seen
    const auto checkAndSend = [&](qsizetype n) -> bool {
        const QByteArray window = tail + QByteArrayView(buf.constData(), n);
        if (auto name = placeholderIn(window.constData(), window.size())) {
            *blocked = *name;
            return false;
        }
        if (!m_up.write(buf.constData(), n))
            return false;
        m_bytesUp += n;
        tail = window.right(std::max(0, m_longestPlaceholder - 1));
        buf.remove(0, n);
        return true;
    };
    switch (framing.kind) {
    case http::BodyFraming::None:
    case http::BodyFraming::UntilClose:
        return true;
    case http::BodyFraming::Length: {
        qint64 left = framing.length;
        while (left > 0) {
            if (buf.isEmpty() && !m_guest.fill())
                return false;
            const qsizetype n = qsizetype(std::min<qint64>(left, buf.size()));
            if (!checkAndSend(n))
                return false;
            left -= n;
        }
        return true;
    }
    case http::BodyFraming::Chunked: {
        http::ChunkedDecoder decoder;
        while (!decoder.done()) {
            if (buf.isEmpty() && !m_guest.fill())
                return false;
            const qsizetype n = decoder.feed(buf.constData(), buf.size());
            if (decoder.error())
                return false;
            if (!checkAndSend(n))
                return false;
        }
        return true;
    }
    }
    return false;
}

bool InterceptedConnection::relayResponse(Next *next)
{
    QByteArray &in = m_up.buffer();
    for (;;) {
        http::ResponseHead head;
        QString error;
        http::Parse p = http::Parse::NeedMore;
        while ((p = http::parseResponseHead(in, &head, &error)) == http::Parse::NeedMore) {
            if (!m_up.fill())
                return false;
        }
        if (p == http::Parse::Invalid) {
            deny(502, "Bad Gateway", error);
            return false;
        }
        if (head.status == 101)
            return false; // never asked for: close both
        const http::BodyFraming framing = http::responseFraming(m_method, head, &error);
        if (!error.isEmpty())
            return false;
        // A small response already read whole goes out in one write (one TLS record).
        qsizetype first = head.headEnd;
        if (head.status >= 200 && framing.kind == http::BodyFraming::Length && in.size() - head.headEnd >= framing.length)
            first += qsizetype(framing.length);
        if (!m_guest.write(in.constData(), first))
            return false;
        m_bytesDown += first;
        in.remove(0, first);
        if (head.status < 200)
            continue;     // interim response (100, 103): the final one follows
        if (first > head.headEnd)
            return true;
        if (http::hasToken(head.header("Connection"), "close") || head.version == "HTTP/1.0")
            *next = Next::Close;
        switch (framing.kind) {
        case http::BodyFraming::None:
            return true;
        case http::BodyFraming::Length: {
            qint64 left = framing.length;
            while (left > 0) {
                if (in.isEmpty() && !m_up.fill())
                    return false;
                const qsizetype n = qsizetype(std::min<qint64>(left, in.size()));
                if (!m_guest.write(in.constData(), n))
                    return false;
                m_bytesDown += n;
                left -= n;
                in.remove(0, n);
            }
            return true;
        }
        case http::BodyFraming::Chunked: {
            http::ChunkedDecoder decoder;
            while (!decoder.done()) {
                if (in.isEmpty() && !m_up.fill())
                    return false;
                const qsizetype n = decoder.feed(in.constData(), in.size());
                if (decoder.error() || !m_guest.write(in.constData(), n))
                    return false;
                m_bytesDown += n;
                in.remove(0, n);
            }
            return true;
        }
        case http::BodyFraming::UntilClose:
            *next = Next::Close;
            for (;;) {
                if (!in.isEmpty()) {
                    if (!m_guest.write(in))
                        return false;
                    m_bytesDown += in.size();
                    in.clear();
                }
                if (!m_up.fill())
                    return true;
            }
        }
        return false;
    }
}

Interceptor::Interceptor(Vault &vault, Options options, EventSink sink)
    : m_vault(vault), m_options(std::move(options)), m_sink(std::move(sink))
{
}

Interceptor::~Interceptor()
{
    std::unique_lock lock(m_mutex);
    m_stopping = true;
    for (int fd : m_fds)
        ::shutdown(fd, SHUT_RDWR);
    m_idle.wait(lock, [this] { return m_active.load() == 0; });
    SSL_CTX_free(m_serverCtx);
    SSL_CTX_free(m_clientCtx);
}

Status Interceptor::init()
{
    m_serverCtx = SSL_CTX_new(TLS_server_method());
    m_clientCtx = SSL_CTX_new(TLS_client_method());
    if (!m_serverCtx || !m_clientCtx)
        return Error{QStringLiteral("cannot set up TLS for interception"), x509util::lastError()};
    SSL_CTX_set_min_proto_version(m_serverCtx, TLS1_2_VERSION);
    SSL_CTX_set_alpn_select_cb(m_serverCtx, selectHttp11, nullptr);
    SSL_CTX_set_min_proto_version(m_clientCtx, TLS1_2_VERSION);
    for (SSL_CTX *ctx : {m_serverCtx, m_clientCtx}) {
        // Every byte is decrypted on one side and encrypted on the other: AES-128-GCM is the
        // cheapest suite TLS 1.3 offers (about 15% faster than AES-256 here) and as safe for a
        // session. Read-ahead takes whole socket buffers per recv instead of header, then body.
        SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256");
        SSL_CTX_set_read_ahead(ctx, 1);
        SSL_CTX_set_default_read_buffer_len(ctx, kReadAheadBytes);
    }
    SSL_CTX_set_options(m_serverCtx, SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_verify(m_clientCtx, SSL_VERIFY_PEER, nullptr);
    SSL_CTX_set_alpn_protos(m_clientCtx, kAlpnHttp11, sizeof kAlpnHttp11);
    if (SSL_CTX_set_default_verify_paths(m_clientCtx) != 1)
        return Error{QStringLiteral("cannot load the system's trusted roots"), x509util::lastError()};
    if (!m_options.extraCaFile.isEmpty()) {
        const QByteArray path = QFileInfo(m_options.extraCaFile).absoluteFilePath().toLocal8Bit();
        if (SSL_CTX_load_verify_locations(m_clientCtx, path.constData(), nullptr) != 1)
            return Error{QStringLiteral("cannot load the upstream CA file %1").arg(m_options.extraCaFile),
                         QStringLiteral("AIRLOCK_UPSTREAM_CA must name a readable PEM certificate (%1)").arg(x509util::lastError())};
    }
    return ok();
}

bool Interceptor::needsInterception(const QString &sandbox, const QString &host)
{
    const Result<QStringList> hosts = m_vault.boundHosts(sandbox);
    return hosts && secrethosts::matchesAny(hosts.value(), host);
}

std::optional<QString> Interceptor::placeholderOwner(const QString &sandbox, QByteArrayView bytes)
{
    const auto all = m_vault.placeholders(sandbox);
    if (!all)
        return std::nullopt;
    for (const auto &[name, placeholder] : all.value()) {
        if (bytes.indexOf(placeholder) >= 0)
            return name;
    }
    return std::nullopt;
}

bool Interceptor::track(int fd)
{
    std::lock_guard lock(m_mutex);
    if (m_stopping)
        return false;
    m_fds.insert(fd);
    return true;
}

void Interceptor::untrack(int fd)
{
    std::lock_guard lock(m_mutex);
    m_fds.erase(fd);
}

void Interceptor::handle(int guestFd, const QString &sandbox, const QString &sni, const QByteArray &alreadyRead,
                         const UpstreamAddress &upstream)
{
    if (!track(guestFd)) {
        ::close(guestFd);
        return;
    }
    m_active.fetch_add(1);
    std::thread([this, guestFd, sandbox, sni, alreadyRead, upstream] {
        ::pthread_setname_np(::pthread_self(), "alk-intercept"); // visible in top -H; benchmarks count its CPU
        {
            InterceptedConnection connection(*this, guestFd, sandbox, sni, alreadyRead, upstream);
            connection.run();
        }
        std::lock_guard lock(m_mutex);
        if (m_active.fetch_sub(1) == 1)
            m_idle.notify_all();
    }).detach();
}

} // namespace airlock
