// Framing and validation of JSON-RPC lines: every bad input gets its own clear answer.
#include "api/jsonrpc.h"

#include <QJsonDocument>
#include <QTest>

using namespace airlock;

class TestJsonRpc : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void acceptsWellFormedRequest();
    void rejectsBadInput_data();
    void rejectsBadInput();
    void utf8Validation();
    void resultEnvelopeKeepsIdVerbatim();
    void errorKindHasDocumentedCode_data();
    void errorKindHasDocumentedCode();
    void unknownCodeIsFailed();
};

void TestJsonRpc::resultEnvelopeKeepsIdVerbatim()
{
    const QJsonObject result{{QStringLiteral("a"), 1}};
    for (const QJsonValue &id : {QJsonValue(7), QJsonValue(-3), QJsonValue(1.5), QJsonValue(1e300),
                                 QJsonValue(QStringLiteral("x\"y")), QJsonValue(QJsonValue::Null)}) {
        const QByteArray line = rpc::encodeResult(id, result);
        QVERIFY(line.endsWith('\n'));
        const QJsonObject back = QJsonDocument::fromJson(line).object();
        QCOMPARE(back.value(QLatin1String("id")), id);
        QCOMPARE(back.value(QLatin1String("result")).toObject(), result);
        QCOMPARE(back.value(QLatin1String("jsonrpc")).toString(), QStringLiteral("2.0"));
    }
}

void TestJsonRpc::acceptsWellFormedRequest()
{
    auto r = rpc::parseRequest(R"({"jsonrpc":"2.0","id":7,"method":"status","params":{"a":1}})");
    QVERIFY(std::holds_alternative<rpc::Request>(r));
    const auto &req = std::get<rpc::Request>(r);
    QCOMPARE(req.method, QStringLiteral("status"));
    QCOMPARE(req.id.toInt(), 7);
    QCOMPARE(req.params.value(QLatin1String("a")).toInt(), 1);
    QVERIFY(!req.notification);
}

void TestJsonRpc::rejectsBadInput_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("not json") << QByteArray("hello") << int(rpc::ParseError) << QStringLiteral("not JSON");
    QTest::newRow("invalid utf8") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"st\xff\"}") << int(rpc::ParseError) << QStringLiteral("UTF-8");
    QTest::newRow("overlong utf8") << QByteArray("{\"x\":\"\xc0\xaf\"}") << int(rpc::ParseError) << QStringLiteral("UTF-8");
    QTest::newRow("array") << QByteArray("[1,2]") << int(rpc::InvalidRequest) << QStringLiteral("object");
    QTest::newRow("wrong version") << QByteArray(R"({"jsonrpc":"1.0","id":1,"method":"status"})") << int(rpc::InvalidRequest) << QStringLiteral("2.0");
    QTest::newRow("method not string") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":5})") << int(rpc::InvalidRequest) << QStringLiteral("method");
    QTest::newRow("params array") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"x","params":[1]})") << int(rpc::InvalidParams) << QStringLiteral("params");
    QTest::newRow("id object") << QByteArray(R"({"jsonrpc":"2.0","id":{},"method":"x"})") << int(rpc::InvalidRequest) << QStringLiteral("id");
}

void TestJsonRpc::rejectsBadInput()
{
    QFETCH(QByteArray, line);
    QFETCH(int, code);
    QFETCH(QString, mentions);
    auto r = rpc::parseRequest(line);
    QVERIFY(std::holds_alternative<rpc::ParseFailure>(r));
    const auto &f = std::get<rpc::ParseFailure>(r);
    QCOMPARE(f.code, code);
    QVERIFY2(f.message.contains(mentions), qPrintable(f.message));
}

void TestJsonRpc::utf8Validation()
{
    QVERIFY(rpc::isValidUtf8(QStringLiteral("grüße ✓ 🚀").toUtf8()));
    QVERIFY(!rpc::isValidUtf8(QByteArray("\xed\xa0\x80")));      // surrogate
    QVERIFY(!rpc::isValidUtf8(QByteArray("\xf4\x90\x80\x80")));  // > U+10FFFF
    QVERIFY(!rpc::isValidUtf8(QByteArray("\xe2\x82")));          // truncated
}

// The codes app/PROTOCOL.md ("Errors") lists, written out here as numbers on purpose: a
// change of rpc::Code or of rpc::codeOf that moves a kind to another code fails this.
void TestJsonRpc::errorKindHasDocumentedCode_data()
{
    QTest::addColumn<ErrorKind>("kind");
    QTest::addColumn<int>("code");
    QTest::newRow("Failed") << ErrorKind::Failed << -32000;
    QTest::newRow("PermissionDenied") << ErrorKind::PermissionDenied << -32001;
    QTest::newRow("Unavailable") << ErrorKind::Unavailable << -32003;
    QTest::newRow("NotFound") << ErrorKind::NotFound << -32004;
    QTest::newRow("Conflict") << ErrorKind::Conflict << -32009;
    QTest::newRow("TooLarge") << ErrorKind::TooLarge << -32013;
    QTest::newRow("InvalidParams") << ErrorKind::InvalidParams << -32602;
    QTest::newRow("ParseError") << ErrorKind::ParseError << -32700;
    QTest::newRow("InvalidRequest") << ErrorKind::InvalidRequest << -32600;
    QTest::newRow("MethodNotFound") << ErrorKind::MethodNotFound << -32601;
    QTest::newRow("Internal") << ErrorKind::Internal << -32603;
}

void TestJsonRpc::errorKindHasDocumentedCode()
{
    QFETCH(ErrorKind, kind);
    QFETCH(int, code);
    QCOMPARE(rpc::codeOf(kind), code);
    QCOMPARE(rpc::codeOf(Error{QStringLiteral("what"), QStringLiteral("why"), kind}), code);
    QCOMPARE(rpc::kindOf(code), kind); // a client gets back the kind the daemon sent
    // ...and it reaches the wire in the error object.
    const QJsonObject e = QJsonDocument::fromJson(rpc::encodeError(1, rpc::codeOf(kind), QStringLiteral("m")))
                              .object().value(QLatin1String("error")).toObject();
    QCOMPARE(e.value(QLatin1String("code")).toInt(), code);
}

void TestJsonRpc::unknownCodeIsFailed()
{
    QCOMPARE(rpc::codeOf(Error{}), -32000); // an Error nobody gave a kind
    for (int code : {0, 1, -1, -32002, -32005, -32099, -32604, 42})
        QCOMPARE(rpc::kindOf(code), ErrorKind::Failed);
    QCOMPARE(rpc::codeOf(static_cast<ErrorKind>(1000)), -32000); // never another kind's code
}

QTEST_GUILESS_MAIN(TestJsonRpc)
#include "test_jsonrpc.moc"
