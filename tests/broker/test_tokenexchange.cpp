// A sign-in's tokens through tokenexchange: the answer of a token endpoint loses every real
// token the login declares (a JWT keeps header and claims), and a placeholder sent back is
// swapped only as the whole value of a field the login allows, once, at the top level.
#include "core/loginspec.h"
#include "tokenexchange.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace airlock;
using namespace Qt::StringLiterals;

namespace {

LoginSpec spec(const char *json)
{
    Result<LoginSpec> s = LoginSpec::fromJson(u"cli"_s, QJsonDocument::fromJson(json).object(), u"test"_s);
    if (!s)
        qFatal("%s", qPrintable(s.error().message() + u": "_s + s.error().why));
    return *s;
}

const char *kClaude = R"({"token_urls": ["https://platform.claude.com/v1/oauth/token"], "expires_in": "expires_in", "tokens": [{"field": "access_token", "name": "access", "hosts": ["api.anthropic.com"], "header": "Authorization: Bearer {}"},            {"field": "refresh_token", "name": "refresh", "sent_in": ["refresh_token"]}]})";
const char *kCodex = R"({"token_urls": ["https://auth.openai.com/oauth/token"], "tokens": [{"field": "id_token", "name": "id", "jwt": true, "sent_in": ["subject_token"]},            {"field": "access_token", "name": "access", "jwt": true, "hosts": ["chatgpt.com"], "header": "Authorization: Bearer {}"},            {"field": "refresh_token", "name": "refresh", "sent_in": ["refresh_token"]},            {"field": "access_token", "grant": "urn:ietf:params:oauth:grant-type:token-exchange", "name": "api-key",             "hosts": ["api.openai.com"], "header": "Authorization: Bearer {}"}]})";

const QByteArray kAccess = "sk-ant-oat01-REALaccessTOKENvalue0123456789";
const QByteArray kRefresh = "sk-ant-ort01-REALrefreshTOKENvalue9876543210";

QByteArray jwt(qint64 exp)
{
    const auto part = [](const QByteArray &json) { return json.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals); };
    return part(R"({"alg":"RS256","typ":"JWT"})") + '.' +
           part(R"({"exp":)" + QByteArray::number(exp) + R"(,"https://api.openai.com/auth":{"chatgpt_account_id":"acct-1"}})") + '.' +
           part("a-real-signature-that-must-never-reach-the-guest");
}

// Placeholders as the vault would give them: recognisable per token in the tests.
tokenexchange::PlaceholderFor placeholders()
{
    return [](const LoginToken &t, QByteArrayView real) { return QByteArray(real.size(), t.name == "access"_L1 ? 'A' : 'R'); };
}

} // namespace

class TestTokenExchange : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void anAnswerKeepsItsShapeAndLosesItsTokens();
    void aJwtKeepsItsHeaderAndClaims();
    void aGrantAnotherEntryNamesIsThatEntrys();
    void anAnswerItCannotReadWholeIsRefused_data();
    void anAnswerItCannotReadWholeIsRefused();
    void aJwtThatIsNotOneIsRefused();
    void aPlaceholderSentBackInItsFieldIsSwapped_data();
    void aPlaceholderSentBackInItsFieldIsSwapped();
    void aPlaceholderAnywhereElseIsLeftForTheCheck_data();
    void aPlaceholderAnywhereElseIsLeftForTheCheck();
    void aLoginDeclarationIsChecked_data();
    void aLoginDeclarationIsChecked();
    void aLoginReadsBackAsItWasWritten();
};

