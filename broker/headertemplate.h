#pragma once
#include "core/result.h"

#include <QByteArray>
#include <QString>

namespace airlock {

// How a secret travels: `Authorization: Bearer {}`, `x-api-key: {}`. Exactly one `{}`,
// a valid header name that is not one the proxy itself must control (framing, hop-by-hop).
// Or, for APIs that take keys only there, a query parameter: `?key={}` (`secret set --query key`).
struct HeaderTemplate {
    QByteArray name;   // as written, e.g. "Authorization"; empty for a query parameter
    QByteArray prefix; // value text before {}
    QByteArray suffix; // value text after {}
    QByteArray query;  // the query parameter's name (letters, digits, - . _ ~), or empty

    static Result<HeaderTemplate> parse(const QString &text);
    QString text() const; // normalised "Name: prefix{}suffix" or "?query={}"
};

inline const char *kDefaultHeaderTemplate = "Authorization: Bearer {}";

// RFC 9110 token characters (header names, methods).
bool isTokenChar(char c);

} // namespace airlock
