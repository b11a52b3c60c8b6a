#include "interceptor.h"
#include "basicauth.h"
#include "core/logging.h"
#include "epollloop.h"
#include "httpframing.h"
#include "hostpattern.h"
#include "httphead.h"
#include "leafminter.h"
#include "logincapture.h"
#include "placeholder.h"
#include "responsemask.h"
#include "sandboxca.h"
#include "secrethosts.h"
#include "tlsstream.h"
#include "vault.h"
#include "x509util.h"

#include <QFileInfo>
#include <future>
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
#include <sys/epoll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace airlock {

namespace {

constexpr unsigned char kAlpnHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
constexpr size_t kReadAheadBytes = 64 * 1024; // several TLS records per recv
const QString kMalformedChunked = QStringLiteral("malformed chunked body (each chunk-size line and chunk must end in CRLF)");

int selectHttp11(SSL *, const unsigned char **out, unsigned char *outlen, const unsigned char *in, unsigned int inlen, void *)
{
    unsigned char *selected = nullptr;
    if (SSL_select_next_proto(&selected, outlen, kAlpnHttp11, sizeof kAlpnHttp11, in, inlen) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK; // no h2: the client falls back to HTTP/1.1 without ALPN
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

void setNoDelay(int fd)
{
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

// Removes the first `n` bytes, cleansed first: they may have held a real value.
void wipeFront(QByteArray &bytes, qsizetype n)
{
    OPENSSL_cleanse(bytes.data(), size_t(n));
    bytes.remove(0, n);
}

} // namespace

// One intercepted guest connection. A worker advances it until it must wait for the guest
// (then it is parked, holding no thread) or it ends; `done` runs when it is destroyed.
class InterceptedConnection {
public:
    using Clock = std::chrono::steady_clock;
    enum class Step { Park, Close };

    InterceptedConnection(Interceptor &owner, int guestFd, QString sandbox, QString sni, QByteArray prefix,
                          UpstreamAddress upstream, bool perRequest, std::function<void()> done, GuestProcessLookup whoAsks)
        : m_owner(owner), m_guestFd(guestFd), m_sandbox(std::move(sandbox)), m_sni(normalizeHost(sni)),
          m_prefix(std::move(prefix)), m_upstream(std::move(upstream)), m_done(std::move(done)),
          m_whoAsks(std::move(whoAsks)), m_perRequest(perRequest), m_started(Clock::now())
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
        if (m_done)
            m_done(); // the fd is closed: the proxy may give the flow's slot to another
        m_owner.connectionEnded();
    }

    Step advance();
    // Refused before serving (no worker): the guest gets a reset, the record says why.
    void refuse(const QString &reason);
    // A parked connection whose wait ran out: recorded if it was inside a handshake or head.
    void expire();
    void fail(const QString &reason) { emitEvent(false, reason); }

    int guestFd() const { return m_guestFd; }
    const QString &sandbox() const { return m_sandbox; }
    Clock::time_point parkedUntil() const { return m_parkedUntil; }
    void releaseBuffers() { m_guest.releaseBuffers(); }
    bool queuedNew = false; // counts against the queue limits of new flows (Interceptor's m_mutex)

private:
    enum class Next { KeepAlive, Close };
    std::optional<Step> handshake();
    std::optional<Step> awaitHead(http::RequestHead *head);
    std::optional<Step> waitForGuest(Clock::time_point deadline);
    bool begin();
    Next serveOne(http::RequestHead &head);
    QString strictnessError(const http::RequestHead &head, int *status) const;
    bool requestAllowed(const http::RequestHead &head);
    std::optional<RequestVerdict> askAndWait(const http::RequestHead &head);
    bool guestGone() const;
    bool checkAndInject(http::RequestHead &head);
    void injectBasic(http::RequestHead &head);
    void injectQuery(http::RequestHead &head);
    static bool encodedIn(const LentSecret &s, QByteArrayView bytes);
    bool bufferChunkedBody(qint64 *bodyBytes);
    bool ensureUpstream(QString *why);
    // `alert`, when given, also raises an alert event of `alertKind` for the person at the desktop.
    void deny(int status, const char *phrase, const QString &reason, const QString &alert = {},
              const QString &alertKind = QStringLiteral("exfiltration"));
    std::optional<QString> placeholderIn(const char *data, qsizetype size) const; // secret name
    bool readSmallBody(http::RequestHead &head, const http::BodyFraming &framing, qint64 *checkedBody);
    void swapTokenFields(http::RequestHead &head, qint64 *checkedBody);
    bool relayTokenAnswer(const http::ResponseHead &head, const http::BodyFraming &framing, Next *next);
    void loadSecrets();
    bool relayRequestBody(const http::BodyFraming &framing, QString *blocked, QString *malformed);
    bool relayResponse(Next *next);
    bool down(QByteArrayView bytes, bool end);
    void emitServed(bool relayed);
    void emitEvent(bool allowed, const QString &reason, const QString &alert = {},
                   const QString &alertKind = QStringLiteral("exfiltration"));
    QString lockedAlert() const;
    // The guest's report on this connection's socket, kept once it came (the table forgets
    // old reports; a keep-alive connection outlives them).
    const std::optional<GuestProcess> &process();

    Interceptor &m_owner;
    int m_guestFd;
    int m_upFd = -1;
    QString m_sandbox;
    QString m_sni;
    QByteArray m_prefix;
    UpstreamAddress m_upstream;
    std::function<void()> m_done;
    GuestProcessLookup m_whoAsks;
    std::optional<GuestProcess> m_process;
    bool m_perRequest;       // each request is decided alone (Interceptor::setRequestDecider)
    qint64 m_rule = 0;       // the rule that decided the current request
    qint64 m_heldEventId = 0; // the current request was asked about: its record's id
    TlsStream m_guest;
    TlsStream m_up;
    std::vector<LentSecret> m_secrets;
    ResponseMask m_mask; // the values of the secrets bound to this host, should it echo one
    std::unique_ptr<LoginCapture> m_logins; // when this host issues a sign-in's tokens
    int m_longestPlaceholder = 0;
    bool m_locked = false;
    bool m_handshaken = false;
    Clock::time_point m_started;
    Clock::time_point m_waitSince;   // the last response ended: the idle wait began
    Clock::time_point m_headStart;   // the first byte of the current head came; {} before
    Clock::time_point m_parkedUntil;
    qsizetype m_headScanned = 0;     // bytes of the head already searched for its end
    // Per request
    QByteArray m_method;
    QByteArray m_path;
    qint64 m_bytesUp = 0;
    qint64 m_bytesDown = 0;
    QString m_servedNote; // what the record of an allowed request adds (a sign-in kept)
    quint64 m_secretsGeneration = 0; // Vault::lentGeneration() when m_secrets was loaded
};

const std::optional<GuestProcess> &InterceptedConnection::process()
{
    if (!m_process && m_whoAsks)
        m_process = m_whoAsks();
    return m_process;
}

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
    e.rule = m_rule;
    e.eventId = m_heldEventId;
    e.reason = reason;
    e.bytesUp = m_bytesUp;
    e.bytesDown = m_bytesDown;
    e.process = process();
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

void InterceptedConnection::refuse(const QString &reason)
{
    const linger hard{1, 0};
    ::setsockopt(m_guestFd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    emitEvent(false, reason);
}

void InterceptedConnection::expire()
{
    if (!m_handshaken)
        emitEvent(false, QStringLiteral("the guest did not complete the TLS handshake within %1 s").arg(m_owner.m_options.headerTimeoutMs / 1000.0));
    else if (m_headStart != Clock::time_point{})
        emitEvent(false, QStringLiteral("the request head was not complete within %1 s").arg(m_owner.m_options.headerTimeoutMs / 1000.0));
}

InterceptedConnection::Step InterceptedConnection::advance()
{
    if (!m_handshaken) {
        if (const std::optional<Step> wait = handshake())
            return *wait;
    }
    for (;;) {
        http::RequestHead head;
        if (const std::optional<Step> wait = awaitHead(&head))
            return *wait;
        if (serveOne(head) == Next::Close)
            return Step::Close;
        m_waitSince = Clock::now();
    }
}

// Waits up to lingerMs on the worker (the fast path: the guest answers at once), else parks
// until `deadline`. Nothing (Continue) when the guest sent something.
std::optional<InterceptedConnection::Step> InterceptedConnection::waitForGuest(Clock::time_point deadline)
{
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0)
        return Step::Close;
    if (m_guest.waitReadable(int(std::min<qint64>(left, m_owner.m_options.lingerMs))))
        return std::nullopt;
    m_parkedUntil = deadline;
    return Step::Park;
}

// The sandbox's CA and a leaf for the name, and the guest's TLS over the bytes already read.
bool InterceptedConnection::begin()
{
    Result<std::shared_ptr<SandboxCa>> ca = m_owner.m_vault.sandboxCa(m_sandbox);
    if (!ca) {
        // Without the CA key (a locked vault since airlockd started) nothing readable can be said over TLS.
        emitEvent(false, ca.error().message(), ca.error().kind == ErrorKind::Unavailable ? lockedAlert() : QString(),
                  QStringLiteral("vault_locked"));
        return false;
    }
    Result<std::shared_ptr<const Leaf>> leaf = ca.value()->minter().leafFor(m_sni);
    if (!leaf) {
        emitEvent(false, leaf.error().message());
        return false;
    }
    if (!m_guest.attach(m_owner.m_serverCtx, m_guestFd, m_prefix) ||
        SSL_use_certificate(m_guest.ssl(), leaf.value()->cert) != 1 || SSL_use_PrivateKey(m_guest.ssl(), leaf.value()->key) != 1) {
        emitEvent(false, QStringLiteral("cannot set up TLS towards the guest: %1").arg(x509util::lastError()));
        return false;
    }
    m_prefix.clear();
    setNoDelay(m_guestFd);
    m_started = Clock::now(); // the handshake's time starts on a worker, not in the queue
    m_guest.setWaitMs(m_owner.m_options.idleTimeoutMs);
    m_guest.setDeadline(m_started + std::chrono::milliseconds(m_owner.m_options.headerTimeoutMs));
    return true;
}

std::optional<InterceptedConnection::Step> InterceptedConnection::handshake()
{
    if (!m_guest.ssl() && !begin())
        return Step::Close;
    const auto deadline = m_started + std::chrono::milliseconds(m_owner.m_options.headerTimeoutMs);
    for (;;) {
        const TlsStream::Fill f = m_guest.accept();
        if (f == TlsStream::Fill::Data)
            break;
        if (f == TlsStream::Fill::End) {
            emitEvent(false, QStringLiteral("the guest's TLS handshake failed (does it trust the sandbox CA?): %1")
                                 .arg(x509util::lastError()));
            return Step::Close;
        }
        if (const std::optional<Step> wait = waitForGuest(deadline)) {
            if (*wait == Step::Close)
                expire();
            return wait;
        }
    }
    m_handshaken = true;
    m_guest.setDeadline(Clock::time_point::max());
    m_waitSince = Clock::now();
    loadSecrets();
    auto logins = std::make_unique<LoginCapture>(m_owner.m_vault, m_sandbox, m_sni);
    if (!logins->isEmpty())
        m_logins = std::move(logins);
    return std::nullopt;
}

// The sandbox's secrets as the vault has them now: at the handshake, and again after a
// sign-in changed them on this connection.
void InterceptedConnection::loadSecrets()
{
    m_secretsGeneration = m_owner.m_vault.lentGeneration(); // before reading: a change meanwhile reloads again
    m_mask.clear();
    m_secrets.clear();
    m_longestPlaceholder = 0;
    Result<std::vector<LentSecret>> secrets = m_owner.m_vault.lentSecrets(m_sandbox);
    m_locked = !secrets;
    if (!secrets)
        return;
    m_secrets = std::move(secrets.value());
    for (const LentSecret &s : m_secrets) {
        const QByteArrayView real = s.value->view();
        // A token another sandbox refreshed may have changed length: mask it with filler of its own.
        if (secrethosts::matchesAny(s.hosts, m_sni))
            m_mask.add(s.name, real, s.placeholder.size() == real.size() ? s.placeholder : makePlaceholder(int(real.size())));
        m_longestPlaceholder = std::max(m_longestPlaceholder, int(s.placeholder.size()));
        for (const QByteArray &form : s.encoded)
            m_longestPlaceholder = std::max(m_longestPlaceholder, int(form.size()));
    }
}

// Reads the next request head without waiting on a worker longer than lingerMs. The idle wait
// before a head is bounded by idleTimeoutMs, the head itself, once begun, by headerTimeoutMs.
std::optional<InterceptedConnection::Step> InterceptedConnection::awaitHead(http::RequestHead *head)
{
    QByteArray &buf = m_guest.buffer();
    for (;;) {
        if (!buf.isEmpty()) {
            if (m_headStart == Clock::time_point{})
                m_headStart = Clock::now();
            // Parse only once the blank line may be there: a head sent a byte at a time costs linear time.
            const qsizetype from = std::max<qsizetype>(0, m_headScanned - 2);
            m_headScanned = buf.size();
            if (buf.indexOf("\n\r\n", from) >= 0 || buf.indexOf("\n\n", from) >= 0 || buf.size() > http::kMaxHead) {
                http::HeadResult r = http::parseRequestHead(buf);
                if (r.status == http::HeadResult::Status::Complete) {
                    *head = std::move(r.head);
                    m_headStart = Clock::time_point{};
                    m_headScanned = 0;
                    return std::nullopt;
                }
                if (r.status == http::HeadResult::Status::Invalid) {
                    deny(400, "Bad Request", QStringLiteral("malformed request: %1").arg(r.error));
                    return Step::Close;
                }
            }
        }
        switch (m_guest.tryFill()) {
        case TlsStream::Fill::Data:
            continue;
        case TlsStream::Fill::End:
            return Step::Close;
        case TlsStream::Fill::Wait:
            break;
        }
        const bool begun = m_headStart != Clock::time_point{};
        const auto deadline = begun ? m_headStart + std::chrono::milliseconds(m_owner.m_options.headerTimeoutMs)
                                    : m_waitSince + std::chrono::milliseconds(m_owner.m_options.idleTimeoutMs);
        if (const std::optional<Step> wait = waitForGuest(deadline)) {
            if (*wait == Step::Close && begun)
                deny(408, "Request Timeout", QStringLiteral("the request head was not complete within %1 s")
                                                 .arg(m_owner.m_options.headerTimeoutMs / 1000.0));
            return wait;
        }
    }
}

std::optional<QString> InterceptedConnection::placeholderIn(const char *data, qsizetype size) const
{
    const QByteArrayView view(data, size);
    for (const LentSecret &s : m_secrets) {
        if (view.indexOf(s.placeholder) >= 0 || encodedIn(s, view))
            return s.name;
    }
    return std::nullopt;
}

bool InterceptedConnection::encodedIn(const LentSecret &s, QByteArrayView bytes)
{
    for (const QByteArray &form : s.encoded) {
        if (bytes.indexOf(form) >= 0)
            return true;
    }
    return false;
}

// A query parameter `name=PLACEHOLDER` (exactly) of a secret set with `?name={}` and bound to
// this host gets the real value, percent-encoded; the record shows `name=[secret]`. The URL
// check that follows refuses a placeholder anywhere else in it.
void InterceptedConnection::injectQuery(http::RequestHead &head)
{
    const qsizetype mark = head.target.indexOf('?');
    if (mark < 0)
        return;
    QList<QByteArray> params = head.target.mid(mark + 1).split('&');
    QByteArray target = head.target.left(mark + 1), shown = target;
    bool swapped = false;
    for (qsizetype i = 0; i < params.size(); ++i) {
        QByteArray &param = params[i];
        const qsizetype eq = param.indexOf('=');
        QByteArray shownParam = param;
        for (const LentSecret &s : m_secrets) {
            if (s.queryName.isEmpty() || eq < 0 || param.left(eq) != s.queryName || param.mid(eq + 1) != s.placeholder ||
                !secrethosts::matchesAny(s.hosts, m_sni))
                continue;
            QByteArray encoded = s.value->view().toPercentEncoding();
            param = s.queryName + '=' + encoded;
            wipe(encoded);
            shownParam = s.queryName + "=[" + s.name.toUtf8() + ']';
            swapped = true;
            break;
        }
        target += (i ? "&" : "") + param;
        shown += (i ? "&" : "") + shownParam;
        wipe(param);
    }
    if (!swapped) {
        wipe(target);
        return;
    }
    head.target = std::move(target);
    m_path = shown; // the record names the secret, never its value
}

// Basic credentials carrying the placeholder of a secret set as `Authorization: Basic {}` and
// bound to this host get the real value inside them. Anything else is left as it came: the
// placeholder check that follows sees what is still there, encoded or not.
void InterceptedConnection::injectBasic(http::RequestHead &head)
{
    for (http::Header &h : head.headers) {
        if (h.name.compare("Authorization", Qt::CaseInsensitive) != 0)
            continue;
        std::optional<QByteArray> credentials = basicauth::decode(h.value);
        if (!credentials)
            continue;
        bool swapped = false;
        for (const LentSecret &s : m_secrets) {
            if (s.basic && credentials->contains(s.placeholder) && secrethosts::matchesAny(s.hosts, m_sni)) {
                credentials->replace(s.placeholder, s.value->view());
                swapped = true;
            }
        }
        if (swapped)
            h.value = basicauth::encode(*credentials);
        wipe(*credentials);
    }
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
    m_owner.track(m_upFd, m_sandbox);
    setNoDelay(m_upFd);
    const QByteArray host = m_upstream.host.toLatin1();
    if (!m_up.attach(m_owner.m_clientCtx, m_upFd) || SSL_set_tlsext_host_name(m_up.ssl(), host.constData()) != 1 ||
        X509_VERIFY_PARAM_set1_host(SSL_get0_param(m_up.ssl()), host.constData(), size_t(host.size())) != 1) {
        *why = QStringLiteral("cannot set up TLS to %1").arg(m_upstream.host);
        return false;
    }
    m_up.setWaitMs(m_owner.m_options.connectTimeoutMs);
    const int connected = SSL_connect(m_up.ssl());
    m_up.setWaitMs(m_owner.m_options.idleTimeoutMs);
    if (connected != 1) {
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

// What a strict server and a lax one could read differently, or what would echo a secret
// back, is refused before anything goes upstream. "" when the head may go on.
QString InterceptedConnection::strictnessError(const http::RequestHead &head, int *status) const
{
    const QByteArray &raw = m_guest.buffer();
    for (qsizetype i = raw.indexOf('\n'); i >= 0 && i < head.headEnd; i = raw.indexOf('\n', i + 1)) {
        if (i == 0 || raw.at(i - 1) != '\r')
            return QStringLiteral("a line of the request head ends in a bare LF; only CRLF is accepted");
    }
    *status = 405;
    if (http::tunnelsOrEchoes(head.method))
        return QStringLiteral("the method %1 is refused: CONNECT tunnels, TRACE and TRACK echo the request, secrets included")
            .arg(QString::fromLatin1(head.method.left(16)));
    *status = 400;
    if (!head.target.startsWith('/') && !(head.target == "*" && head.method == "OPTIONS"))
        return QStringLiteral("the request target must be a path (origin-form), not %1").arg(QString::fromLatin1(head.target.left(200)));
    const qsizetype hosts = head.headerValues("Host").size();
    if (hosts != 1 || head.host.isEmpty())
        return hosts > 1 ? QStringLiteral("a request with several Host headers is refused")
                         : QStringLiteral("a request without a Host header (naming %1) is refused").arg(m_sni);
    const qsizetype codings = head.headerValues("Transfer-Encoding").size();
    const qsizetype lengths = head.headerValues("Content-Length").size();
    if (codings && lengths)
        return QStringLiteral("a request with both Transfer-Encoding and Content-Length is refused");
    if (codings > 1 || lengths > 1)
        return QStringLiteral("a request with several Transfer-Encoding or Content-Length headers is refused");
    return {};
}

// A flow decided request by request: this request goes on only if a rule allows it; else
// 403 with the rule (or the lack of one), before anything of it reaches the upstream.
bool InterceptedConnection::requestAllowed(const http::RequestHead &head)
{
    if (!m_owner.m_requestDecider) {
        deny(403, "Forbidden", QStringLiteral("requests to %1 are decided one by one, and nothing decides them here").arg(m_sni));
        return false;
    }
    RequestVerdict v = m_owner.m_requestDecider(m_sandbox, m_sni, m_upstream.port, requestFacts(head.method, head.target));
    if (v.decision == Decision::Pending && m_owner.m_requestAsking) {
        const std::optional<RequestVerdict> answered = askAndWait(head);
        if (!answered)
            return false; // the guest is gone: nobody to answer
        v = *answered;
    }
    m_rule = v.rule;
    if (v.decision == Decision::Allowed) {
        m_servedNote = v.reason;
        return true;
    }
    deny(403, "Forbidden", v.reason);
    return false;
}

// A request no rule answers: held as a pending item and asked like a flow. This worker waits
// (the proxy's hold timeout ends the wait with a denial); a guest that closes meanwhile ends
// it too, with nothing sent anywhere.
std::optional<RequestVerdict> InterceptedConnection::askAndWait(const http::RequestHead &head)
{
    auto answer = std::make_shared<std::promise<RequestVerdict>>();
    auto answered = std::make_shared<std::atomic<bool>>(false);
    std::future<RequestVerdict> decided = answer->get_future();
    m_heldEventId = m_owner.m_requestAsking.ask(HeldRequest{m_sandbox, m_sni, m_upstream.port, head.method, m_path.left(2048), process()},
                                                 [answer, answered](const RequestVerdict &v) {
                                                     if (!answered->exchange(true))
                                                         answer->set_value(v);
                                                 });
    while (decided.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
        if (guestGone()) {
            m_owner.m_requestAsking.leave(m_heldEventId);
            emitEvent(false, QStringLiteral("closed before a decision"));
            return std::nullopt;
        }
    }
    return decided.get();
}

bool InterceptedConnection::guestGone() const
{
    pollfd p{m_guestFd, POLLRDHUP, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

// Upgrades, a foreign Host, and placeholders where they must not go are refused (false); each
// placeholder in its own header is swapped for the real value.
bool InterceptedConnection::checkAndInject(http::RequestHead &head)
{
    if (!head.header("Upgrade").isNull() || http::hasToken(head.header("Connection"), "upgrade")) {
        deny(403, "Forbidden", QStringLiteral("protocol upgrades (websocket) are refused on connections that carry secrets"));
        return false;
    }
    if (head.host != m_sni) {
        deny(403, "Forbidden", QStringLiteral("the Host header (%1) differs from the TLS server name").arg(head.host));
        return false;
    }
    injectQuery(head);
    // The URL, raw and percent-decoded.
    const QByteArray decodedTarget = QByteArray::fromPercentEncoding(head.target);
    if (auto name = placeholderIn(head.target.constData(), head.target.size()); name || (name = placeholderIn(decodedTarget.constData(), decodedTarget.size()))) {
        const QString why = QStringLiteral("the placeholder of secret %1 is in the URL; secrets travel only in their header").arg(*name);
        deny(403, "Forbidden", why, QStringLiteral("sandbox %1 put the placeholder of secret %2 in a URL to %3").arg(m_sandbox, *name, m_sni));
        return false;
    }
    // Headers: swap the placeholder where its secret may go; anything else is an exfiltration attempt.
    injectBasic(head);
    for (http::Header &h : head.headers) {
        if (auto name = placeholderIn(h.name.constData(), h.name.size())) {
            deny(403, "Forbidden", QStringLiteral("a header name carries the placeholder of secret %1").arg(*name),
                 QStringLiteral("sandbox %1 put the placeholder of secret %2 in a header name to %3").arg(m_sandbox, *name, m_sni));
            return false;
        }
        for (const LentSecret &s : m_secrets) {
            const bool plain = h.value.indexOf(s.placeholder) >= 0;
            if (!plain && !encodedIn(s, h.value))
                continue;
            if (!secrethosts::matchesAny(s.hosts, m_sni)) {
                deny(403, "Forbidden",
                     QStringLiteral("secret %1 is not bound to this host (only to %2)").arg(s.name, s.hosts.join(QStringLiteral(", "))),
                     QStringLiteral("sandbox %1 sent the placeholder of secret %2 to %3, which it is not bound to").arg(m_sandbox, s.name, m_sni));
                return false;
            }
            if (h.name.compare(s.headerName, Qt::CaseInsensitive) != 0) {
                const QString where = s.headerName.isEmpty() ? QStringLiteral("query parameter %1").arg(QString::fromLatin1(s.queryName))
                                                             : QStringLiteral("%1 header").arg(QString::fromLatin1(s.headerName));
                deny(403, "Forbidden",
                     QStringLiteral("secret %1 may only be sent in the %2, not in %3").arg(s.name, where, QString::fromLatin1(h.name)),
                     QStringLiteral("sandbox %1 sent the placeholder of secret %2 in header %3 to %4").arg(m_sandbox, s.name, QString::fromLatin1(h.name), m_sni));
                return false;
            }
            if (!plain) {
                deny(403, "Forbidden",
                     QStringLiteral("the placeholder of secret %1 is base64-encoded in the %2 header; only Basic credentials "
                                    "of a secret set with 'Authorization: Basic {}' are decoded").arg(s.name, QString::fromLatin1(h.name)),
                     QStringLiteral("sandbox %1 sent the placeholder of secret %2 base64-encoded in header %3 to %4").arg(m_sandbox, s.name, QString::fromLatin1(h.name), m_sni));
                return false;
            }
            h.value.replace(s.placeholder, s.value->view());
        }
    }
    return true;
}

InterceptedConnection::Next InterceptedConnection::serveOne(http::RequestHead &head)
{
    m_bytesUp = m_bytesDown = 0;
    m_servedNote.clear();
    // A refresh on another connection, a secret set again, a lock: this request sends what holds now.
    if (m_owner.m_vault.lentGeneration() != m_secretsGeneration)
        loadSecrets();
    m_method = head.method;
    m_path = head.target;
    m_rule = 0;
    m_heldEventId = 0;
    QByteArray &buf = m_guest.buffer();
    m_guest.setWaitMs(m_owner.m_options.idleTimeoutMs); // within a request, each read or write may wait this long

    int status = 400;
    if (const QString strict = strictnessError(head, &status); !strict.isEmpty()) {
        deny(status, status == 405 ? "Method Not Allowed" : "Bad Request", strict);
        return Next::Close;
    }
    if (m_perRequest && !requestAllowed(head))
        return Next::Close;
    if (m_locked) {
        deny(403, "Forbidden", QStringLiteral("%1; unlock it with `airlockctl vault unlock`").arg(Vault::lockedMessage()), lockedAlert(),
             QStringLiteral("vault_locked"));
        return Next::Close;
    }
    if (!checkAndInject(head))
        return Next::Close;
    const bool tokenRequest = m_logins && m_logins->begin(head.target);
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
    if (!m_mask.isEmpty() || tokenRequest) // a compressed answer could not be searched (responsemask.h) or captured
        head.headers.removeIf([](const http::Header &h) { return h.name.compare("Accept-Encoding", Qt::CaseInsensitive) == 0; });
    const bool closeAfter = http::hasToken(head.header("Connection"), "close") ||
                            (head.version == "HTTP/1.0" && !http::hasToken(head.header("Connection"), "keep-alive"));
    buf.remove(0, head.headEnd);

    qint64 checkedBody = -1; // a small body is read whole and checked before anything is sent; -1: streamed
    if (!readSmallBody(head, framing, &checkedBody))
        return Next::Close;
    QString why;
    if (!ensureUpstream(&why)) {
        deny(502, "Bad Gateway", why);
        return Next::Close;
    }
    QByteArray wire = http::serializeRequestHead(head);
    for (http::Header &h : head.headers)
        wipe(h.value); // the real value: cleansed as soon as it is on the wire
    wipe(head.target);  // a query parameter may carry one
    // A small body already checked whole goes out with the head, in one write.
    if (checkedBody > 0) {
        wire.append(buf.constData(), qsizetype(checkedBody));
        wipeFront(buf, qsizetype(checkedBody)); // it may hold a real token (swapTokenFields)
    }
    const bool sent = m_up.write(wire);
    m_bytesUp += wire.size();
    wipe(wire);
    if (!sent) {
        deny(502, "Bad Gateway", QStringLiteral("the connection to %1 broke").arg(m_sni));
        return Next::Close;
    }
    QString blocked, malformed;
    if (checkedBody < 0 && !relayRequestBody(framing, &blocked, &malformed)) {
        if (!blocked.isEmpty() || !malformed.isEmpty()) {
            // Cut the upstream connection mid-body: the request never completes there.
            linger hard{1, 0};
            ::setsockopt(m_upFd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
        }
        if (!blocked.isEmpty())
            deny(403, "Forbidden", QStringLiteral("the request body carries the placeholder of secret %1").arg(blocked),
                 QStringLiteral("sandbox %1 put the placeholder of secret %2 in a request body to %3").arg(m_sandbox, blocked, m_sni));
        else if (!malformed.isEmpty())
            deny(400, "Bad Request", malformed);
        return Next::Close;
    }
    Next next = closeAfter ? Next::Close : Next::KeepAlive;
    const bool relayed = relayResponse(&next);
    emitServed(relayed);
    return relayed && !closeAfter ? next : Next::Close;
}

// A body that ends within bufferedBodyLimit (Content-Length, or chunked and complete by then)
// is read whole: its placeholder check and its framing come before the upstream sees the head.
// *checkedBody: its size (sent with the head), or -1 when it is streamed instead.
bool InterceptedConnection::readSmallBody(http::RequestHead &head, const http::BodyFraming &framing, qint64 *checkedBody)
{
    QByteArray &buf = m_guest.buffer();
    const qint64 limit = m_owner.m_options.bufferedBodyLimit;
    if (framing.kind == http::BodyFraming::None || framing.kind == http::BodyFraming::UntilClose) {
        *checkedBody = 0;
        return true;
    }
    if (framing.kind == http::BodyFraming::Length && framing.length <= limit) {
        while (buf.size() < framing.length) {
            if (!m_guest.fill())
                return false;
        }
        *checkedBody = framing.length;
    } else if (framing.kind == http::BodyFraming::Chunked) {
        http::ChunkedDecoder decoder;
        qsizetype fed = 0;
        while (!decoder.done() && buf.size() <= limit) {
            fed += decoder.feed(buf.constData() + fed, buf.size() - fed);
            if (decoder.error()) {
                deny(400, "Bad Request", QStringLiteral("%1; nothing was sent").arg(kMalformedChunked));
                return false;
            }
            if (!decoder.done() && !m_guest.fill())
                return false;
        }
        *checkedBody = decoder.done() ? fed : -1;
    }
    if (*checkedBody <= 0)
        return true;
    if (m_logins && m_logins->active() && framing.kind == http::BodyFraming::Length)
        swapTokenFields(head, checkedBody);
    if (auto name = placeholderIn(buf.constData(), qsizetype(*checkedBody))) {
        deny(403, "Forbidden", QStringLiteral("the request body carries the placeholder of secret %1").arg(*name),
             QStringLiteral("sandbox %1 put the placeholder of secret %2 in a request body to %3").arg(m_sandbox, *name, m_sni));
        return false;
    }
    return true;
}

// A request to a sign-in's token URL: the placeholders of tokens the login lets the guest
// send back (a refresh token, an id token to exchange) become the real values, in place, and
// Content-Length follows. Whatever placeholder is left is refused by the check after this.
void InterceptedConnection::swapTokenFields(http::RequestHead &head, qint64 *checkedBody)
{
    QByteArray &buf = m_guest.buffer();
    const qsizetype n = qsizetype(*checkedBody);
    tokenexchange::Swapped swapped = m_logins->swapRequest(QByteArrayView(buf.constData(), n), head.header("Content-Type"), m_secrets);
    if (swapped.secrets.isEmpty())
        return;
    wipeFront(buf, n);
    buf.prepend(swapped.body);
    *checkedBody = swapped.body.size();
    wipe(swapped.body);
    for (http::Header &h : head.headers)
        if (h.name.compare("Content-Length", Qt::CaseInsensitive) == 0)
            h.value = QByteArray::number(*checkedBody);
}

bool InterceptedConnection::relayRequestBody(const http::BodyFraming &framing, QString *blocked, QString *malformed)
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
            if (decoder.error()) {
                *malformed = kMalformedChunked;
                return false;
            }
            if (!checkAndSend(n))
                return false;
        }
        return true;
    }
    }
    return false;
}

// Everything the guest gets of an answer passes here, through the mask; `end` is the answer's
// last byte, when what the mask held back goes too.
bool InterceptedConnection::down(QByteArrayView bytes, bool end)
{
    m_bytesDown += bytes.size();
    QByteArray out = m_mask.feed(bytes);
    if (end)
        out += m_mask.finish();
    return out.isEmpty() || m_guest.write(out);
}

// The request's record; an answer that carried a real value back raises an alert.
void InterceptedConnection::emitServed(bool relayed)
{
    const QStringList masked = m_mask.takeMasked();
    if (masked.isEmpty()) {
        if (relayed)
            emitEvent(true, std::exchange(m_servedNote, {}));
        return;
    }
    const QString names = masked.join(QStringLiteral(", "));
    const QString alert = QStringLiteral("the answer of %1 to %2 %3 carried the real value of secret %4; sandbox %5 got the "
                                         "placeholder instead").arg(m_sni, QString::fromLatin1(m_method), QString::fromLatin1(m_path.left(200)), names, m_sandbox);
    qCWarning(lcBroker) << "exfiltration alert from sandbox" << m_sandbox << ":" << alert;
    emitEvent(relayed, QStringLiteral("the answer carried the real value of secret %1 (masked)").arg(names), alert);
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
        const QByteArray coding = head.header("Content-Encoding").trimmed();
        if (framing.kind != http::BodyFraming::None && !coding.isEmpty() && coding.compare("identity", Qt::CaseInsensitive) != 0) {
            deny(502, "Bad Gateway", QStringLiteral("%1 answered with Content-Encoding %2 although none was asked for; an encoded answer "
                                                    "cannot be searched for secrets").arg(m_sni, QString::fromLatin1(coding.left(40))));
            return false;
        }
        if (m_logins && m_logins->active() && head.status >= 200)
            return relayTokenAnswer(head, framing, next);
        // A small response already read whole goes out in one write (one TLS record).
        const bool small = head.status >= 200 && framing.kind == http::BodyFraming::Length && in.size() - head.headEnd >= framing.length;
        const qsizetype first = head.headEnd + (small ? qsizetype(framing.length) : 0);
        if (!down(QByteArrayView(in.constData(), first), small || head.status < 200 || framing.kind == http::BodyFraming::None))
            return false;
        in.remove(0, first);
        if (head.status < 200)
            continue;     // interim response (100, 103): the final one follows
        if (small)
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
                left -= n;
                if (!down(QByteArrayView(in.constData(), n), left == 0))
                    return false;
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
                if (decoder.error() || !down(QByteArrayView(in.constData(), n), decoder.done()))
                    return false;
                in.remove(0, n);
            }
            return true;
        }
        case http::BodyFraming::UntilClose:
            *next = Next::Close;
            for (;;) {
                if (!in.isEmpty()) {
                    if (!down(in, false))
                        return false;
                    in.clear();
                }
                if (!m_up.fill())
                    return down({}, true);
            }
        }
        return false;
    }
}

