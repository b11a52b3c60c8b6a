#include "tlstestserver.h"
#include "x509util.h"

#include <QHostAddress>
#include <QString>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace airlock;

QByteArray TlsTestServer::Request::header(const QByteArray &name) const
{
    for (const auto &h : headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return {};
}

TlsTestServer::TlsTestServer(X509 *cert, EVP_PKEY *key) : TlsTestServer(cert, key, INADDR_LOOPBACK, 0) {}

TlsTestServer::TlsTestServer(X509 *cert, EVP_PKEY *key, quint32 ipv4, quint16 port)
{
    m_ctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(m_ctx, cert);
    SSL_CTX_use_PrivateKey(m_ctx, key);
    m_listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(m_listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(ipv4);
    a.sin_port = htons(port);
    ::bind(m_listener, reinterpret_cast<sockaddr *>(&a), sizeof a);
    ::listen(m_listener, 1024);
    socklen_t len = sizeof a;
    ::getsockname(m_listener, reinterpret_cast<sockaddr *>(&a), &len);
    m_port = ntohs(a.sin_port);
    m_acceptor = std::thread([this] { acceptLoop(); });
}

TlsTestServer::~TlsTestServer()
{
    m_stop = true;
    ::shutdown(m_listener, SHUT_RDWR);
    m_acceptor.join();
    ::close(m_listener);
    {
        std::lock_guard lock(m_mutex);
        for (int fd : m_fds)
            ::shutdown(fd, SHUT_RDWR);
    }
    while (m_active.load() > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    SSL_CTX_free(m_ctx);
}

QList<TlsTestServer::Request> TlsTestServer::requests()
{
    std::lock_guard lock(m_mutex);
    return m_requests;
}

void TlsTestServer::acceptLoop()
{
    for (;;) {
        const int fd = ::accept4(m_listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0 || m_stop) {
            if (fd >= 0)
                ::close(fd);
            return;
        }
        const int one = 1; // answers go out at once (no Nagle wait behind the session tickets)
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        const int id = ++m_connections;
        std::lock_guard lock(m_mutex);
        m_fds.push_back(fd);
        ++m_active;
        std::thread([this, fd, id] {
            serve(fd, id);
            --m_active;
        }).detach();
    }
}

namespace {
bool fill(SSL *ssl, QByteArray &buf, std::atomic<qint64> &counter)
{
    char tmp[65536];
    size_t n = 0;
    if (SSL_read_ex(ssl, tmp, sizeof tmp, &n) != 1 || n == 0)
        return false;
    counter += qint64(n);
    buf.append(tmp, qsizetype(n));
    return true;
}
} // namespace

void TlsTestServer::serve(int fd, int id)
{
    SSL *ssl = SSL_new(m_ctx);
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) == 1) {
        QByteArray buf;
        for (;;) {
            qsizetype end;
            while ((end = buf.indexOf("\r\n\r\n")) < 0) {
                if (!fill(ssl, buf, m_appBytes))
                    goto done;
            }
            Request r;
            r.connection = id;
            const QList<QByteArray> lines = buf.left(end).split('\n');
            const QList<QByteArray> first = lines.first().trimmed().split(' ');
            r.method = first.value(0);
            r.target = first.value(1);
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const QByteArray line = lines.at(i).trimmed();
                const qsizetype c = line.indexOf(':');
                r.headers.append({line.left(c).trimmed(), line.mid(c + 1).trimmed()});
            }
            buf.remove(0, end + 4);
            if (r.header("Transfer-Encoding").toLower() == "chunked") {
                for (;;) { // size line, data, CRLF ... 0 CRLF CRLF (no trailers in these tests)
                    qsizetype eol;
                    while ((eol = buf.indexOf("\r\n")) < 0)
                        if (!fill(ssl, buf, m_appBytes))
                            goto done;
                    const qint64 size = buf.left(eol).split(';').first().trimmed().toLongLong(nullptr, 16);
                    while (buf.size() < eol + 2 + size + 2)
                        if (!fill(ssl, buf, m_appBytes))
                            goto done;
                    r.body += buf.mid(eol + 2, size);
                    buf.remove(0, eol + 2 + size + 2);
                    if (size == 0)
                        break;
                }
            } else {
                const qint64 length = r.header("Content-Length").toLongLong();
                while (buf.size() < length)
                    if (!fill(ssl, buf, m_appBytes))
                        goto done;
                r.body = buf.left(length);
                buf.remove(0, length);
            }
            int index = int(++m_served);
            if (!m_expectName.isEmpty() && r.header(m_expectName) == m_expectValue)
                ++m_matched;
            if (m_recording) {
                std::lock_guard lock(m_mutex);
                m_requests.append(r);
                index = int(m_requests.size());
            }
            QByteArray response = m_responder ? m_responder(r) : QByteArray();
            if (!response.isEmpty()) {
                SSL_write(ssl, response.constData(), int(response.size()));
                continue;
            }
            if (r.target.startsWith("/big")) {
                const qint64 n = r.target.mid(r.target.indexOf('=') + 1).toLongLong();
                response = "HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(n) + "\r\n\r\n";
                SSL_write(ssl, response.constData(), int(response.size()));
                const QByteArray block(65536, 'x');
                for (qint64 left = n; left > 0; left -= block.size())
                    SSL_write(ssl, block.constData(), int(std::min<qint64>(left, block.size())));
                continue;
            }
            const QByteArray body = "ok " + QByteArray::number(id) + "-" + QByteArray::number(index) + " " +
                                    QByteArray::number(r.body.size()) + "\n";
            if (r.target.startsWith("/chunked")) {
                response = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
                           QByteArray::number(body.size(), 16) + "\r\n" + body + "\r\n0\r\n\r\n";
            } else {
                response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " +
                           QByteArray::number(body.size()) + "\r\n\r\n" + body;
            }
            SSL_write(ssl, response.constData(), int(response.size()));
        }
    }
done:
    SSL_shutdown(ssl);
    SSL_free(ssl);
    std::lock_guard lock(m_mutex);
    std::erase(m_fds, fd);
    ::close(fd);
}

