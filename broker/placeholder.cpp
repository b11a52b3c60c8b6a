#include "placeholder.h"

#include <openssl/rand.h>

namespace airlock {

QByteArray makePlaceholder(int length)
{
    static constexpr char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"; // 57 symbols
    constexpr unsigned n = sizeof(alphabet) - 1;
    QByteArray out;
    out.reserve(length);
    while (out.size() < length) {
        unsigned char b[64];
        if (RAND_bytes(b, sizeof b) != 1)
            return {};
        for (unsigned char c : b) {
            if (c < 256 - (256 % n) && out.size() < length) // rejection sampling: no bias
                out.append(alphabet[c % n]);
        }
    }
    return out;
}

} // namespace airlock