// The answer of a token URL is read whole (bounded), its tokens kept in the vault, and the
// guest gets it with placeholders, re-framed with its new Content-Length. An answer that
// cannot be read whole, or whose tokens cannot be kept, never reaches the guest.
bool InterceptedConnection::relayTokenAnswer(const http::ResponseHead &head, const http::BodyFraming &framing, Next *next)
{
    QByteArray &in = m_up.buffer();
    const qsizetype limit = tokenexchange::kMaxBody;
    const auto tooLarge = [&] {
        deny(502, "Bad Gateway", QStringLiteral("the answer of %1's token endpoint is larger than %2 KiB; a sign-in's answer is read "
                                                "whole to keep its tokens out of the sandbox").arg(m_sni).arg(limit / 1024));
        return false;
    };
    qsizetype end = head.headEnd; // where the answer ends in `in`
    std::optional<QByteArray> body = QByteArray();
    if (framing.kind == http::BodyFraming::Length) {
        if (framing.length > limit)
            return tooLarge();
        while (in.size() < head.headEnd + framing.length)
            if (!m_up.fill())
                return false;
        end = head.headEnd + qsizetype(framing.length);
        body = in.mid(head.headEnd, qsizetype(framing.length));
    } else if (framing.kind == http::BodyFraming::Chunked) {
        http::ChunkedDecoder decoder;
        while (!decoder.done()) {
            if (end - head.headEnd > 2 * limit)
                return tooLarge();
            if (end == in.size() && !m_up.fill())
                return false;
            end += decoder.feed(in.constData() + end, in.size() - end);
            if (decoder.error())
                return false;
        }
        body = http::dechunk(QByteArrayView(in).sliced(head.headEnd, end - head.headEnd), limit);
        if (!body)
            return tooLarge();
    } else if (framing.kind == http::BodyFraming::UntilClose) {
        while (m_up.fill())
            if (in.size() - head.headEnd > limit)
                return tooLarge();
        end = in.size();
        body = in.mid(head.headEnd);
        *next = Next::Close;
    }
    const bool success = head.status >= 200 && head.status < 300;
    LoginCapture::Answer answer = m_logins->captureAnswer(*body);
    wipe(*body);
    if (!answer.error.isEmpty() && success) {
        wipeFront(in, end);
        deny(502, "Bad Gateway", QStringLiteral("the sign-in at %1 was not passed on: %2").arg(m_sni, answer.error));
        return false;
    }
    if (!answer.error.isEmpty())
        answer.body = in.mid(head.headEnd, end - head.headEnd); // an error answer without tokens goes as it came
    QByteArray wire = in.left(in.indexOf("\r\n") + 2); // the status line
    for (const auto &[name, value] : head.headers) {
        if (name.compare("Content-Length", Qt::CaseInsensitive) != 0 && name.compare("Transfer-Encoding", Qt::CaseInsensitive) != 0)
            wire += name + ": " + value + "\r\n";
    }
    if (framing.kind != http::BodyFraming::None)
        wire += "Content-Length: " + QByteArray::number(answer.body.size()) + "\r\n";
    wire += "\r\n" + answer.body;
    wipeFront(in, end);
    if (http::hasToken(head.header("Connection"), "close") || head.version == "HTTP/1.0")
        *next = Next::Close;
    if (!answer.stored.isEmpty()) {
        loadSecrets(); // the next request on this connection sends the new tokens
        m_servedNote = QStringLiteral("sign-in: the tokens %1 are kept in the vault; the sandbox got placeholders")
                           .arg(answer.stored.join(QStringLiteral(", ")));
    }
    return down(wire, true);
}

