// libFuzzer target: the response mask (upstream bytes of a bound host, searched for real
// values and their base64 forms). The input's first bytes choose a value and how the rest is
// cut into reads; whatever the cuts, the guest gets as many bytes as the upstream sent, and
// an answer that holds no value comes through unchanged.
#include "placeholder.h"
#include "responsemask.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

using namespace airlock;

static void check(bool condition)
{
    if (!condition)
        std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 14)
        return 0;
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));
    const QByteArrayView value = input.sliced(1, 12), stream = input.sliced(13);
    const qsizetype piece = 1 + data[0] % 97;
    ResponseMask mask;
    mask.add(QStringLiteral("s"), value, makePlaceholder(12));
    QByteArray out;
    for (qsizetype i = 0; i < stream.size(); i += piece)
        out += mask.feed(stream.sliced(i, std::min(piece, stream.size() - i)));
    out += mask.finish();
    check(out.size() == stream.size());
    QList<QByteArray> needles = base64Forms(value);
    needles.append(value.toByteArray());
    const bool carries = std::any_of(needles.begin(), needles.end(), [&](const QByteArray &n) { return stream.indexOf(n) >= 0; });
    check(carries || out == stream);
    check(carries == !mask.takeMasked().isEmpty());
    return 0;
}
