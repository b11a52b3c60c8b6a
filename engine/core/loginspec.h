#pragma once
// A sign-in an agent CLI performs, as a template declares it (resources/templates, "login"):
// where its tokens are issued and which fields carry them, so the broker can keep the real
// tokens and hand the guest placeholders (broker/tokenexchange.h). Data, not code: a new CLI
// is a new template.
//   "login": {
//     "token_urls": ["https://platform.claude.com/v1/oauth/token"], // POSTed to for a code or a refresh
//     "expires_in": "expires_in",               // the answer's field with the access token's lifetime (s)
//     "tokens": [
//       {"field": "access_token", "name": "access",         // answer field; the vault keeps it as <login>.<name>
//        "hosts": ["api.anthropic.com"], "header": "Authorization: Bearer {}"}, // sent there, this way
//       {"field": "refresh_token", "name": "refresh", "sent_in": ["refresh_token"]}, // sent back in these
//                                                           // request fields, to the token URLs only
//       {"field": "id_token", "name": "id", "jwt": true},   // a JWT the client reads: header and claims
//                                                           // stay, the signature becomes a placeholder
//       {"field": "access_token", "grant": "urn:...:token-exchange", "name": "api-key", ...}
//     ],                                                    // "grant": only answers to that grant_type
//     "command": "claude auth login",           // signs in on the console (`secret login TEMPLATE`)
//     "credentials_file": {...}                 // where the CLI keeps its sign-in (core/loginfile.h)
//   }
// Unknown keys are refused, like the rest of a template.
#include "core/loginfile.h"
#include "core/result.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace airlock {

struct LoginToken {
    QString field;       // the JSON field of the token endpoint's answer
    QString name;        // [a-z0-9-]+; the vault's secret is "<login>.<name>"
    QString grant;       // "": any grant except those another entry of the field names
    bool jwt = false;
    QStringList hosts;   // where the access token goes (with `header`); empty: only sent_in
    QString header;      // e.g. "Authorization: Bearer {}"
    QStringList sentIn;  // request body fields, at the token URLs, the guest may send it back in
};

struct LoginUrl {
    QString host; // normalised
    QString path; // exact, without a query
};

struct LoginSpec {
    QString name; // the template's name
    QList<LoginUrl> tokenUrls;
    QString expiresField;
    QList<LoginToken> tokens;
    QString command;                        // "": the template's console signs in (e.g. /login)
    std::optional<LoginFile> credentialsFile; // written into sandboxes made after a sign-in

    // Every host a sandbox using this login must intercept: the token URLs' and the tokens'.
    QStringList hosts() const;
    bool isTokenUrl(const QString &host, const QString &path) const;
    // The entry that captures `field` from an answer to `grant` (nullptr: not captured).
    const LoginToken *tokenFor(const QString &field, const QString &grant) const;
    // The vault secret's name for one of its tokens.
    QString secretName(const LoginToken &t) const { return name + QLatin1Char('.') + t.name; }

    static Result<LoginSpec> fromJson(const QString &loginName, const QJsonObject &o, const QString &source);
    QJsonObject toJson() const;
};

} // namespace airlock
