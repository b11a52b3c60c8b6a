// Result<T>: reading the value of an error is a checked failure in every build type, never
// undefined behaviour. The failing reads run in a child (this binary, started with --die),
// because qFatal ends the process.
#include "core/result.h"

#include <QCoreApplication>
#include <QProcess>
#include <QTest>

using namespace airlock;

namespace {

const char *const kDieFlag = "--die";

Result<QString> failed()
{
    return Error{QStringLiteral("cannot read the thing"), QStringLiteral("it is not there"), ErrorKind::NotFound};
}

// Each way to reach the value of an error; the child runs one and must not return.
int die(const QByteArray &how)
{
    Result<QString> r = failed();
    const Result<QString> &c = r;
    qsizetype n = 0;
    if (how == "value")
        n = r.value().size();
    else if (how == "const-value")
        n = c.value().size();
    else if (how == "deref")
        n = (*r).size();
    else if (how == "arrow")
        n = r->size();
    else if (how == "const-arrow")
        n = c->size();
    else
        return 2;
    return n == 0 ? 3 : 4; // reached only if the read did not stop the process
}

} // namespace

class TestResult : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void valueOfOk();
    void valueOfErrorAborts_data();
    void valueOfErrorAborts();
};

void TestResult::valueOfOk()
{
    Result<QString> r = QStringLiteral("fine");
    QVERIFY(r.ok());
    QCOMPARE(r.value(), QStringLiteral("fine"));
    QCOMPARE(r->size(), 4);
    QCOMPARE(*r, QStringLiteral("fine"));
    Status s = ok();
    QVERIFY(s.ok());
}

void TestResult::valueOfErrorAborts_data()
{
    QTest::addColumn<QString>("how");
    for (const char *how : {"value", "const-value", "deref", "arrow", "const-arrow"})
        QTest::newRow(how) << QString::fromLatin1(how);
}

void TestResult::valueOfErrorAborts()
{
    QFETCH(QString, how);
    QProcess child;
    child.setProcessChannelMode(QProcess::SeparateChannels);
    child.start(QCoreApplication::applicationFilePath(), {QString::fromLatin1(kDieFlag), how});
    QVERIFY2(child.waitForFinished(30000), "the child did not finish");
    const QByteArray err = child.readAllStandardError();
    // qFatal aborts: a crash exit (SIGABRT), not a return code from die().
    QVERIFY2(child.exitStatus() == QProcess::CrashExit,
             qPrintable(QStringLiteral("exit %1: %2").arg(child.exitCode()).arg(QString::fromUtf8(err))));
    QVERIFY2(err.contains("the value of an error was read"), err.constData());
    QVERIFY2(err.contains("cannot read the thing: it is not there"), err.constData());
}

int main(int argc, char **argv)
{
    if (argc == 3 && qstrcmp(argv[1], kDieFlag) == 0)
        return die(argv[2]);
    QCoreApplication app(argc, argv);
    TestResult t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_result.moc"
