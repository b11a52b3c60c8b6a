#pragma once
// Reading the JSON files people write by hand (egress presets, policy files): unknown keys
// are refused, so a typo ("prot") never turns silently into "any port".
#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <initializer_list>
#include <optional>

namespace airlock {

// The first key of `o` that is not in `known`, or "" when every key is known.
QString unknownKey(const QJsonObject &o, std::initializer_list<const char *> known);
// "port" of `o`: 0 when absent, the port when it is an integer 1..65535, nullopt otherwise.
std::optional<int> optionalPort(const QJsonObject &o);
// `text` as a JSON string literal, quotes included (also a YAML double-quoted scalar).
QByteArray jsonQuoted(const QString &text);

} // namespace airlock
