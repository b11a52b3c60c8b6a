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

QByteArray makeJwtPlaceholder(QByteArrayView jwt)
{
    const qsizetype first = jwt.indexOf('.');
    const qsizetype last = jwt.lastIndexOf('.');
    if (first <= 0 || last <= first + 1 || last + 1 >= jwt.size() || jwt.sliced(first + 1, last - first - 1).contains('.'))
        return {};
    return jwt.first(last + 1).toByteArray() + makePlaceholder(int(jwt.size() - last - 1));
}

QList<QByteArray> base64Forms(QByteArrayView bytes)
{
    const qsizetype n = bytes.size();
    QList<QByteArray> forms;
    for (qsizetype k = 0; k < 3; ++k) {
        // k bytes before, 2 after: base64 digit j holds bits [6j, 6j + 6), the value's bits are [8k, 8(k + n)).
        QByteArray padded(k, '\0');
        padded.append(bytes.data(), n);
        padded.append(2, '\0');
        const qsizetype from = (8 * k + 5) / 6, to = 8 * (k + n) / 6;
        for (auto alphabet : {QByteArray::Base64Encoding, QByteArray::Base64UrlEncoding}) {
            forms.append(padded.toBase64(alphabet).mid(from, to - from));
        }
    }
    return forms;
}

} // namespace airlock
