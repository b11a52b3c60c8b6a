#pragma once
// Stand-ins for the sign-in servers and APIs the Claude Code and Codex CLIs talk to, as
// responders for a TlsTestServer that answers for all their host names:
//   platform.claude.com /v1/oauth/token  (JSON: authorization_code, refresh_token)
//   api.anthropic.com   /v1/messages, /api/oauth/profile, /api/oauth/claude_cli/roles
//   auth.openai.com     /oauth/token     (form: authorization_code, token-exchange; JSON: refresh_token)
//   chatgpt.com         /backend-api/codex/responses (401 for a token it did not issue),
//                       /backend-api/wham/accounts/check
// Every token it issues is new (a counter and random bytes), kept in issued(), so a test can
// assert which one reached an API and search a guest for all of them. Codex's tokens are
// well-formed JWTs (header.claims.signature, base64url) with the claims Codex reads.
#include "tlstestserver.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <mutex>

namespace airlock::test {

// One streamed (or plain) Anthropic Messages API answer carrying `reply` as its text.
QByteArray anthropicMessagesAnswer(const TlsTestServer::Request &r, const QByteArray &reply);
// One streamed Responses API answer (what `codex exec` prints) carrying `reply`.
QByteArray codexResponsesAnswer(const TlsTestServer::Request &r, const QByteArray &reply);
// A JWT in form only: the signature is `signature`, not a real one.
QByteArray unsignedJwt(const QJsonObject &claims, const QByteArray &signature);
QJsonObject jwtClaims(const QByteArray &jwt);
// A whole HTTP/1.1 answer.
QByteArray httpAnswer(int status, const QByteArray &contentType, const QByteArray &body);

class FakeOAuth {
public:
    enum class Cli { Claude, Codex };
    struct Issued {
        Cli cli;
        QByteArray grant; // the grant_type of the request that got it
        QByteArray access, refresh, id, apiKey;
    };

    explicit FakeOAuth(QByteArray reply) : m_reply(std::move(reply)) {}
    // The answer for any request to one of the stand-in hosts (by its Host header); an empty
    // answer for a host this is not for.
    QByteArray answer(const TlsTestServer::Request &r);
    // Lifetime of the tokens issued from now on (seconds; expires_in and the JWTs' exp).
    void setLifetime(int seconds);

    QList<Issued> issued();
    Issued lastIssued(Cli cli);
    // Whether `authorization` is "Bearer " and an access token issued to `cli`.
    bool isIssuedAccess(Cli cli, const QByteArray &authorization);
    // Every secret value handed out so far (tokens, the API key, the JWTs' signatures).
    QList<QByteArray> issuedValues();
    static QByteArray field(const TlsTestServer::Request &r, const QByteArray &name); // JSON or form body

    static constexpr const char *kClaudeClientId = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";
    static constexpr const char *kCodexClientId = "app_EMoamEEZ73f0CkXaXp7hrann";
    static constexpr const char *kCodexAccountId = "acct-airlock-test";

private:
    QByteArray claudeToken(const TlsTestServer::Request &r);
    QByteArray codexToken(const TlsTestServer::Request &r);
    QByteArray uniqueValue(const char *prefix);

    std::mutex m_mutex;
    QByteArray m_reply;
    int m_lifetime = 3600;
    int m_counter = 0;
    QList<Issued> m_issued;
};

} // namespace airlock::test
