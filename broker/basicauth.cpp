#include "basicauth.h"

#include <openssl/crypto.h>

namespace airlock::basicauth {

namespace {
constexpr qsizetype kMaxEncoded = (kMaxDecoded + 2) / 3 * 4;

bool isBase64Char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}
} // namespace

bool isBasicTemplate(const HeaderTemplate &t)
{
    return t.name.compare("Authorization", Qt::CaseInsensitive) == 0 &&
           t.prefix.trimmed().compare("Basic", Qt::CaseInsensitive) == 0 && t.prefix.endsWith(' ') && t.suffix.isEmpty();
}

std::optional<QByteArray> decode(QByteArrayView value)
{
    constexpr QByteArrayView scheme("Basic");
    if (value.size() <= scheme.size() || value.first(scheme.size()).compare(scheme, Qt::CaseInsensitive) != 0 ||
        value.at(scheme.size()) != ' ')
        return std::nullopt;
    QByteArrayView token = value.sliced(scheme.size());
    while (!token.isEmpty() && token.front() == ' ')
        token = token.sliced(1);
    if (token.isEmpty() || token.size() % 4 != 0 || token.size() > kMaxEncoded)
        return std::nullopt;
    qsizetype padding = 0;
    while (padding < 2 && token.at(token.size() - 1 - padding) == '=')
        ++padding;
    for (qsizetype i = 0; i < token.size() - padding; ++i) {
        if (!isBase64Char(token.at(i)))
            return std::nullopt;
    }
    const QByteArray encoded = token.toByteArray();
    QByteArray::FromBase64Result result = QByteArray::fromBase64Encoding(encoded, QByteArray::AbortOnBase64DecodingErrors);
    QByteArray &decoded = result.decoded;
    // Canonical only: unused bits zero, so no two texts decode alike (a lax reader could differ).
    if (!result || decoded.size() > kMaxDecoded || !decoded.contains(':') || decoded.toBase64() != encoded)
        return std::nullopt;
    return std::move(decoded);
}

QByteArray encode(QByteArrayView userPassword)
{
    // It carries a real value: no copy is left behind uncleansed.
    QByteArray encoded = QByteArray::fromRawData(userPassword.data(), userPassword.size()).toBase64();
    QByteArray out;
    out.reserve(6 + encoded.size());
    out.append("Basic ").append(encoded);
    OPENSSL_cleanse(encoded.data(), size_t(encoded.size()));
    return out;
}

} // namespace airlock::basicauth
