#include "fakeoauth.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QUrlQuery>

using namespace Qt::StringLiterals;

namespace airlock::test {

namespace {

QByteArray hostOf(const TlsTestServer::Request &r)
{
    QByteArray host = r.header("host");
    if (const qsizetype colon = host.indexOf(':'); colon >= 0)
        host.truncate(colon);
    return host.toLower();
}

QByteArray pathOf(const TlsTestServer::Request &r)
{
    const qsizetype q = r.target.indexOf('?');
    return q < 0 ? r.target : r.target.left(q);
}

QByteArray json(const QJsonObject &o) { return QJsonDocument(o).toJson(QJsonDocument::Compact); }

QByteArray base64url(const QByteArray &bytes)
{
    return bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

QByteArray notFound()
{
    return httpAnswer(404, "application/json", R"({"type":"error","error":{"type":"not_found_error","message":"not in this fake"}})");
}

} // namespace

QByteArray httpAnswer(int status, const QByteArray &contentType, const QByteArray &body)
{
    const QByteArray reason = status == 200 ? "OK" : status == 400 ? "Bad Request" : status == 401 ? "Unauthorized" : "Not Found";
    return "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason + "\r\nContent-Type: " + contentType +
           "\r\nCache-Control: no-cache\r\nrequest-id: req_airlock_test\r\nContent-Length: " + QByteArray::number(body.size()) +
           "\r\n\r\n" + body;
}

QByteArray unsignedJwt(const QJsonObject &claims, const QByteArray &signature)
{
    return base64url(R"({"alg":"RS256","typ":"JWT","kid":"airlock-test"})") + '.' + base64url(json(claims)) + '.' +
           base64url(signature);
}

QJsonObject jwtClaims(const QByteArray &jwt)
{
    const QList<QByteArray> parts = jwt.split('.');
    if (parts.size() != 3)
        return {};
    return QJsonDocument::fromJson(QByteArray::fromBase64(parts.at(1), QByteArray::Base64UrlEncoding)).object();
}

QByteArray anthropicMessagesAnswer(const TlsTestServer::Request &r, const QByteArray &reply)
{
    const QJsonObject request = QJsonDocument::fromJson(r.body).object();
    const QString model = request.value("model"_L1).toString(u"claude-sonnet-4-5"_s);
    const QJsonObject usage{{u"input_tokens"_s, 12}, {u"output_tokens"_s, 9}};
    if (!request.value("stream"_L1).toBool()) {
        const QJsonObject message{{u"id"_s, u"msg_airlock_test"_s}, {u"type"_s, u"message"_s}, {u"role"_s, u"assistant"_s},
                                  {u"model"_s, model},
                                  {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, QString::fromUtf8(reply)}}}},
                                  {u"stop_reason"_s, u"end_turn"_s}, {u"stop_sequence"_s, QJsonValue()}, {u"usage"_s, usage}};
        return httpAnswer(200, "application/json", json(message));
    }
    auto event = [](const char *name, const QJsonObject &data) -> QByteArray {
        return QByteArray("event: ") + name + "\ndata: " + json(data) + "\n\n";
    };
    QByteArray body;
    body += event("message_start",
                  {{u"type"_s, u"message_start"_s},
                   {u"message"_s, QJsonObject{{u"id"_s, u"msg_airlock_test"_s}, {u"type"_s, u"message"_s},
                                             {u"role"_s, u"assistant"_s}, {u"model"_s, model}, {u"content"_s, QJsonArray()},
                                             {u"stop_reason"_s, QJsonValue()}, {u"stop_sequence"_s, QJsonValue()},
                                             {u"usage"_s, QJsonObject{{u"input_tokens"_s, 12}, {u"output_tokens"_s, 1}}}}}});
    body += event("content_block_start", {{u"type"_s, u"content_block_start"_s}, {u"index"_s, 0},
                                          {u"content_block"_s, QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u""_s}}}});
    body += event("ping", {{u"type"_s, u"ping"_s}});
    body += event("content_block_delta",
                  {{u"type"_s, u"content_block_delta"_s}, {u"index"_s, 0},
                   {u"delta"_s, QJsonObject{{u"type"_s, u"text_delta"_s}, {u"text"_s, QString::fromUtf8(reply)}}}});
    body += event("content_block_stop", {{u"type"_s, u"content_block_stop"_s}, {u"index"_s, 0}});
    body += event("message_delta", {{u"type"_s, u"message_delta"_s},
                                    {u"delta"_s, QJsonObject{{u"stop_reason"_s, u"end_turn"_s}, {u"stop_sequence"_s, QJsonValue()}}},
                                    {u"usage"_s, QJsonObject{{u"output_tokens"_s, 9}}}});
    body += event("message_stop", {{u"type"_s, u"message_stop"_s}});
    return httpAnswer(200, "text/event-stream", body);
}

