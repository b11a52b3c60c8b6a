#include "httpstreamcheck.h"

namespace airlock {

HttpStreamCheck::HttpStreamCheck(QString host, quint16 port) : m_host(std::move(host)), m_port(port) {}

bool HttpStreamCheck::refuse(const QString &why)
{
    m_state = State::Refused;
    m_error = m_requests > 1 ? QStringLiteral("request %1 on the connection: %2").arg(m_requests).arg(why) : why;
    return false;
}

bool HttpStreamCheck::client(QByteArrayView in)
{
    QByteArrayView rest; // the bytes after a head (in m_tail)
    while (!in.isEmpty()) {
        switch (m_state) {
        case State::Refused:
            return false;
        case State::Opaque:
            m_cleared += in.size();
            return true;
        case State::Length: {
            const qint64 take = std::min<qint64>(m_bodyLeft, in.size());
            m_bodyLeft -= take;
            m_cleared += take;
            in = in.sliced(take);
            if (!m_bodyLeft)
                m_state = m_opaqueAfterBody ? State::Opaque : State::Head;
            break;
        }
        case State::Chunked: {
            const qsizetype used = m_chunked.feed(in.data(), in.size());
            if (m_chunked.error())
                return refuse(QStringLiteral("a malformed chunked request body"));
            m_cleared += used;
            in = in.sliced(used);
            if (m_chunked.done())
                m_state = m_opaqueAfterBody ? State::Opaque : State::Head;
            break;
        }
        case State::Head:
            m_head.append(in.data(), in.size());
            if (!takeHead(&rest))
                return m_state != State::Refused;
            in = rest;
            break;
        }
    }
    return m_state != State::Refused;
}

// True when a whole head was checked and consumed (`rest` holds what followed it).
bool HttpStreamCheck::takeHead(QByteArrayView *restView)
{
    if (!m_looksHttp) {
        const http::Looks looks = http::looksLikeRequest(m_head);
        if (looks == http::Looks::Maybe)
            return false;
        if (looks == http::Looks::No) {
            // Some other protocol: nothing here can be checked, and nothing more is parsed.
            m_unverified = QStringLiteral("the first bytes are neither TLS nor HTTP/1.x, so the broker cannot check where they go");
            m_state = State::Opaque;
            m_cleared += m_head.size();
            m_head.clear();
            return false;
        }
        m_looksHttp = true;
    }
    // Parsed only once the end of a head can be there: parsing on every read would let a
    // guest that sends one byte at a time cost quadratic time.
    // The end of a head comes after its request line, not in the blank lines before it.
    qsizetype blank = 0;
    while (blank <= 2 * http::kMaxBlankLines && QByteArrayView(m_head).sliced(blank).startsWith("\r\n"))
        blank += 2;
    const qsizetype from = std::max<qsizetype>(blank, m_searched - 3);
    m_searched = m_head.size();
    if (m_head.indexOf("\r\n\r\n", from) < 0 && m_head.indexOf("\n\n", from) < 0 && m_head.size() < http::kMaxHead)
        return false;
    const http::HeadResult r = http::parseRequestHead(m_head);
    if (r.status == http::HeadResult::Status::NeedMore)
        return false;
    ++m_requests;
    if (r.status == http::HeadResult::Status::Invalid)
        return refuse(QStringLiteral("malformed HTTP request: %1").arg(r.error));
    if (!m_first)
        m_first = r.head;
    if (!checkHead(r.head))
        return false;
    m_cleared += r.head.headEnd;
    m_tail = m_head.mid(r.head.headEnd);
    m_head.clear();
    m_searched = 0;
    *restView = m_tail;
    return true;
}

bool HttpStreamCheck::checkHead(const http::RequestHead &head)
{
    if (http::tunnelsOrEchoes(head.method))
        return refuse(QStringLiteral("the method %1 is refused (it tunnels or echoes past the check)")
                              .arg(QString::fromLatin1(head.method.left(16))));
    if (head.host != m_host)
        return refuse(QStringLiteral("HTTP Host %1 differs from the name resolved, %2 (domain fronting)").arg(head.host, m_host));
    if (head.hostPort && head.hostPort != m_port && head.hostPort != 80)
        return refuse(QStringLiteral("HTTP Host names port %1, but the guest dialled %2").arg(head.hostPort).arg(m_port));
    if (m_requestCheck) {
        if (const QString why = m_requestCheck(head); !why.isEmpty())
            return refuse(why);
    }
    QString framingError;
    const http::BodyFraming framing =
        http::requestFraming(head.header("Transfer-Encoding"), head.header("Content-Length"), &framingError);
    if (!framingError.isEmpty())
        return refuse(framingError);
    // After an upgrade the stream speaks another protocol: opaque, so unverified.
    m_opaqueAfterBody = !head.header("Upgrade").isNull() || http::hasToken(head.header("Connection"), "upgrade");
    if (m_opaqueAfterBody && m_unverified.isEmpty())
        m_unverified = QStringLiteral("request %1 asks for a protocol upgrade (%2), after which the broker cannot check the "
                                      "connection").arg(m_requests).arg(QString::fromLatin1(head.header("Upgrade").left(64)));
    switch (framing.kind) {
    case http::BodyFraming::Length:
        m_bodyLeft = framing.length;
        m_state = State::Length;
        break;
    case http::BodyFraming::Chunked:
        m_chunked = http::ChunkedDecoder();
        m_state = State::Chunked;
        break;
    default:
        m_state = m_opaqueAfterBody ? State::Opaque : State::Head;
        break;
    }
    return true;
}

} // namespace airlock
