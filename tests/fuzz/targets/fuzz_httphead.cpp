// libFuzzer target: the incremental HTTP/1.x request head parser and its serializer, and the
// streaming checker built on it (every request head and body framing on a connection).
#include "httphead.h"
#include "httpstreamcheck.h"

#include <cstdint>
#include <cstdlib>

using namespace airlock::http;
using Status = HeadResult::Status;

static void check(bool condition)
{
    if (!condition)
        std::abort();
}

// The whole input as a connection's bytes: the same verdict whether it comes at once or in
// pieces, and the same cleared count unless refused (a body streams on until the byte that
// breaks its framing); cleared never goes back nor past what was fed.
static void checkStream(QByteArrayView bytes)
{
    airlock::HttpStreamCheck whole(QStringLiteral("a.example"), 80), pieces(QStringLiteral("a.example"), 80);
    const bool a = whole.client(bytes);
    check(a == whole.error().isEmpty() && whole.cleared() <= bytes.size());
    bool b = true;
    qint64 last = 0;
    const qsizetype piece = 1 + bytes.size() % 13;
    for (qsizetype i = 0; i < bytes.size() && b; i += piece) {
        b = pieces.client(bytes.sliced(i, std::min(piece, bytes.size() - i)));
        check(pieces.cleared() >= last && pieces.cleared() <= i + piece);
        last = pieces.cleared();
    }
    check(a == b && (!a || whole.cleared() == pieces.cleared()) && whole.requests() == pieces.requests());
    check(whole.unverified().isEmpty() == pieces.unverified().isEmpty());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::span<const char> input(reinterpret_cast<const char *>(data), size);
    checkStream(QByteArrayView(input.data(), qsizetype(size)));
    const HeadResult r = parseRequestHead(input);
    if (r.status == Status::Invalid) {
        check(!r.error.isEmpty());
        return 0;
    }
    if (r.status == Status::NeedMore) {
        check(size < size_t(kMaxHead) + 2);
        return 0;
    }
    const RequestHead &head = r.head;
    check(head.headEnd > 0 && size_t(head.headEnd) <= size);
    check(head.headers.size() <= kMaxHeaders);
    // Incremental: the head alone parses to the same result, and one byte less needs more.
    const HeadResult exact = parseRequestHead(input.first(size_t(head.headEnd)));
    check(exact.status == Status::Complete && exact.head.headers == head.headers);
    check(parseRequestHead(input.first(size_t(head.headEnd) - 1)).status == Status::NeedMore);
    // Serialising and parsing again is stable.
    const QByteArray again = serializeRequestHead(head);
    const HeadResult round = parseRequestHead(again);
    check(round.status == Status::Complete);
    check(round.head.method == head.method && round.head.target == head.target && round.head.version == head.version);
    check(round.head.headers == head.headers && round.head.host == head.host && round.head.hostPort == head.hostPort);
    check(round.head.headEnd == again.size());
    return 0;
}
