// A template's credentials file: what is refused when the template is read, and what a
// sandbox's guest gets, for the shipped templates too.
#include "core/loginfile.h"
#include "core/loginspec.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace airlock;
using namespace Qt::StringLiterals;

namespace {

const QByteArray kTokens = R"([
  {"field": "id_token", "name": "id", "jwt": true, "sent_in": ["subject_token"]},
  {"field": "access_token", "name": "access", "hosts": ["api.example.test"], "header": "Authorization: Bearer {}"},
  {"field": "refresh_token", "name": "refresh", "sent_in": ["refresh_token"]},
  {"field": "access_token", "grant": "exchange", "name": "api-key", "hosts": ["api.example.test"], "header": "x-key: {}"}])";

Result<LoginSpec> loginWith(const QByteArray &fileJson)
{
    const QByteArray json = R"({"token_urls": ["https://auth.example.test/token"], "tokens": )" + kTokens +
                            (fileJson.isEmpty() ? QByteArray() : R"(, "credentials_file": )" + fileJson) + "}";
    return LoginSpec::fromJson(u"cli"_s, QJsonDocument::fromJson(json).object(), u"cli.json"_s);
}

QByteArray base64Url(const QByteArray &b) { return b.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals); }

} // namespace

class TestLoginFile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void badFilesAreRefusedWhenTheTemplateIsRead_data();
    void badFilesAreRefusedWhenTheTemplateIsRead();
    void theFileHoldsPlaceholdersExpiryAndClaims();
    void aMissingTokenLeavesNoFileUnlessOptional();
    void itTravelsWithTheStoredLogin();
    void theShippedTemplatesFillTheirFiles_data();
    void theShippedTemplatesFillTheirFiles();
};

void TestLoginFile::badFilesAreRefusedWhenTheTemplateIsRead_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<QString>("says");
    QTest::newRow("not an object") << QByteArray(R"("/root/x")") << u"must be {"_s;
    QTest::newRow("no json") << QByteArray(R"({"path": "/root/x"})") << u"must be {"_s;
    QTest::newRow("extra key") << QByteArray(R"({"path": "/root/x", "json": {}, "mode": 1})") << u"must be {"_s;
    QTest::newRow("relative path") << QByteArray(R"({"path": "root/x", "json": {}})") << u"absolute, clean"_s;
    QTest::newRow("dot dot") << QByteArray(R"({"path": "/root/../etc/x", "json": {}})") << u"absolute, clean"_s;
    QTest::newRow("unknown token") << QByteArray(R"({"path": "/root/x", "json": {"a": {"$token": "nope"}}})") << u"names no declared token: nope"_s;
    QTest::newRow("unknown directive") << QByteArray(R"({"path": "/root/x", "json": {"a": {"$value": "access"}}})") << u"unknown directive $value"_s;
    QTest::newRow("directive with more") << QByteArray(R"({"path": "/root/x", "json": {"a": {"$token": "access", "b": 1}}})") << u"one '$' key"_s;
    QTest::newRow("optional elsewhere") << QByteArray(R"({"path": "/root/x", "json": {"a": {"$expires_ms": "access", "optional": true}}})") << u"one '$' key"_s;
    QTest::newRow("claim of a non-JWT") << QByteArray(R"({"path": "/root/x", "json": {"a": {"$claim": ["access", "sub"]}}})") << u"is not declared one"_s;
    QTest::newRow("claim without a key") << QByteArray(R"({"path": "/root/x", "json": {"a": {"$claim": ["id"]}}})") << u"takes [TOKEN, KEY"_s;
    QTest::newRow("now of another kind") << QByteArray(R"({"path": "/root/x", "json": {"a": {"$now": "unix"}}})") << u"takes \"iso\""_s;
    QByteArray deep = R"({"$token": "access"})";
    for (int i = 0; i < 10; ++i)
        deep = "[" + deep + "]";
    QTest::newRow("too deep") << QByteArray(R"({"path": "/root/x", "json": {"a": )" + deep + "}}") << u"nested deeper"_s;
    QTest::newRow("too large") << QByteArray(R"({"path": "/root/x", "json": {"a": ")" + QByteArray(20000, 'x') + "\"}}") << u"larger than"_s;
}

void TestLoginFile::badFilesAreRefusedWhenTheTemplateIsRead()
{
    QFETCH(QByteArray, file);
    QFETCH(QString, says);
    const Result<LoginSpec> spec = loginWith(file);
    QVERIFY(!spec);
    QVERIFY2(spec.error().message().contains(says), qPrintable(spec.error().message()));
    QVERIFY2(spec.error().message().contains("cli.json"_L1), qPrintable(spec.error().message()));
}

