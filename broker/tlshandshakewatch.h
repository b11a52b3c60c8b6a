#pragma once
// The TLS checker of a flow decided on a name. Every ClientHello the guest sends before the
// handshake is settled must name that host in its SNI and carry no Encrypted Client Hello or
// ESNI: the first one, and the second one a client sends after the server's
// HelloRetryRequest. So the guest's plaintext records are read (handshake records are
// ClientHellos; change_cipher_spec, alert and early application_data records pass) and so
// are the upstream's, until a ServerHello that is not a HelloRetryRequest is seen; from the
// next record boundary of the guest on, the flow is settled and relayed without looking.
// Bounded: one ClientHello (tls::kMaxPeek) and a few header bytes are held at most.
#include "clienthello.h"
#include "streamcheck.h"

#include <QByteArray>

namespace airlock {

class TlsHandshakeWatch : public StreamCheck {
public:
    explicit TlsHandshakeWatch(QString host);

    bool client(QByteArrayView bytes) override;
    bool server(QByteArrayView bytes) override;
    bool wantsServer() const override { return !m_serverHello && m_error.isEmpty(); }
    qint64 cleared() const override { return m_cleared; }
    bool settled() const override { return m_settled; }
    QString error() const override { return m_error; }
    QString unverified() const override { return m_unverified; }

    // The first ClientHello, once complete (for the event: SNI, ALPN).
    const tls::ClientHello &firstHello() const { return m_first; }
    int hellos() const { return m_hellos; }
    int retries() const { return m_retries; } // HelloRetryRequests seen

private:
    bool refuse(const QString &why);
    bool checkHello(const tls::ClientHello &hello);
    bool serverRecordBody(QByteArrayView body);
    void settleIfIdle();
    QString m_host;
    // Guest side.
    QByteArray m_pending;      // an incomplete record header or ClientHello
    qint64 m_skip = 0;         // bytes left of a record that passes unread
    qint64 m_cleared = 0;
    int m_hellos = 0;
    tls::ClientHello m_first;
    // Upstream side.
    QByteArray m_serverHeader; // the record header being read
    qint64 m_serverLeft = 0;   // bytes left of the current record's body
    quint8 m_serverType = 0;
    QByteArray m_message;      // the start of the current handshake message (type, length, version, random)
    qint64 m_messageLeft = -1; // bytes left of the current handshake message after m_message, -1 before its header
    int m_retries = 0;
    bool m_serverHello = false;
    bool m_settled = false;
    QString m_error;
    QString m_unverified;
};

} // namespace airlock