Interceptor::Interceptor(Vault &vault, Options options, EventSink sink)
    : m_vault(vault), m_options(std::move(options)), m_sink(std::move(sink))
{
    m_options.maxWorkers = std::max(1, m_options.maxWorkers);
    m_options.maxWorkersPerSandbox = std::clamp(m_options.maxWorkersPerSandbox, 1, m_options.maxWorkers);
    m_workers.reserve(size_t(m_options.maxWorkers)); // starting a worker never reallocates
}

Interceptor::~Interceptor()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        for (const auto &[fd, sandbox] : m_fds)
            ::shutdown(fd, SHUT_RDWR); // wakes every wait: workers finish at once
        m_work.notify_all();
    }
    for (std::thread &t : m_workers)
        t.join();
    std::deque<Connection> queued;
    {
        std::lock_guard lock(m_mutex);
        queued.swap(m_queue);
    }
    queued.clear();
    if (m_parker) {
        m_parker->call([this] {
            for (const auto &[fd, connection] : m_parked)
                m_parker->remove(fd);
            m_parked.clear();
        });
        m_parker->stop();
    }
    std::unique_lock lock(m_mutex);
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
    // Connections waiting for their guest sit here, holding no worker.
    m_parker = std::make_unique<EpollLoop>();
    m_parker->start(QStringLiteral("alk-icpt-park"), [this] { expireParked(); }, 200);
    m_parker->post([] { ::pthread_setname_np(::pthread_self(), "alk-icpt-park"); });
    return ok();
}

