#pragma once
#include <QByteArray>

namespace airlock {

// What the guest sees instead of a secret: random, of the real value's length (so clients
// that check a key's length still work), drawn from letters and digits without look-alikes
// (header-, URL- and shell-safe, and never a separator a parser could split on).
QByteArray makePlaceholder(int length);

// Shorter secrets would make placeholders that might occur by chance in traffic.
constexpr int kMinSecretLength = 12;
constexpr int kMaxSecretLength = 8192;

} // namespace airlock