void TestTokenExchange::anAnswerKeepsItsShapeAndLosesItsTokens()
{
    const LoginSpec s = spec(kClaude);
    const QByteArray answer = R"({"token_type":"Bearer","access_token":")" + kAccess + R"(","expires_in":28800,"refresh_token":")" +
                              kRefresh + R"(","scope":"user:inference"})";
    const QDateTime now = QDateTime::fromSecsSinceEpoch(1800000000, Qt::UTC);
    const tokenexchange::Capture c = tokenexchange::capture(s, u"authorization_code"_s, answer, now, placeholders());
    QVERIFY2(c.error.isEmpty(), qPrintable(c.error));
    QCOMPARE(c.tokens.size(), 2);
    QVERIFY(!c.body.contains(kAccess) && !c.body.contains(kRefresh));
    const QJsonObject out = QJsonDocument::fromJson(c.body).object();
    QCOMPARE(out.value("access_token"_L1).toString().toLatin1(), QByteArray(kAccess.size(), 'A'));
    QCOMPARE(out.value("refresh_token"_L1).toString().toLatin1(), QByteArray(kRefresh.size(), 'R'));
    QCOMPARE(out.value("scope"_L1).toString(), u"user:inference"_s);
    QCOMPARE(c.body.size(), answer.size());
    for (const tokenexchange::CapturedToken &t : c.tokens) {
        if (t.token->name == "access"_L1) {
            QCOMPARE(t.real, kAccess);
            QCOMPARE(t.expires, now.addSecs(28800)); // the access token's lifetime
        } else {
            QCOMPARE(t.real, kRefresh);
            QVERIFY(!t.expires.isValid()); // a refresh token's is not said
        }
    }
}

void TestTokenExchange::aJwtKeepsItsHeaderAndClaims()
{
    const LoginSpec s = spec(kCodex);
    const QByteArray id = jwt(1900000000), access = jwt(1850000000);
    const QByteArray answer = R"({"id_token":")" + id + R"(","access_token":")" + access + R"(","refresh_token":"rt_REALrefresh0123456789"})";
    const tokenexchange::Capture c = tokenexchange::capture(s, u"authorization_code"_s, answer, QDateTime::currentDateTimeUtc(), placeholders());
    QVERIFY2(c.error.isEmpty(), qPrintable(c.error));
    QCOMPARE(c.tokens.size(), 3);
    const QJsonObject out = QJsonDocument::fromJson(c.body).object();
    for (const auto &[field, real] : {std::pair{"id_token"_L1, id}, std::pair{"access_token"_L1, access}}) {
        const QByteArray shown = out.value(field).toString().toLatin1();
        QCOMPARE(shown.size(), real.size());
        const QList<QByteArray> shownParts = shown.split('.'), realParts = real.split('.');
        QCOMPARE(shownParts.size(), 3);
        QCOMPARE(shownParts.mid(0, 2), realParts.mid(0, 2)); // what the client parses
        QVERIFY(shownParts[2] != realParts[2]);              // useless anywhere else
    }
    for (const tokenexchange::CapturedToken &t : c.tokens)
        if (t.token->name == "id"_L1)
            QCOMPARE(t.expires, QDateTime::fromSecsSinceEpoch(1900000000, Qt::UTC)); // from its exp claim
}

void TestTokenExchange::aGrantAnotherEntryNamesIsThatEntrys()
{
    const LoginSpec s = spec(kCodex);
    const QByteArray answer = R"({"access_token":"sk-proj-REALapikey0123456789"})";
    const tokenexchange::Capture c = tokenexchange::capture(s, u"urn:ietf:params:oauth:grant-type:token-exchange"_s, answer,
                                                            QDateTime::currentDateTimeUtc(), placeholders());
    QVERIFY2(c.error.isEmpty(), qPrintable(c.error));
    QCOMPARE(c.tokens.size(), 1);
    QCOMPARE(c.tokens[0].token->name, u"api-key"_s);
    QCOMPARE(s.secretName(*c.tokens[0].token), u"cli.api-key"_s);
}

