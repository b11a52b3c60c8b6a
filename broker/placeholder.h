#pragma once
#include <QByteArray>
#include <QByteArrayView>
#include <QList>

namespace airlock {

// What the guest sees instead of a secret: random, of the real value's length (so clients
// that check a key's length still work), drawn from letters and digits without look-alikes
// (header-, URL- and shell-safe, and never a separator a parser could split on).
QByteArray makePlaceholder(int length);
// A JWT's placeholder: its header and claims as they are (the client reads them), the
// signature (what makes it a credential) random of the same length. Empty when `jwt` is not
// three non-empty dot-separated parts.
QByteArray makeJwtPlaceholder(QByteArrayView jwt);

// The runs of base64 text (standard and URL alphabet) that `bytes` becomes wherever it sits
// inside encoded data: one per alignment (offset mod 3), holding only the characters that
// depend on `bytes` alone, so a search finds it whatever came before or after. Always six, in
// the same order (alignment 0..2, each standard then URL alphabet): forms of two values of the
// same length at the same index have the same length, so swapping one for the other keeps framing.
QList<QByteArray> base64Forms(QByteArrayView bytes);

// Shorter secrets would make placeholders that might occur by chance in traffic.
constexpr int kMinSecretLength = 12;
constexpr int kMaxSecretLength = 8192;
// The longest form a secret or its placeholder is searched in (its base64 runs are longer).
constexpr int kMaxSecretForm = (kMaxSecretLength + 2) / 3 * 4;

} // namespace airlock
