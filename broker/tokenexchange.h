#pragma once
// A sign-in's tokens on their way through the interceptor (the login a template declares,
// core/loginspec.h). Two directions, both on bodies already read whole and bounded:
//   - the token endpoint's answer: every declared token field is taken out (its real value
//     goes to the vault) and replaced by the guest's placeholder; a JWT keeps its header and
//     claims, so a client that reads them still works, and gets a placeholder signature;
//   - a request to the token endpoint (a refresh, a token exchange): a placeholder is swapped
//     for the real value only where the login declares it may be sent back (sent_in), as the
//     whole value of that top-level field, once. Anything else is left alone, so the
//     interceptor's placeholder check refuses it like any other leak.
// Strict by design: a token answer it cannot read completely is refused, never half-captured.
#include "core/loginspec.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QDateTime>
#include <QList>
#include <QString>
#include <functional>
#include <optional>

namespace airlock::tokenexchange {

constexpr qsizetype kMaxBody = 64 * 1024;

enum class BodyKind { Json, Form, Other };
BodyKind kindOf(QByteArrayView contentType);

// The grant_type of a token request ("" when the body has none or cannot be read).
QString grantType(QByteArrayView body, BodyKind kind);

// A token the guest may send back: its placeholder, its real value, the fields it may be in.
struct SentToken {
    QString secret;
    QByteArray placeholder;
    QByteArrayView real;
    QStringList fields;
};
struct Swapped {
    QByteArray body;      // the request body to send upstream
    QStringList secrets;  // the secrets whose placeholders were swapped
};
Swapped swapSent(QByteArrayView body, BodyKind kind, const QList<SentToken> &tokens);

struct CapturedToken {
    const LoginToken *token = nullptr;
    QByteArray real;
    QByteArray placeholder;
    QDateTime expires; // invalid: not known
};
struct Capture {
    QByteArray body; // the answer for the guest: placeholders only
    QList<CapturedToken> tokens;
    QString error;   // non-empty: the answer must not reach the guest at all
};
// `placeholderFor` picks the placeholder for a token's real value (the vault keeps one per
// sandbox); for a JWT only its signature is replaced, by a fresh placeholder of that length.
using PlaceholderFor = std::function<QByteArray(const LoginToken &, QByteArrayView real)>;
Capture capture(const LoginSpec &spec, const QString &grant, QByteArrayView answer, const QDateTime &now,
                const PlaceholderFor &placeholderFor);

// The characters a token may hold to be captured (base64, base64url, JWT): none needs
// escaping in JSON, so a token's text in the answer is exactly its value.
bool isTokenText(QByteArrayView value);

} // namespace airlock::tokenexchange