QByteArray codexResponsesAnswer(const TlsTestServer::Request &r, const QByteArray &reply)
{
    const QJsonObject request = QJsonDocument::fromJson(r.body).object();
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    auto event = [](const QJsonObject &data) -> QByteArray {
        return "event: " + data.value("type"_L1).toString().toUtf8() + "\ndata: " + json(data) + "\n\n";
    };
    QJsonObject response{{u"id"_s, u"resp_airlock_test"_s}, {u"object"_s, u"response"_s}, {u"created_at"_s, now},
                         {u"status"_s, u"in_progress"_s}, {u"model"_s, request.value("model"_L1).toString(u"gpt-5"_s)},
                         {u"output"_s, QJsonArray()}};
    const QJsonObject text{{u"type"_s, u"output_text"_s}, {u"text"_s, QString::fromUtf8(reply)}, {u"annotations"_s, QJsonArray()}};
    const QJsonObject item{{u"type"_s, u"message"_s}, {u"id"_s, u"msg_airlock_test"_s}, {u"status"_s, u"completed"_s},
                           {u"role"_s, u"assistant"_s}, {u"content"_s, QJsonArray{text}}};
    QJsonObject started = item;
    started.insert(u"status"_s, u"in_progress"_s);
    started.insert(u"content"_s, QJsonArray());
    QByteArray body = event({{u"type"_s, u"response.created"_s}, {u"sequence_number"_s, 0}, {u"response"_s, response}});
    body += event({{u"type"_s, u"response.output_item.added"_s}, {u"sequence_number"_s, 1}, {u"output_index"_s, 0}, {u"item"_s, started}});
    body += event({{u"type"_s, u"response.output_text.delta"_s}, {u"sequence_number"_s, 2}, {u"item_id"_s, u"msg_airlock_test"_s},
                   {u"output_index"_s, 0}, {u"content_index"_s, 0}, {u"delta"_s, QString::fromUtf8(reply)}});
    body += event({{u"type"_s, u"response.output_item.done"_s}, {u"sequence_number"_s, 3}, {u"output_index"_s, 0}, {u"item"_s, item}});
    response.insert(u"status"_s, u"completed"_s);
    response.insert(u"output"_s, QJsonArray{item});
    response.insert(u"usage"_s, QJsonObject{{u"input_tokens"_s, 12}, {u"input_tokens_details"_s, QJsonObject{{u"cached_tokens"_s, 0}}},
                                            {u"output_tokens"_s, 9}, {u"output_tokens_details"_s, QJsonObject{{u"reasoning_tokens"_s, 0}}},
                                            {u"total_tokens"_s, 21}});
    body += event({{u"type"_s, u"response.completed"_s}, {u"sequence_number"_s, 4}, {u"response"_s, response}});
    return httpAnswer(200, "text/event-stream", body);
}

QByteArray FakeOAuth::field(const TlsTestServer::Request &r, const QByteArray &name)
{
    const QJsonDocument doc = QJsonDocument::fromJson(r.body);
    if (doc.isObject())
        return doc.object().value(QLatin1StringView(name)).toString().toUtf8();
    const QUrlQuery form(QString::fromUtf8(r.body));
    return form.queryItemValue(QString::fromLatin1(name), QUrl::FullyDecoded).toUtf8();
}

void FakeOAuth::setLifetime(int seconds)
{
    std::lock_guard lock(m_mutex);
    m_lifetime = seconds;
}

