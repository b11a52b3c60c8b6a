#pragma once
#include <QByteArray>
#include <QByteArrayView>
#include <optional>

namespace airlock::rpc {

// Splits a byte stream into `\n`-terminated lines (a `\r` before the `\n` is dropped) and
// never holds more than one line's limit plus one read: every end of the JSON-RPC socket
// (ApiServer, ApiClient, BlockingClient) reads through one of these, so a peer that never
// sends a newline costs a bounded buffer, and a line over the limit is refused, not parsed.
class LineReader {
public:
    explicit LineReader(qsizetype maxLineBytes) : m_max(maxLineBytes) {}

    void append(QByteArrayView bytes);
    // The next complete line, without its terminator. Nothing once overflowed().
    std::optional<QByteArray> next();
    // A line longer than the limit arrived (complete or not): the stream cannot be trusted
    // to resynchronise, so the caller closes it.
    bool overflowed() const { return m_overflowed; }
    qsizetype maxLineBytes() const { return m_max; }
    qsizetype bufferedBytes() const { return m_buffer.size() - m_start; } // not yet returned
    void clear(); // a new stream: forgets the buffer and an overflow

private:
    QByteArray m_buffer;
    qsizetype m_start = 0;   // where the next line begins in m_buffer
    qsizetype m_scanned = 0; // bytes after m_start known to hold no '\n'
    qsizetype m_max;
    bool m_overflowed = false;
};

} // namespace airlock::rpc
