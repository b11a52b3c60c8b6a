// libFuzzer target: the incremental chunked-body decoder the interceptor relays bodies with.
// The first byte picks how the rest is split into pieces; the pieces must decode exactly like
// the whole (the decoder is fed whatever each TLS record brings).
#include "httpframing.h"

#include <cstdint>
#include <cstdlib>

using namespace airlock::http;

static void check(bool condition)
{
    if (!condition)
        std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const qsizetype step = 1 + data[0] % 17;
    const char *body = reinterpret_cast<const char *>(data + 1);
    const qsizetype n = qsizetype(size - 1);

    ChunkedDecoder whole;
    const qsizetype used = whole.feed(body, n);
    check(used >= 0 && used <= n);
    check(whole.done() || whole.error() || used == n); // stops early only at the end or an error
    check(!(whole.done() && whole.error()));
    if (whole.done()) {
        check(used >= 5 && body[used - 2] == '\r' && body[used - 1] == '\n'); // "0\r\n\r\n" at least
        check(whole.feed(body, n) == 0); // nothing more belongs to a finished body
    }

    ChunkedDecoder pieces;
    qsizetype consumed = 0;
    for (qsizetype at = 0; at < n && !pieces.done() && !pieces.error(); at += step) {
        const qsizetype len = std::min(step, n - at);
        const qsizetype took = pieces.feed(body + at, len);
        check(took >= 0 && took <= len);
        consumed += took;
        if (took < len)
            check(pieces.done() || pieces.error());
    }
    check(pieces.done() == whole.done() && pieces.error() == whole.error());
    if (whole.done())
        check(consumed == used);
    return 0;
}