QList<FakeOAuth::Issued> FakeOAuth::issued()
{
    std::lock_guard lock(m_mutex);
    return m_issued;
}

FakeOAuth::Issued FakeOAuth::lastIssued(Cli cli)
{
    std::lock_guard lock(m_mutex);
    for (auto it = m_issued.crbegin(); it != m_issued.crend(); ++it)
        if (it->cli == cli && !it->access.isEmpty() && it->grant != "urn:ietf:params:oauth:grant-type:token-exchange")
            return *it;
    return {};
}

bool FakeOAuth::isIssuedAccess(Cli cli, const QByteArray &authorization)
{
    std::lock_guard lock(m_mutex);
    for (const Issued &i : m_issued)
        if (i.cli == cli && !i.access.isEmpty() && authorization == "Bearer " + i.access)
            return true;
    return false;
}

QList<QByteArray> FakeOAuth::issuedValues()
{
    QList<QByteArray> values;
    for (const Issued &i : issued()) {
        for (const QByteArray &v : {i.access, i.refresh, i.id, i.apiKey}) {
            if (v.isEmpty())
                continue;
            values << v;
            // A JWT's placeholder keeps its header and claims: the signature is the secret part.
            if (v.count('.') == 2)
                values << v.mid(v.lastIndexOf('.') + 1);
        }
    }
    return values;
}

QByteArray FakeOAuth::uniqueValue(const char *prefix)
{
    QByteArray random(18, Qt::Uninitialized);
    QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(random.data()), random.size() / 4);
    return prefix + QByteArray::number(++m_counter) + '-' + random.toHex();
}

QByteArray FakeOAuth::answer(const TlsTestServer::Request &r)
{
    const QByteArray host = hostOf(r);
    const QByteArray path = pathOf(r);
    if (host == "platform.claude.com")
        return r.method == "POST" && path == "/v1/oauth/token" ? claudeToken(r) : notFound();
    if (host == "auth.openai.com")
        return r.method == "POST" && path == "/oauth/token" ? codexToken(r) : notFound();
    if (host == "api.anthropic.com") {
        if (r.method == "POST" && path == "/v1/messages")
            return anthropicMessagesAnswer(r, m_reply);
        // What `claude auth login` asks for right after the code exchange; a failure here fails the login.
        if (path == "/api/oauth/profile")
            return httpAnswer(200, "application/json",
                              json({{u"account"_s, QJsonObject{{u"uuid"_s, u"11111111-2222-3333-4444-555555555555"_s},
                                                               {u"email"_s, u"agent@example.test"_s},
                                                               {u"display_name"_s, u"Airlock Test"_s}}},
                                    {u"organization"_s, QJsonObject{{u"uuid"_s, u"66666666-7777-8888-9999-000000000000"_s},
                                                                    {u"organization_type"_s, u"claude_max"_s},
                                                                    {u"rate_limit_tier"_s, u"default_claude_max_5x"_s},
                                                                    {u"billing_type"_s, u"stripe_subscription"_s}}}}));
        if (path == "/api/oauth/claude_cli/roles")
            return httpAnswer(200, "application/json",
                              json({{u"organization_role"_s, u"admin"_s}, {u"workspace_role"_s, QJsonValue()},
                                    {u"organization_name"_s, u"Airlock Test"_s}}));
        return notFound();
    }
    if (host == "chatgpt.com") {
        if (r.method == "POST" && path == "/backend-api/codex/responses") {
            // As the real backend: a token it did not issue (a guest's own or altered one) is
            // refused, and Codex answers a 401 by refreshing.
            if (!isIssuedAccess(Cli::Codex, r.header("authorization")))
                return httpAnswer(401, "application/json",
                                  R"({"error":{"message":"Provided authentication token is expired.","code":"token_expired"}})");
            return codexResponsesAnswer(r, m_reply);
        }
        return notFound();
    }
    return {};
}

