#pragma once
// `Authorization: Basic` (RFC 7617): how git over HTTPS, credential helpers and package
// registries send a token, base64-encoded with a user name. A secret set with the template
// `Authorization: Basic {}` has its placeholder swapped inside such credentials, on its hosts.
// Strict and bounded: what is not canonical base64 of "user:password" is not decoded (and a
// placeholder inside it is then caught in its base64 form, like anywhere else).
#include "headertemplate.h"
#include "placeholder.h"

#include <QByteArray>
#include <QByteArrayView>
#include <optional>

namespace airlock::basicauth {

// Two secrets (user and password) and some room: anything longer is not decoded.
constexpr qsizetype kMaxDecoded = 2 * kMaxSecretLength + 1024;

// `Authorization: Basic {}` (any case in the scheme, nothing after the {}).
bool isBasicTemplate(const HeaderTemplate &t);

// The "user:password" of an Authorization value `Basic <base64>`: one or more spaces after the
// scheme, the standard alphabet with its padding, no other character, at most kMaxDecoded
// bytes decoded, a colon in them. Nothing for another scheme or anything less strict.
std::optional<QByteArray> decode(QByteArrayView value);
// "Basic " and the base64 of `userPassword`.
QByteArray encode(QByteArrayView userPassword);

} // namespace airlock::basicauth
