// libFuzzer target: the incremental HTTP/1.x request head parser and its serializer.
#include "httphead.h"

#include <cstdint>
#include <cstdlib>

using namespace airlock::http;
using Status = HeadResult::Status;

static void check(bool condition)
{
    if (!condition)
        std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::span<const char> input(reinterpret_cast<const char *>(data), size);
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
