// The peer policy's answers on their own (test_multiuser drives them through a real daemon):
// the connection reserve, every kind of refusal, who sees which event.
#include "api/jsonrpc.h"
#include "api/peerpolicy.h"

#include <QTest>

using namespace airlock;

namespace {
constexpr uid_t kDaemonUser = 1000, kAlice = 1001, kBob = 1002;
constexpr int kMax = 512;
} // namespace

class TestPeerPolicy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        m_policy = PeerPolicy(AccessPolicy{kDaemonUser, true, 500});
        m_policy.setOwnerLookup(ObjectKind::Sandbox, [](const QString &name) -> std::optional<uid_t> {
            if (name == QLatin1String("alices"))
                return kAlice;
            if (name == QLatin1String("roots"))
                return 0;
            return std::nullopt;
        });
    }

    void aMemberHoldsAtMostItsShareAndLeavesTheReserve()
    {
        QString why;
        QVERIFY(m_policy.mayConnect(kAlice, PeerPolicy::kMaxConnectionsPerUid - 1, 10, kMax, &why));
        QVERIFY(!m_policy.mayConnect(kAlice, PeerPolicy::kMaxConnectionsPerUid, 10, kMax, &why));
        QVERIFY2(why.contains(QLatin1String("the most one user may")), qPrintable(why));
        QVERIFY(!m_policy.mayConnect(kBob, 0, kMax - PeerPolicy::kAdministratorReserve, kMax, &why));
        QVERIFY2(why.contains(QLatin1String("kept for root")), qPrintable(why));
        for (uid_t admin : {uid_t(0), kDaemonUser}) {
            QVERIFY(m_policy.mayConnect(admin, 200, kMax - 1, kMax, &why));
            QVERIFY(!m_policy.mayConnect(admin, 200, kMax, kMax, &why));
        }
    }

    void administrationNeedsAnAdministrator()
    {
        const QList<std::pair<QString, QJsonObject>> calls{
            {QStringLiteral("vault.init"), {}},
            {QStringLiteral("vault.lock"), {}},
            {QStringLiteral("vault.change_passphrase"), {}},
            {QStringLiteral("vault.keyring"), {{QStringLiteral("enable"), true}}},
            {QStringLiteral("vault.unlock"), {{QStringLiteral("keyring"), true}}},
            {QStringLiteral("rule.add"), {{QStringLiteral("global"), true}}},
            {QStringLiteral("policy.import"), {{QStringLiteral("global"), true}}},
            {QStringLiteral("egress.decide"), {{QStringLiteral("id"), 7}, {QStringLiteral("scope"), QStringLiteral("global")}}},
            {QStringLiteral("no.such.method"), {}},
        };
        for (const auto &[method, params] : calls) {
            const std::optional<Refusal> refused = m_policy.check(kAlice, method, params);
            QVERIFY2(refused && refused->code == rpc::PermissionDenied, qPrintable(method));
            QVERIFY2(refused->message.contains(QLatin1String("root")), qPrintable(refused->message));
            QVERIFY2(!m_policy.check(0, method, params), qPrintable(method));
            QVERIFY2(!m_policy.check(kDaemonUser, method, params), qPrintable(method));
        }
        QVERIFY(!m_policy.check(kAlice, QStringLiteral("vault.unlock"), {{QStringLiteral("passphrase"), QStringLiteral("x")}}));
        QVERIFY(!m_policy.check(kAlice, QStringLiteral("egress.decide"), {{QStringLiteral("id"), 7}, {QStringLiteral("scope"), QStringLiteral("sandbox")}}));
    }

    void onlyTheOwnerOrRootActsOnASandbox()
    {
        const QJsonObject alices{{QStringLiteral("name"), QStringLiteral("alices")}};
        QVERIFY(!m_policy.check(kAlice, QStringLiteral("sandbox.remove"), alices));
        QVERIFY(!m_policy.check(0, QStringLiteral("sandbox.remove"), alices));
        const std::optional<Refusal> bob = m_policy.check(kBob, QStringLiteral("sandbox.remove"), alices);
        QVERIFY(bob && bob->message.contains(QLatin1String("sandbox alices belongs to another user")));
        // Policy files of a sandbox are its owner's too: another user cannot read its rules,
        // learn from its attempts or import into it.
        for (const char *method : {"policy.export", "policy.learn", "policy.import"}) {
            const QJsonObject scope{{QStringLiteral("sandbox"), QStringLiteral("alices")}};
            QVERIFY2(!m_policy.check(kAlice, QLatin1String(method), scope), method);
            const std::optional<Refusal> other = m_policy.check(kBob, QLatin1String(method), scope);
            QVERIFY2(other && other->message.contains(QLatin1String("belongs to another user")), method);
        }
        // The daemon's own user administers, but root's sandbox stays root's.
        QVERIFY(m_policy.check(kDaemonUser, QStringLiteral("sandbox.start"), {{QStringLiteral("name"), QStringLiteral("roots")}}));
        // A name nobody holds goes on to the handler, which says it is missing.
        QVERIFY(!m_policy.check(kBob, QStringLiteral("sandbox.remove"), {{QStringLiteral("name"), QStringLiteral("nobodys")}}));
        QVERIFY(m_policy.checkTopic(kBob, QStringLiteral("console:alices")));
        QVERIFY(!m_policy.checkTopic(kAlice, QStringLiteral("console:alices")));
        QVERIFY(!m_policy.checkTopic(kBob, QStringLiteral("sandbox")));
    }

    void eventsGoToWhomTheyConcern()
    {
        const Audience alices = m_policy.audienceOfSandbox(QStringLiteral("alices"));
        QVERIFY(m_policy.maySee(kAlice, alices));
        QVERIFY(m_policy.maySee(0, alices));
        QVERIFY(!m_policy.maySee(kBob, alices));
        QVERIFY(!m_policy.maySee(kDaemonUser, alices));
        const Audience unknown = m_policy.audienceOfSandbox(QStringLiteral("nobodys"));
        QVERIFY(!m_policy.maySee(kAlice, unknown));
        QVERIFY(m_policy.maySee(kDaemonUser, unknown));
        QVERIFY(m_policy.maySee(kBob, Audience::everyone()));
    }

private:
    PeerPolicy m_policy;
};

QTEST_GUILESS_MAIN(TestPeerPolicy)
#include "test_peerpolicy.moc"