bool Interceptor::needsInterception(const QString &sandbox, const QString &host, bool perRequest)
{
    const Result<QStringList> hosts = m_vault.boundHosts(sandbox);
    if (hosts && secrethosts::matchesAny(hosts.value(), host))
        return true;
    return perRequest && secrethosts::matchesAny(m_vault.caHosts(sandbox), host);
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

bool Interceptor::track(int fd, const QString &sandbox)
{
    std::lock_guard lock(m_mutex);
    if (m_stopping)
        return false;
    m_fds.emplace(fd, sandbox);
    return true;
}

void Interceptor::endSandbox(const QString &sandbox)
{
    // Under m_mutex no tracked fd is closed (a connection untracks before it closes), so
    // none of these can be another connection's by now.
    std::lock_guard lock(m_mutex);
    for (const auto &[fd, owner] : m_fds)
        if (owner == sandbox)
            ::shutdown(fd, SHUT_RDWR);
}

void Interceptor::untrack(int fd)
{
    std::lock_guard lock(m_mutex);
    m_fds.erase(fd);
}

void Interceptor::connectionEnded()
{
    std::lock_guard lock(m_mutex);
    if (m_active.fetch_sub(1) == 1)
        m_idle.notify_all();
}

int Interceptor::workerThreads()
{
    std::lock_guard lock(m_mutex);
    return int(m_workers.size());
}

QString Interceptor::admit(const QString &sandbox)
{
    if (m_stopping)
        return QStringLiteral("airlockd is stopping");
    if (m_active.load() >= m_options.maxConnections)
        return QStringLiteral("%1 intercepted connections are open, the limit").arg(m_options.maxConnections);
    if (m_newQueuedTotal >= m_options.maxQueued)
        return QStringLiteral("every intercept worker is busy and %1 new connections already wait for one").arg(m_newQueuedTotal);
    const auto own = m_newQueued.find(sandbox);
    if (own != m_newQueued.end() && own->second >= m_options.maxQueuedPerSandbox)
        return QStringLiteral("the sandbox's intercept workers are busy and %1 of its new connections already wait for one")
            .arg(own->second);
    return {};
}

bool Interceptor::startWorker(QString *why)
{
    try {
        std::function<void()> body = [this] { workerLoop(); };
        m_workers.push_back(m_options.startThread ? m_options.startThread(std::move(body)) : std::thread(std::move(body)));
        return true;
    } catch (const std::exception &e) { // std::system_error: no thread left (EAGAIN), or no memory
        *why = QStringLiteral("no intercept worker could be started (%1)").arg(QString::fromLocal8Bit(e.what()));
        qCWarning(lcBroker) << *why;
        return false;
    }
}

// A queued connection finds an idle worker, or a new one if the pool may grow. False only when
// there is no worker at all and none could be started.
bool Interceptor::ensureWorker(QString *why)
{
    if (int(m_queue.size()) > m_idleWorkers && int(m_workers.size()) < m_options.maxWorkers && !startWorker(why))
        return !m_workers.empty(); // the workers there are will get to it
    m_work.notify_one();
    return true;
}

void Interceptor::handle(int guestFd, const QString &sandbox, const QString &sni, const QByteArray &alreadyRead,
                         const UpstreamAddress &upstream, bool perRequest, std::function<void()> done, GuestProcessLookup whoAsks)
{
    m_active.fetch_add(1);
    Connection connection;
    try {
        connection = std::make_unique<InterceptedConnection>(*this, guestFd, sandbox, sni, alreadyRead, upstream, perRequest,
                                                             std::move(done), std::move(whoAsks));
    } catch (const std::bad_alloc &) {
        ::close(guestFd);
        if (done)
            done();
        connectionEnded();
        return;
    }
    QString why;
    {
        std::lock_guard lock(m_mutex);
        why = admit(sandbox);
        if (why.isEmpty()) {
            m_queue.push_back(std::move(connection));
            if (ensureWorker(&why)) {
                m_fds.emplace(guestFd, sandbox);
                m_queue.back()->queuedNew = true;
                ++m_newQueued[sandbox];
                ++m_newQueuedTotal;
                return;
            }
            connection = std::move(m_queue.back());
            m_queue.pop_back();
        }
    }
    qCWarning(lcBroker) << "refused an intercepted connection of sandbox" << sandbox << "to" << sni << ":" << why;
    connection->refuse(why); // the guest gets a reset; `done` runs as it goes
}

Interceptor::Connection Interceptor::nextJob(std::unique_lock<std::mutex> &lock)
{
    for (;;) {
        if (m_stopping)
            return {};
        for (auto it = m_queue.begin(); it != m_queue.end(); ++it) {
            const auto busy = m_busy.find((*it)->sandbox());
            if (busy != m_busy.end() && busy->second >= m_options.maxWorkersPerSandbox)
                continue; // that sandbox has its share; its flows wait for its own workers
            Connection c = std::move(*it);
            m_queue.erase(it);
            if (c->queuedNew) {
                c->queuedNew = false;
                --m_newQueuedTotal;
                if (--m_newQueued[c->sandbox()] == 0)
                    m_newQueued.erase(c->sandbox());
            }
            return c;
        }
        ++m_idleWorkers;
        m_work.wait(lock);
        --m_idleWorkers;
    }
}

void Interceptor::workerLoop()
{
    ::pthread_setname_np(::pthread_self(), "alk-intercept"); // visible in top -H; benchmarks count its CPU
    std::unique_lock lock(m_mutex);
    for (;;) {
        Connection c = nextJob(lock);
        if (!c)
            return;
        const QString sandbox = c->sandbox();
        ++m_busy[sandbox];
        lock.unlock();
        try {
            if (c->advance() == InterceptedConnection::Step::Park)
                park(std::move(c));
        } catch (const std::exception &e) { // out of memory for a buffer: this connection ends, airlockd goes on
            qCWarning(lcBroker) << "an intercepted connection of sandbox" << sandbox << "failed:" << e.what();
            if (c)
                c->fail(QStringLiteral("airlockd could not serve the connection (%1)").arg(QString::fromLocal8Bit(e.what())));
        }
        c.reset(); // closes it (outside the lock: it untracks its fds)
        lock.lock();
        if (--m_busy[sandbox] == 0)
            m_busy.erase(sandbox);
    }
}

// The connection waits for the guest on the parker's epoll, without a worker.
void Interceptor::park(Connection connection)
{
    connection->releaseBuffers();
    auto shared = std::make_shared<Connection>(std::move(connection)); // std::function needs a copyable capture
    m_parker->post([this, shared] {
        Connection c = std::move(*shared);
        const int fd = c->guestFd();
        const bool watched = m_parker->add(fd, EPOLLIN | EPOLLRDHUP, [this, fd](uint32_t) {
            const auto it = m_parked.find(fd);
            if (it == m_parked.end())
                return;
            m_parker->remove(fd);
            Connection woken = std::move(it->second);
            m_parked.erase(it);
            std::lock_guard lock(m_mutex);
            if (m_stopping)
                return; // `woken` closes after the lock is released
            m_queue.push_back(std::move(woken));
            QString why;
            ensureWorker(&why); // it was served before, so a worker exists

        });
        if (watched)
            m_parked.emplace(fd, std::move(c));
    });
}

void Interceptor::expireParked()
{
    const auto now = InterceptedConnection::Clock::now();
    for (auto it = m_parked.begin(); it != m_parked.end();) {
        if (now < it->second->parkedUntil()) {
            ++it;
            continue;
        }
        m_parker->remove(it->first);
        it->second->expire();
        it = m_parked.erase(it);
    }
}

} // namespace airlock
