// libFuzzer target: the TLS ClientHello peek, fed whole and as every split point would be.
#include "clienthello.h"

#include <cstdint>
#include <cstdlib>

using namespace airlock::tls;
using Status = ClientHello::Status;

static void check(bool condition)
{
    if (!condition)
        std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::span<const char> stream(reinterpret_cast<const char *>(data), size);
    const ClientHello h = parseClientHello(stream);
    switch (h.status) {
    case Status::NeedMore:
        check(h.needed > 0);
        check(size < size_t(kMaxPeek));
        check(size + size_t(h.needed) <= size_t(kMaxPeek)); // never asks for more than it would read
        break;
    case Status::Invalid:
        check(!h.error.isEmpty());
        break;
    case Status::Complete:
        check(h.consumed > 0 && size_t(h.consumed) <= size);
        check(!h.hasSni || (!h.sni.isEmpty() && h.sni.size() <= 255));
        // The same bytes followed by anything still give the same hello (a peek never
        // depends on what comes after the hello).
        {
            const ClientHello again = parseClientHello(stream.first(size_t(h.consumed)));
            check(again.status == Status::Complete && again.sni == h.sni && again.alpn == h.alpn);
        }
        break;
    case Status::NotTls:
        check(size >= 1);
        break;
    }
    // Any prefix of a stream the parser took as complete must ask for more, not fail.
    if (h.status == Status::Complete && h.consumed > 1) {
        const ClientHello prefix = parseClientHello(stream.first(size_t(h.consumed) - 1));
        check(prefix.status == Status::NeedMore);
    }
    return 0;
}
