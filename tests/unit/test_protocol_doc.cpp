// app/PROTOCOL.md against the protocol library: every method and topic constant of
// app/protocol/names.h is in the document's tables, every name in a method or topic table
// is a constant, and the peer policy names every method (one it does not name is for
// administrators only, which no client method should be by accident).
#include "api/peerpolicy.h"
#include "protocol/names.h"

#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace airlock;

namespace {

struct Documented {
    QSet<QString> methods;
    QSet<QString> topics;
};

// The backticked names in the first cell of each row of the tables whose first column is
// "method" or "topic".
Documented readTables(const QString &path)
{
    Documented d;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return d;
    static const QRegularExpression tick(QStringLiteral("`([^`]+)`"));
    QSet<QString> *into = nullptr;
    for (const QString &line : QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'))) {
        if (!line.startsWith(QLatin1Char('|'))) {
            into = nullptr;
            continue;
        }
        const QString first = line.section(QLatin1Char('|'), 1, 1).trimmed();
        if (first == QLatin1String("method") || first == QLatin1String("topic")) {
            into = first == QLatin1String("method") ? &d.methods : &d.topics;
            continue;
        }
        if (!into || first.startsWith(QLatin1String("---")))
            continue;
        for (auto it = tick.globalMatch(first); it.hasNext();)
            into->insert(it.next().captured(1));
    }
    return d;
}

QSet<QString> names(const QList<QLatin1String> &list)
{
    QSet<QString> out;
    for (QLatin1String n : list)
        out.insert(QString(n));
    return out;
}

QString sorted(const QSet<QString> &set)
{
    QStringList l(set.begin(), set.end());
    l.sort();
    return l.join(QStringLiteral(", "));
}

} // namespace

class TestProtocolDoc : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void methodsMatchTheDocument();
    void topicsMatchTheDocument();
    void peerPolicyNamesEveryMethod();
};

void TestProtocolDoc::methodsMatchTheDocument()
{
    const Documented d = readTables(QStringLiteral(AIRLOCK_SOURCE_DIR "/app/PROTOCOL.md"));
    QVERIFY2(d.methods.size() > 20, "app/PROTOCOL.md has no method tables (moved or renamed?)");
    const QSet<QString> library = names(proto::allMethods());
    QVERIFY2((library - d.methods).isEmpty(), qPrintable(QStringLiteral("not in app/PROTOCOL.md: ") + sorted(library - d.methods)));
    QVERIFY2((d.methods - library).isEmpty(),
             qPrintable(QStringLiteral("documented but not in app/protocol/names.h: ") + sorted(d.methods - library)));
}

void TestProtocolDoc::topicsMatchTheDocument()
{
    const Documented d = readTables(QStringLiteral(AIRLOCK_SOURCE_DIR "/app/PROTOCOL.md"));
    QSet<QString> library = names(proto::allTopics());
    library.insert(QString(proto::topic::ConsolePrefix) + QStringLiteral("NAME"));
    QVERIFY2((library - d.topics).isEmpty(), qPrintable(QStringLiteral("not in app/PROTOCOL.md: ") + sorted(library - d.topics)));
    QVERIFY2((d.topics - library).isEmpty(),
             qPrintable(QStringLiteral("documented but not in app/protocol/names.h: ") + sorted(d.topics - library)));
}

void TestProtocolDoc::peerPolicyNamesEveryMethod()
{
    for (QLatin1String m : proto::allMethods()) {
        if (m == proto::method::Subscribe || m == proto::method::Unsubscribe)
            continue; // ApiServer answers these itself (PeerPolicy::checkTopic)
        QVERIFY2(PeerPolicy::knows(QString(m)), m.data());
    }
}

QTEST_GUILESS_MAIN(TestProtocolDoc)
#include "test_protocol_doc.moc"