void TestLoginFile::theFileHoldsPlaceholdersExpiryAndClaims()
{
    const Result<LoginSpec> spec = loginWith(R"({"path": "/root/.cli/auth.json", "json": {
        "tokens": {"id": {"$token": "id"}, "access": {"$token": "access"}, "refresh": {"$token": "refresh"},
                   "account": {"$claim": ["id", "https://auth.example.test/auth", "account_id"]},
                   "absent_claim": {"$claim": ["id", "nope"]}},
        "expires": [{"$expires_ms": "access"}], "written": {"$now": "iso"}, "kept": {"mode": "chatgpt", "n": 3}}})");
    QVERIFY2(spec, qPrintable(spec.error().message()));
    QVERIFY(spec->credentialsFile);
    QCOMPARE(spec->credentialsFile->path, u"/root/.cli/auth.json"_s);
    const QByteArray claims = QJsonDocument(QJsonObject{{u"https://auth.example.test/auth"_s, QJsonObject{{u"account_id"_s, u"acct-7"_s}}}})
                                  .toJson(QJsonDocument::Compact);
    const QByteArray idPlaceholder = base64Url(R"({"alg":"RS256"})") + '.' + base64Url(claims) + ".PLACEHOLDERsignature";
    const QDateTime expires = QDateTime::fromString(u"2026-12-07T10:00:00Z"_s, Qt::ISODate);
    const QDateTime now = QDateTime::fromString(u"2026-12-07T09:00:00.250Z"_s, Qt::ISODateWithMs);
    const QMap<QString, HeldLoginToken> held{{u"id"_s, {idPlaceholder, {}}},
                                             {u"access"_s, {"ACCESSplaceholder", expires}},
                                             {u"refresh"_s, {"REFRESHplaceholder", {}}}};
    const std::optional<QByteArray> file = spec->credentialsFile->render(held, now);
    QVERIFY(file);
    const QJsonObject o = QJsonDocument::fromJson(*file).object();
    const QJsonObject tokens = o.value("tokens"_L1).toObject();
    QCOMPARE(tokens.value("id"_L1).toString().toLatin1(), idPlaceholder);
    QCOMPARE(tokens.value("access"_L1).toString(), u"ACCESSplaceholder"_s);
    QCOMPARE(tokens.value("refresh"_L1).toString(), u"REFRESHplaceholder"_s);
    QCOMPARE(tokens.value("account"_L1).toString(), u"acct-7"_s);
    QVERIFY(tokens.value("absent_claim"_L1).isNull());
    QCOMPARE(qint64(o.value("expires"_L1).toArray().at(0).toDouble()), expires.toMSecsSinceEpoch());
    QCOMPARE(o.value("written"_L1).toString(), u"2026-12-07T09:00:00.250Z"_s);
    QCOMPARE(o.value("kept"_L1).toObject(), (QJsonObject{{u"mode"_s, u"chatgpt"_s}, {u"n"_s, 3}}));
}

void TestLoginFile::aMissingTokenLeavesNoFileUnlessOptional()
{
    const Result<LoginSpec> spec = loginWith(R"({"path": "/root/x", "json": {"a": {"$token": "access"}, "k": {"$token": "api-key", "optional": true}}})");
    QVERIFY2(spec, qPrintable(spec.error().message()));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QVERIFY(!spec->credentialsFile->render({}, now));
    const std::optional<QByteArray> file = spec->credentialsFile->render({{u"access"_s, {"A", {}}}}, now);
    QVERIFY(file);
    QCOMPARE(QJsonDocument::fromJson(*file).object(), (QJsonObject{{u"a"_s, u"A"_s}, {u"k"_s, QJsonValue::Null}}));
}

// A sandbox keeps its login as JSON (toJson) and reads it back at every daemon start.
void TestLoginFile::itTravelsWithTheStoredLogin()
{
    const Result<LoginSpec> spec = loginWith(R"({"path": "/root/x", "json": {"a": {"$token": "access"}}})");
    QVERIFY(spec);
    QJsonObject o = spec->toJson();
    o.insert(u"command"_s, u"cli login"_s);
    const Result<LoginSpec> back = LoginSpec::fromJson(u"cli"_s, o, u"stored"_s);
    QVERIFY2(back, qPrintable(back.error().message()));
    QCOMPARE(back->credentialsFile->toJson(), spec->credentialsFile->toJson());
    QCOMPARE(back->command, u"cli login"_s);
    QCOMPARE(back->toJson(), o);
}

void TestLoginFile::theShippedTemplatesFillTheirFiles_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("claude-code") << u"claude-code"_s;
    QTest::newRow("codex") << u"codex"_s;
}

void TestLoginFile::theShippedTemplatesFillTheirFiles()
{
    QFETCH(QString, name);
    QFile f(QStringLiteral(AIRLOCK_SOURCE_DIR "/resources/templates/") + name + u".json"_s);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject login = QJsonDocument::fromJson(f.readAll()).object().value("login"_L1).toObject();
    const Result<LoginSpec> spec = LoginSpec::fromJson(name, login, name);
    QVERIFY2(spec, qPrintable(spec.error().message()));
    QVERIFY(spec->credentialsFile);
    QMap<QString, HeldLoginToken> held;
    const QByteArray claims = base64Url(R"({"exp": 1900000000})");
    for (const LoginToken &t : spec->tokens)
        held.insert(t.name, {t.jwt ? QByteArray("eyJhbGciOiJSUzI1NiJ9." + claims + ".SIG" + t.name.toLatin1())
                                   : QByteArray("PH-" + t.name.toLatin1()),
                             QDateTime::currentDateTimeUtc().addSecs(3600)});
    const std::optional<QByteArray> file = spec->credentialsFile->render(held, QDateTime::currentDateTimeUtc());
    QVERIFY(file);
    QVERIFY(!QJsonDocument::fromJson(*file).isNull());
    for (const LoginToken &t : spec->tokens)
        QVERIFY2(file->contains(held.value(t.name).placeholder), qPrintable(t.name)); // every token the CLI keeps is in it
}

QTEST_GUILESS_MAIN(TestLoginFile)
#include "test_loginfile.moc"