void TestTokenExchange::anAnswerItCannotReadWholeIsRefused_data()
{
    QTest::addColumn<QByteArray>("answer");
    QTest::newRow("not JSON") << QByteArray("access_token=" + kAccess);
    QTest::newRow("field twice") << QByteArray(R"({"access_token":"x","access_token":")" + kAccess + R"("})");
    QTest::newRow("escaped text") << QByteArray(R"({"access_token":"sk-ant-oat01-\/escaped0123456789"})");
    QTest::newRow("not a string") << QByteArray(R"({"access_token":12345678901234})");
    QTest::newRow("value twice") << QByteArray(R"({"access_token":")" + kAccess + R"(","note":")" + kAccess + R"("})");
    QTest::newRow("too short") << QByteArray(R"({"access_token":"short"})");
    QTest::newRow("too large") << QByteArray(R"({"access_token":")" + kAccess + R"(","pad":")" + QByteArray(70000, 'x') + R"("})");
}

void TestTokenExchange::anAnswerItCannotReadWholeIsRefused()
{
    QFETCH(QByteArray, answer);
    const tokenexchange::Capture c = tokenexchange::capture(spec(kClaude), {}, answer, QDateTime::currentDateTimeUtc(), placeholders());
    QVERIFY(!c.error.isEmpty());
    QVERIFY(c.tokens.isEmpty());
    QVERIFY(c.body.isEmpty()); // nothing for the guest
}

void TestTokenExchange::aJwtThatIsNotOneIsRefused()
{
    const tokenexchange::Capture c = tokenexchange::capture(spec(kCodex), {}, R"({"id_token":"notajwtbutlongenough0123"})",
                                                            QDateTime::currentDateTimeUtc(), placeholders());
    QVERIFY(c.error.contains("JWT"_L1));
}

void TestTokenExchange::aPlaceholderSentBackInItsFieldIsSwapped_data()
{
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("expected");
    const QByteArray ph(kRefresh.size(), 'P');
    QTest::newRow("json") << QByteArray("application/json") << QByteArray(R"({"grant_type":"refresh_token","refresh_token":")" + ph + R"(","client_id":"c"})")
                          << QByteArray(R"({"grant_type":"refresh_token","refresh_token":")" + kRefresh + R"(","client_id":"c"})");
    QTest::newRow("json spaced") << QByteArray("application/json; charset=utf-8") << QByteArray("{ \"refresh_token\" :\n \"" + ph + "\" }")
                                 << QByteArray("{ \"refresh_token\" :\n \"" + kRefresh + "\" }");
    QTest::newRow("form") << QByteArray("application/x-www-form-urlencoded") << QByteArray("grant_type=refresh_token&refresh_token=" + ph)
                          << QByteArray("grant_type=refresh_token&refresh_token=" + kRefresh);
}

void TestTokenExchange::aPlaceholderSentBackInItsFieldIsSwapped()
{
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, expected);
    const QByteArray ph(kRefresh.size(), 'P');
    const tokenexchange::Swapped s = tokenexchange::swapSent(body, tokenexchange::kindOf(contentType),
                                                             {{u"cli.refresh"_s, ph, kRefresh, {u"refresh_token"_s}}});
    QCOMPARE(s.body, expected);
    QCOMPARE(s.secrets, QStringList{u"cli.refresh"_s});
    QCOMPARE(tokenexchange::grantType(body, tokenexchange::kindOf(contentType)),
             body.contains("grant_type") ? u"refresh_token"_s : QString());
}