TestPki::TestPki()
{
    caKey = x509util::generateP256();
    caCert = x509util::newCertificate(QStringLiteral("Airlock test upstream CA"), 3600, 86400);
    X509_set_issuer_name(caCert, X509_get_subject_name(caCert));
    X509_set_pubkey(caCert, caKey);
    x509util::addExtension(caCert, caCert, NID_basic_constraints, "critical,CA:TRUE");
    x509util::addExtension(caCert, caCert, NID_key_usage, "critical,keyCertSign,cRLSign");
    x509util::addExtension(caCert, caCert, NID_subject_key_identifier, "hash");
    X509_sign(caCert, caKey, EVP_sha256());
}

TestPki::~TestPki()
{
    X509_free(caCert);
    EVP_PKEY_free(caKey);
}

void TestPki::issue(const QList<QByteArray> &names, X509 **cert, EVP_PKEY **key) const
{
    *key = x509util::generateP256();
    *cert = x509util::newCertificate(QString::fromLatin1(names.first()), 3600, 86400);
    X509_set_issuer_name(*cert, X509_get_subject_name(caCert));
    X509_set_pubkey(*cert, *key);
    QByteArray san;
    for (const QByteArray &n : names)
        san += QByteArray(san.isEmpty() ? "" : ",") + (QHostAddress(QString::fromLatin1(n)).isNull() ? "DNS:" : "IP:") + n;
    x509util::addExtension(*cert, caCert, NID_subject_alt_name, san);
    x509util::addExtension(*cert, caCert, NID_ext_key_usage, "serverAuth");
    x509util::addExtension(*cert, caCert, NID_subject_key_identifier, "hash");
    x509util::addExtension(*cert, caCert, NID_authority_key_identifier, "keyid:always");
    X509_sign(*cert, caKey, EVP_sha256());
}

QByteArray TestPki::caPem() const { return x509util::toPem(caCert); }
