#include "api/linereader.h"

namespace airlock::rpc {

void LineReader::append(QByteArrayView bytes)
{
    if (m_overflowed)
        return;
    // Drop consumed lines before growing, so the buffer is at most one line plus one read.
    if (m_start > 0) {
        m_buffer.remove(0, m_start);
        m_start = 0;
    }
    m_buffer.append(bytes);
}

std::optional<QByteArray> LineReader::next()
{
    if (m_overflowed)
        return std::nullopt;
    const qsizetype nl = m_buffer.indexOf('\n', m_start + m_scanned);
    if (nl < 0) {
        m_scanned = m_buffer.size() - m_start;
        if (m_scanned > m_max)
            m_overflowed = true;
        return std::nullopt;
    }
    qsizetype length = nl - m_start;
    if (length > 0 && m_buffer.at(nl - 1) == '\r')
        --length;
    if (length > m_max) {
        m_overflowed = true;
        return std::nullopt;
    }
    QByteArray line = m_buffer.mid(m_start, length);
    m_start = nl + 1;
    m_scanned = 0;
    return line;
}

void LineReader::clear()
{
    m_buffer.clear();
    m_start = 0;
    m_scanned = 0;
    m_overflowed = false;
}

} // namespace airlock::rpc