void TestTokenExchange::aPlaceholderAnywhereElseIsLeftForTheCheck_data()
{
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("body");
    const QByteArray ph(kRefresh.size(), 'P');
    QTest::newRow("another field") << QByteArray("application/json") << QByteArray(R"({"state":")" + ph + R"("})");
    QTest::newRow("twice") << QByteArray("application/json") << QByteArray(R"({"refresh_token":")" + ph + R"(","x":")" + ph + R"("})");
    QTest::newRow("nested") << QByteArray("application/json") << QByteArray(R"({"a":{"refresh_token":")" + ph + R"("}})");
    QTest::newRow("inside a value") << QByteArray("application/json") << QByteArray(R"({"refresh_token":"x)" + ph + R"("})");
    QTest::newRow("duplicate key") << QByteArray("application/json") << QByteArray(R"({"refresh_token":")" + ph + R"(","refresh_token":"y"})");
    QTest::newRow("as a key") << QByteArray("application/json") << QByteArray(R"({")" + ph + R"(":"refresh_token"})");
    QTest::newRow("in an array") << QByteArray("application/json") << QByteArray(R"({"refresh_token":[")" + ph + R"("]})");
    QTest::newRow("form other field") << QByteArray("application/x-www-form-urlencoded") << QByteArray("state=" + ph);
    QTest::newRow("form inside value") << QByteArray("application/x-www-form-urlencoded") << QByteArray("refresh_token=" + ph + "x");
    QTest::newRow("text/plain") << QByteArray("text/plain") << QByteArray("refresh_token=" + ph);
}

void TestTokenExchange::aPlaceholderAnywhereElseIsLeftForTheCheck()
{
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, body);
    const QByteArray ph(kRefresh.size(), 'P');
    const tokenexchange::Swapped s = tokenexchange::swapSent(body, tokenexchange::kindOf(contentType),
                                                             {{u"cli.refresh"_s, ph, kRefresh, {u"refresh_token"_s}}});
    QCOMPARE(s.body, body); // unchanged: the interceptor's placeholder check refuses it
    QVERIFY(s.secrets.isEmpty());
}

void TestTokenExchange::aLoginDeclarationIsChecked_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("unknown key") << QByteArray(R"({"token_urls":["https://a.example/t"],"tokens":[{"field":"f","name":"n","sent_in":["f"]}],"x":1})");
    QTest::newRow("http url") << QByteArray(R"({"token_urls":["http://a.example/t"],"tokens":[{"field":"f","name":"n","sent_in":["f"]}]})");
    QTest::newRow("url with query") << QByteArray(R"({"token_urls":["https://a.example/t?x=1"],"tokens":[{"field":"f","name":"n","sent_in":["f"]}]})");
    QTest::newRow("sent nowhere") << QByteArray(R"({"token_urls":["https://a.example/t"],"tokens":[{"field":"f","name":"n"}]})");
    QTest::newRow("hosts without header") << QByteArray(R"({"token_urls":["https://a.example/t"],"tokens":[{"field":"f","name":"n","hosts":["b.example"]}]})");
    QTest::newRow("declared twice") << QByteArray(R"({"token_urls":["https://a.example/t"],"tokens":[{"field":"f","name":"n","sent_in":["f"]},{"field":"f","name":"m","sent_in":["f"]}]})");
    QTest::newRow("no tokens") << QByteArray(R"({"token_urls":["https://a.example/t"],"tokens":[]})");
}

void TestTokenExchange::aLoginDeclarationIsChecked()
{
    QFETCH(QByteArray, json);
    Result<LoginSpec> s = LoginSpec::fromJson(u"cli"_s, QJsonDocument::fromJson(json).object(), u"t.json"_s);
    QVERIFY(!s);
    QVERIFY(s.error().why.startsWith("\"login\""_L1));
}

void TestTokenExchange::aLoginReadsBackAsItWasWritten()
{
    const LoginSpec s = spec(kCodex);
    Result<LoginSpec> again = LoginSpec::fromJson(u"cli"_s, s.toJson(), u"stored"_s);
    QVERIFY(again);
    QCOMPARE(again->toJson(), s.toJson());
    QCOMPARE(s.hosts(), (QStringList{u"auth.openai.com"_s, u"chatgpt.com"_s, u"api.openai.com"_s}));
    QVERIFY(s.isTokenUrl(u"AUTH.openai.com."_s, u"/oauth/token"_s));
    QVERIFY(!s.isTokenUrl(u"auth.openai.com"_s, u"/oauth/token/x"_s));
}

QTEST_GUILESS_MAIN(TestTokenExchange)
#include "test_tokenexchange.moc"
