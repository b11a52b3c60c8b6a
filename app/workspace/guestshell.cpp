#include "guestshell.h"
#include "api/blockingclient.h"
#include "api/jsonrpc.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QThread>

namespace airlock::workspace {

namespace {
constexpr qint64 kChunk = 512 * 1024; // a request line (base64 of this) stays below 1 MiB
constexpr int kAgentRetries = 30;     // a just-booted guest's agent may need a few more seconds
}

Result<ShellResult> GuestShell::run(const QString &script, const QStringList &args, int timeoutS)
{
    QStringList argv{QStringLiteral("/bin/sh"), QStringLiteral("-c"), script, QStringLiteral("airlock")};
    argv += args;
    const QJsonObject params{{QStringLiteral("name"), m_sandbox},
                             {QStringLiteral("argv"), QJsonArray::fromStringList(argv)},
                             {QStringLiteral("timeout_s"), timeoutS}};
    for (int attempt = 0;; ++attempt) {
        Result<QJsonValue> r = m_client.call(QStringLiteral("sandbox.exec"), params, (timeoutS + 60) * 1000);
        if (!r) {
            if (r.error().kind == ErrorKind::Unavailable && attempt < kAgentRetries) {
                QThread::msleep(1000);
                continue;
            }
            return Error{QStringLiteral("cannot run a command in sandbox %1").arg(m_sandbox), r.error().why, r.error().kind};
        }
        const QJsonObject o = r->toObject();
        if (o.value(QLatin1String("timed_out")).toBool())
            return Error{QStringLiteral("a command in sandbox %1 did not finish in %2 s").arg(m_sandbox).arg(timeoutS),
                         QStringLiteral("the guest may be overloaded; try again")};
        ShellResult s;
        s.exitCode = o.value(QLatin1String("exit_code")).toInt();
        s.out = QByteArray::fromBase64(o.value(QLatin1String("stdout_b64")).toString().toLatin1());
        s.err = QByteArray::fromBase64(o.value(QLatin1String("stderr_b64")).toString().toLatin1());
        return s;
    }
}

Status GuestShell::push(const QString &localFile, const QString &guestPath, const Progress &progress, int from, int to,
                        const Cancelled &cancelled)
{
    QFile in(localFile);
    if (!in.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("cannot read %1").arg(localFile), in.errorString()};
    const qint64 total = qMax<qint64>(1, in.size());
    qint64 offset = 0;
    do {
        if (isCancelled(cancelled))
            return cancelledError(QStringLiteral("the copy into sandbox %1 stopped").arg(m_sandbox));
        const QByteArray chunk = in.read(kChunk);
        const QJsonObject params{{QStringLiteral("name"), m_sandbox}, {QStringLiteral("path"), guestPath},
                                 {QStringLiteral("offset"), offset}, {QStringLiteral("data_b64"), QString::fromLatin1(chunk.toBase64())},
                                 {QStringLiteral("final"), in.atEnd()}};
        Result<QJsonValue> r = m_client.call(QStringLiteral("file.push"), params);
        if (!r)
            return Error{QStringLiteral("cannot copy into sandbox %1").arg(m_sandbox), r.error().why, r.error().kind};
        offset += chunk.size();
        report(progress, QStringLiteral("copying %1 of %2 KiB").arg((offset + 1023) / 1024).arg((total + 1023) / 1024),
               from + int((to - from) * offset / total));
    } while (!in.atEnd());
    return ok();
}

Result<QByteArray> GuestShell::pull(const QString &guestPath)
{
    QByteArray data;
    for (;;) {
        const QJsonObject params{{QStringLiteral("name"), m_sandbox}, {QStringLiteral("path"), guestPath},
                                 {QStringLiteral("offset"), qint64(data.size())}, {QStringLiteral("length"), kChunk * 4}};
        Result<QJsonValue> r = m_client.call(QStringLiteral("file.pull"), params);
        if (!r)
            return Error{QStringLiteral("cannot copy %1 out of sandbox %2").arg(guestPath, m_sandbox), r.error().why, r.error().kind};
        const QByteArray part = QByteArray::fromBase64(r->toObject().value(QLatin1String("data_b64")).toString().toLatin1());
        data += part;
        if (r->toObject().value(QLatin1String("eof")).toBool() || part.isEmpty())
            return data;
    }
}

QString describeFailure(const ShellResult &r)
{
    QString text = QString::fromUtf8(r.err).trimmed();
    if (text.isEmpty())
        text = QString::fromUtf8(r.out).trimmed();
    if (text.isEmpty())
        text = QStringLiteral("exit code %1").arg(r.exitCode);
    return text;
}

} // namespace airlock::workspace
