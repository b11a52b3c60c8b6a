// A person's own git settings from `--env` and Airlock's credential helper both reach git
// (core/gitconfigenv.h): merged, renumbered, and read back by the real git.
#include "core/gitconfigenv.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace airlock;

namespace {

// What the real git reads for `key` under exactly `env` (plus HOME, so no user config).
QString gitConfigGet(const QMap<QString, QString> &env, const QString &key, const QString &home)
{
    QProcess git;
    QProcessEnvironment e;
    e.insert(QStringLiteral("HOME"), home);
    e.insert(QStringLiteral("PATH"), qEnvironmentVariable("PATH"));
    e.insert(QStringLiteral("GIT_CONFIG_NOSYSTEM"), QStringLiteral("1"));
    for (auto it = env.cbegin(); it != env.cend(); ++it)
        e.insert(it.key(), it.value());
    git.setProcessEnvironment(e);
    git.start(QStringLiteral("git"), {QStringLiteral("config"), QStringLiteral("--get"), key});
    git.waitForFinished(10000);
    return QString::fromUtf8(git.readAllStandardOutput()).trimmed();
}

const QMap<QString, QString> kHelper = {{QStringLiteral("GIT_CONFIG_COUNT"), QStringLiteral("1")},
                                        {QStringLiteral("GIT_CONFIG_KEY_0"), QStringLiteral("credential.helper")},
                                        {QStringLiteral("GIT_CONFIG_VALUE_0"), QStringLiteral("!true")},
                                        {QStringLiteral("TOKEN"), QStringLiteral("placeholder")}};

} // namespace

class TestGitConfigEnv : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bothSetsReachGit();
    void withoutOwnSettingsTheHelperIsEntryZero();
    void aBrokenCountCountsAsNone();
};

void TestGitConfigEnv::bothSetsReachGit()
{
    const QMap<QString, QString> own = {{QStringLiteral("GIT_CONFIG_COUNT"), QStringLiteral("2")},
                                        {QStringLiteral("GIT_CONFIG_KEY_0"), QStringLiteral("user.name")},
                                        {QStringLiteral("GIT_CONFIG_VALUE_0"), QStringLiteral("Ada")},
                                        {QStringLiteral("GIT_CONFIG_KEY_1"), QStringLiteral("http.version")},
                                        {QStringLiteral("GIT_CONFIG_VALUE_1"), QStringLiteral("HTTP/1.1")},
                                        {QStringLiteral("EDITOR"), QStringLiteral("vi")}};
    const QMap<QString, QString> merged = withGitConfig(own, kHelper);
    QCOMPARE(merged.value(QStringLiteral("GIT_CONFIG_COUNT")), QStringLiteral("3"));
    QCOMPARE(merged.value(QStringLiteral("GIT_CONFIG_KEY_2")), QStringLiteral("credential.helper"));
    QCOMPARE(merged.value(QStringLiteral("EDITOR")), QStringLiteral("vi"));
    QCOMPARE(merged.value(QStringLiteral("TOKEN")), QStringLiteral("placeholder"));
    QTemporaryDir home;
    QCOMPARE(gitConfigGet(merged, QStringLiteral("user.name"), home.path()), QStringLiteral("Ada"));
    QCOMPARE(gitConfigGet(merged, QStringLiteral("http.version"), home.path()), QStringLiteral("HTTP/1.1"));
    QCOMPARE(gitConfigGet(merged, QStringLiteral("credential.helper"), home.path()), QStringLiteral("!true"));
}

void TestGitConfigEnv::withoutOwnSettingsTheHelperIsEntryZero()
{
    const QMap<QString, QString> merged = withGitConfig({{QStringLiteral("EDITOR"), QStringLiteral("vi")}}, kHelper);
    QCOMPARE(merged.value(QStringLiteral("GIT_CONFIG_COUNT")), QStringLiteral("1"));
    QCOMPARE(merged.value(QStringLiteral("GIT_CONFIG_VALUE_0")), QStringLiteral("!true"));
    QCOMPARE(withGitConfig({{QStringLiteral("A"), QStringLiteral("1")}}, {{QStringLiteral("B"), QStringLiteral("2")}}),
             (QMap<QString, QString>{{QStringLiteral("A"), QStringLiteral("1")}, {QStringLiteral("B"), QStringLiteral("2")}}));
}

void TestGitConfigEnv::aBrokenCountCountsAsNone()
{
    const QMap<QString, QString> merged =
        withGitConfig({{QStringLiteral("GIT_CONFIG_COUNT"), QStringLiteral("lots")}}, kHelper);
    QCOMPARE(merged.value(QStringLiteral("GIT_CONFIG_COUNT")), QStringLiteral("1"));
    QTemporaryDir home;
    QCOMPARE(gitConfigGet(merged, QStringLiteral("credential.helper"), home.path()), QStringLiteral("!true"));
}

QTEST_GUILESS_MAIN(TestGitConfigEnv)
#include "test_gitconfigenv.moc"