QByteArray FakeOAuth::claudeToken(const TlsTestServer::Request &r)
{
    const QByteArray grant = field(r, "grant_type");
    if (field(r, "client_id") != kClaudeClientId || (grant != "authorization_code" && grant != "refresh_token"))
        return httpAnswer(400, "application/json", R"({"error":"invalid_request"})");
    std::lock_guard lock(m_mutex);
    Issued i{Cli::Claude, grant, uniqueValue("sk-ant-oat01-REAL-access-"), uniqueValue("sk-ant-ort01-REAL-refresh-"), {}, {}};
    m_issued << i;
    // The scope matters: without user:inference Claude Code neither stores nor uses the tokens.
    return httpAnswer(
        200, "application/json",
        json({{u"token_type"_s, u"Bearer"_s}, {u"access_token"_s, QString::fromLatin1(i.access)},
              {u"refresh_token"_s, QString::fromLatin1(i.refresh)}, {u"expires_in"_s, m_lifetime},
              {u"scope"_s, u"user:inference user:profile user:sessions:claude_code user:mcp_servers"_s},
              {u"account"_s, QJsonObject{{u"uuid"_s, u"11111111-2222-3333-4444-555555555555"_s},
                                         {u"email_address"_s, u"agent@example.test"_s}}},
              {u"organization"_s, QJsonObject{{u"uuid"_s, u"66666666-7777-8888-9999-000000000000"_s}, {u"name"_s, u"Airlock Test"_s}}}}));
}

QByteArray FakeOAuth::codexToken(const TlsTestServer::Request &r)
{
    const QByteArray grant = field(r, "grant_type");
    if (field(r, "client_id") != kCodexClientId)
        return httpAnswer(400, "application/json", R"({"error":"invalid_client"})");
    std::lock_guard lock(m_mutex);
    if (grant == "urn:ietf:params:oauth:grant-type:token-exchange") {
        Issued i{Cli::Codex, grant, {}, {}, {}, uniqueValue("sk-proj-REAL-apikey-")};
        m_issued << i;
        return httpAnswer(200, "application/json", json({{u"access_token"_s, QString::fromLatin1(i.apiKey)}}));
    }
    if (grant != "authorization_code" && grant != "refresh_token")
        return httpAnswer(400, "application/json", R"({"error":"unsupported_grant_type"})");
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    const QJsonObject auth{{u"chatgpt_account_id"_s, QLatin1StringView(kCodexAccountId)}, {u"chatgpt_plan_type"_s, u"plus"_s},
                           {u"chatgpt_user_id"_s, u"user-airlock-test"_s}, {u"user_id"_s, u"user-airlock-test"_s}};
    const QJsonObject profile{{u"email"_s, u"agent@example.test"_s}, {u"email_verified"_s, true}};
    const QJsonObject common{{u"iss"_s, u"https://auth.openai.com"_s}, {u"sub"_s, u"auth0|airlock-test"_s}, {u"iat"_s, now},
                             {u"exp"_s, now + m_lifetime}, {u"https://api.openai.com/auth"_s, auth},
                             {u"https://api.openai.com/profile"_s, profile}};
    QJsonObject idClaims = common;
    idClaims.insert(u"aud"_s, QJsonArray{QLatin1StringView(kCodexClientId)});
    idClaims.insert(u"email"_s, u"agent@example.test"_s);
    idClaims.insert(u"email_verified"_s, true);
    QJsonObject accessClaims = common;
    accessClaims.insert(u"aud"_s, QJsonArray{u"https://api.openai.com/v1"_s});
    accessClaims.insert(u"scp"_s, QJsonArray{u"openid"_s, u"profile"_s, u"email"_s, u"offline_access"_s});
    Issued i{Cli::Codex, grant, unsignedJwt(accessClaims, uniqueValue("REAL-access-signature-")),
             uniqueValue("rt_REAL-refresh-"), unsignedJwt(idClaims, uniqueValue("REAL-id-signature-")), {}};
    m_issued << i;
    return httpAnswer(200, "application/json",
                      json({{u"id_token"_s, QString::fromLatin1(i.id)}, {u"access_token"_s, QString::fromLatin1(i.access)},
                            {u"refresh_token"_s, QString::fromLatin1(i.refresh)}, {u"expires_in"_s, m_lifetime},
                            {u"token_type"_s, u"Bearer"_s}}));
}

} // namespace airlock::test
