#pragma once
// The plain-HTTP checker of a flow decided on a name: every request head on the connection
// (keep-alive, pipelined) is parsed as the upstream will parse it (httphead.h) and must name
// that host; request bodies are framed (Content-Length, chunked: httpframing.h) so the next
// head is looked for exactly where the upstream will look. Only checked bytes are cleared.
// A protocol upgrade (websocket, h2c) makes the rest of the stream opaque: unverified.
// Bounded: one head (http::kMaxHead) is held at most.
#include "httpframing.h"
#include "httphead.h"
#include "streamcheck.h"

#include <QByteArray>
#include <functional>
#include <optional>

namespace airlock {

class HttpStreamCheck : public StreamCheck {
public:
    // `host` the name the guest resolved (lower case), `port` the port it dialled.
    HttpStreamCheck(QString host, quint16 port);

    bool client(QByteArrayView bytes) override;
    qint64 cleared() const override { return m_cleared; }
    QString error() const override { return m_error; }
    QString unverified() const override { return m_unverified; }

    int requests() const { return m_requests; } // heads read, the refused one included
    // The first request's head, once it was read (checked, or refused if error() says so).
    const std::optional<http::RequestHead> &first() const { return m_first; }
    // The stream started like an HTTP/1.x request (so it is checked as one).
    bool looksHttp() const { return m_looksHttp; }
    // Asked about every head read after it is set (a flow decided request by request): ""
    // lets the request pass, anything else is why it is refused.
    using RequestCheck = std::function<QString(const http::RequestHead &)>;
    void setRequestCheck(RequestCheck check) { m_requestCheck = std::move(check); }

private:
    enum class State { Head, Length, Chunked, Opaque, Refused };
    bool refuse(const QString &why);
    bool takeHead(QByteArrayView *rest);
    bool checkHead(const http::RequestHead &head);
    QString m_host;
    quint16 m_port;
    State m_state = State::Head;
    QByteArray m_head;          // the head being read (never cleared before it is checked)
    QByteArray m_tail;          // what followed the last head in the same read
    qsizetype m_searched = 0;   // how much of m_head was searched for the end of the head
    qint64 m_cleared = 0;
    qint64 m_bodyLeft = 0;
    bool m_opaqueAfterBody = false;
    bool m_looksHttp = false;    // the stream starts like HTTP/1.x
    http::ChunkedDecoder m_chunked;
    int m_requests = 0;
    std::optional<http::RequestHead> m_first;
    RequestCheck m_requestCheck;
    QString m_error;
    QString m_unverified;
};

} // namespace airlock
