// A project's devcontainer.json as editors write it (comments, trailing commas), read for
// what image import --devcontainer builds.
#include "workspace/devcontainer.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace airlock::workspace;

class TestDevcontainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void commentsAndTrailingCommasGoStringsStay_data();
    void commentsAndTrailingCommasGoStringsStay();
    void theBuildIsFoundRelativeToTheFile();
    void whatAirlockDoesNotBuildIsSaid();
};

void TestDevcontainer::commentsAndTrailingCommasGoStringsStay_data()
{
    QTest::addColumn<QByteArray>("jsonc");
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("line comment") << QByteArray("{\"a\": 1 // one\n}") << QByteArray(R"({"a":1})");
    QTest::newRow("block comment") << QByteArray("{/* x */\"a\": 1}") << QByteArray(R"({"a":1})");
    QTest::newRow("trailing comma") << QByteArray(R"({"a": [1, 2,], "b": 3,})") << QByteArray(R"({"a":[1,2],"b":3})");
    QTest::newRow("comma, comment, brace") << QByteArray("{\"a\": 1, /* last */}") << QByteArray(R"({"a":1})");
    QTest::newRow("comma, line comment, brace") << QByteArray("{\"a\": 1, // last\n}") << QByteArray(R"({"a":1})");
    QTest::newRow("slashes in a string") << QByteArray(R"({"u": "http://x/*y*/", "c": ",}"})") << QByteArray(R"({"c":",}","u":"http://x/*y*/"})");
    QTest::newRow("escaped quote") << QByteArray(R"({"q": "a\"//b",})") << QByteArray(R"({"q":"a\"//b"})");
}

void TestDevcontainer::commentsAndTrailingCommasGoStringsStay()
{
    QFETCH(QByteArray, jsonc);
    QFETCH(QByteArray, json);
    const QJsonDocument doc = QJsonDocument::fromJson(jsoncToJson(jsonc));
    QVERIFY2(doc.isObject(), jsoncToJson(jsonc).constData());
    QCOMPARE(doc.toJson(QJsonDocument::Compact), json);
}

void TestDevcontainer::theBuildIsFoundRelativeToTheFile()
{
    QTemporaryDir project;
    QVERIFY(QDir(project.path()).mkpath(QStringLiteral(".devcontainer")));
    QFile f(project.filePath(QStringLiteral(".devcontainer/devcontainer.json")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("// dev\n{\"build\": {\"dockerfile\": \"Dockerfile\", \"context\": \"..\",},}\n");
    f.close();
    const auto build = readDevcontainer(project.path());
    QVERIFY2(build, qPrintable(build.error().message()));
    QCOMPARE(build->dockerfile, project.filePath(QStringLiteral(".devcontainer/Dockerfile")));
    QCOMPARE(build->context, QDir::cleanPath(project.path()));
}

void TestDevcontainer::whatAirlockDoesNotBuildIsSaid()
{
    QTemporaryDir project;
    QFile f(project.filePath(QStringLiteral(".devcontainer.json")));
    const auto write = [&](const QByteArray &text) {
        f.open(QIODevice::WriteOnly | QIODevice::Truncate);
        f.write(text);
        f.close();
    };
    write(R"({"image": "debian:12"})");
    QVERIFY(readDevcontainer(project.path()).error().message().contains(QStringLiteral("skopeo copy docker://debian:12")));
    write(R"({"dockerComposeFile": "compose.yml"})");
    QVERIFY(readDevcontainer(project.path()).error().message().contains(QStringLiteral("Docker Compose")));
    write(R"({"name": "x"})");
    QVERIFY(readDevcontainer(project.path()).error().message().contains(QStringLiteral("neither build.dockerfile nor image")));
    write("{\"a\": ");
    QVERIFY(readDevcontainer(project.path()).error().message().contains(QStringLiteral("is not valid JSON")));
    QVERIFY(readDevcontainer(project.filePath(QStringLiteral("nowhere"))).error().message().contains(QStringLiteral("no devcontainer.json")));
}

QTEST_GUILESS_MAIN(TestDevcontainer)
#include "test_devcontainer.moc"
