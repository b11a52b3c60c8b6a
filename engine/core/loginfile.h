#pragma once
// Where an agent CLI keeps its sign-in inside the guest, and the file's shape, as a template
// declares it ("login": {"credentials_file": ...}). A sandbox made after a sign-in borrows the
// vault's tokens under placeholders of its own; this file, filled with those placeholders, is
// what makes the CLI in the new guest start signed in. Data, not code:
//   "credentials_file": {
//     "path": "/root/.claude/.credentials.json",
//     "json": {"claudeAiOauth": {
//        "accessToken": {"$token": "access"},            // this sandbox's placeholder of a token
//        "refreshToken": {"$token": "refresh"},
//        "expiresAt": {"$expires_ms": "access"},          // the token's expiry, ms since the epoch
//        "scopes": ["user:inference"]}}                   // anything else is written as it is
//   }
// Other directives: {"$token": "api-key", "optional": true} (null when the vault has no such
// token), {"$now": "iso"} (the time of writing), {"$claim": ["id", "KEY", ...]} (a claim of a
// JWT token, read from its placeholder, which keeps the real header and claims). An object with
// a key starting with '$' is a directive and nothing else; a directive that names no declared
// token, or a JWT claim of a token that is not a JWT, is refused when the template is read.
#include "core/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>

namespace airlock {

struct LoginToken;

// What a sandbox holds of one of its login's tokens: never the real value.
struct HeldLoginToken {
    QByteArray placeholder;
    QDateTime expires; // invalid: the issuer said nothing
};

struct LoginFile {
    static constexpr qsizetype kMaxShapeBytes = 16 * 1024;
    static constexpr int kMaxDepth = 8;

    QString path;      // absolute, normalised, inside the guest
    QJsonObject shape; // "json" as declared

    // `tokens` are the login's declared tokens; `where` names the template for errors.
    static Result<LoginFile> fromJson(const QJsonValue &v, const QList<LoginToken> &tokens, const QString &where);
    QJsonObject toJson() const;

    // The file's bytes for a sandbox holding `held` (token name -> placeholder and expiry), or
    // nullopt when a token it needs (one without "optional") is not held: the guest then keeps
    // whatever sign-in it has, or none.
    std::optional<QByteArray> render(const QMap<QString, HeldLoginToken> &held, const QDateTime &now) const;
};

} // namespace airlock
