// libFuzzer target: the upstream response head parser of the interceptor, the framing it
// derives, and the chunked decoder over the body that follows.
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
    const QByteArray input = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    ResponseHead head;
    QString error;
    const Parse p = parseResponseHead(input, &head, &error);
    if (p == Parse::Invalid) {
        check(!error.isEmpty());
        return 0;
    }
    if (p == Parse::NeedMore) {
        check(size <= 64 * 1024);
        return 0;
    }
    check(head.headEnd > 0 && head.headEnd <= input.size() && head.headEnd <= 64 * 1024);
    check(head.status >= 100 && head.status <= 999);
    // Incremental: the head alone parses the same, one byte less needs more.
    ResponseHead exact;
    check(parseResponseHead(input.left(head.headEnd), &exact, &error) == Parse::Complete && exact.headEnd == head.headEnd);
    check(exact.headers == head.headers);
    ResponseHead shorter;
    check(parseResponseHead(input.left(head.headEnd - 1), &shorter, &error) == Parse::NeedMore);
    for (const QByteArray method : {QByteArray("GET"), QByteArray("HEAD")}) {
        QString framingError;
        const BodyFraming framing = responseFraming(method, head, &framingError);
        check(framing.length >= 0);
        if (framing.kind == BodyFraming::Chunked) {
            ChunkedDecoder decoder;
            const qsizetype used = decoder.feed(input.constData() + head.headEnd, input.size() - head.headEnd);
            check(used >= 0 && used <= input.size() - head.headEnd);
        }
    }
    return 0;
}
