// libFuzzer target: the strict decoder of `Authorization: Basic` credentials (guest bytes on
// a host a secret is bound to) and the base64 forms a placeholder is searched in.
#include "basicauth.h"
#include "placeholder.h"

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
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));
    // Decoded: bounded, a user:password pair, and encoding it again gives the same text.
    if (const std::optional<QByteArray> decoded = basicauth::decode(input)) {
        check(decoded->size() <= basicauth::kMaxDecoded && decoded->contains(':'));
        const QByteArray again = basicauth::encode(*decoded);
        check(basicauth::decode(again) == decoded);
        check(again.sliced(6) == input.sliced(input.lastIndexOf(' ') + 1)); // canonical: one text per value
    }
    // Any value, wherever it sits in base64 text, is found by one of its forms.
    if (size >= 3 && size <= 64) {
        const QByteArrayView value = input.sliced(1);
        const QList<QByteArray> forms = base64Forms(value);
        check(forms.size() == 6);
        const qsizetype lead = data[0] % 4;
        const QByteArray text = (QByteArray(lead, 'L') + value.toByteArray() + "T").toBase64(data[0] & 4 ? QByteArray::Base64UrlEncoding : QByteArray::Base64Encoding);
        check(std::any_of(forms.begin(), forms.end(), [&](const QByteArray &f) { return text.contains(f); }));
    }
    return 0;
}
