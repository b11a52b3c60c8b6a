#include "guestagent.h"
#include "libvirtconnection.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QThread>
#include <cstring>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>

namespace airlock {

Result<QJsonValue> GuestAgent::command(const QString &execute, const QJsonObject &arguments, int timeoutS)
{
    QJsonObject cmd{{QStringLiteral("execute"), execute}};
    if (!arguments.isEmpty())
        cmd.insert(QStringLiteral("arguments"), arguments);
    const QByteArray json = QJsonDocument(cmd).toJson(QJsonDocument::Compact);
    char *reply = virDomainQemuAgentCommand(m_domain, json.constData(), timeoutS, 0);
    if (!reply) {
        Error e = LibvirtConnection::lastError(QStringLiteral("the guest agent failed (%1)").arg(execute));
        virErrorPtr err = virGetLastError();
        if (err && (err->code == VIR_ERR_AGENT_UNRESPONSIVE || err->code == VIR_ERR_AGENT_UNSYNCED ||
                    e.why.contains(QLatin1String("not connected")) || e.why.contains(QLatin1String("not responding")))) {
            e.what = QStringLiteral("the guest agent is not answering yet");
            e.why = QStringLiteral("the sandbox may still be booting; try again in a few seconds (%1)").arg(e.why);
            e.kind = ErrorKind::Unavailable;
        }
        return e;
    }
    const QByteArray bytes(reply, qsizetype(strnlen(reply, size_t(kMaxReplyBytes) + 1)));
    free(reply);
    return parseReply(bytes, execute);
}

Result<QByteArray> GuestAgent::readAll(qint64 handle, qint64 maxBytes)
{
    return readAll([&](int count, bool *eof) { return read(handle, count, eof); }, maxBytes);
}

Status GuestAgent::ping(int timeoutS)
{
    auto r = command(QStringLiteral("guest-ping"), {}, timeoutS);
    if (!r)
        return r.error();
    return ok();
}

Result<ExecResult> GuestAgent::exec(const QStringList &argv, const QByteArray &stdinData, int timeoutS)
{
    if (argv.isEmpty())
        return Error{QStringLiteral("nothing to run"), QStringLiteral("give a command after --")};
    QJsonObject args{{QStringLiteral("path"), argv.first()},
                     {QStringLiteral("arg"), QJsonArray::fromStringList(argv.mid(1))},
                     {QStringLiteral("capture-output"), true}};
    if (!stdinData.isEmpty())
        args.insert(QStringLiteral("input-data"), QString::fromLatin1(stdinData.toBase64()));
    auto started = command(QStringLiteral("guest-exec"), args);
    if (!started)
        return started.error();
    const qint64 pid = started->toObject().value(QLatin1String("pid")).toInteger();

    QDeadlineTimer deadline(timeoutS > 0 ? qint64(timeoutS) * 1000 : -1);
    int sleepMs = 5;
    for (;;) {
        auto status = command(QStringLiteral("guest-exec-status"), {{QStringLiteral("pid"), pid}});
        if (!status)
            return status.error();
        const QJsonObject st = status->toObject();
        if (st.value(QLatin1String("exited")).toBool())
            return parseExited(st);
        if (deadline.hasExpired()) {
            // qemu-ga has no kill for guest-exec; end it from inside the guest.
            command(QStringLiteral("guest-exec"),
                    {{QStringLiteral("path"), QStringLiteral("/bin/kill")},
                     {QStringLiteral("arg"), QJsonArray{QStringLiteral("-9"), QString::number(pid)}}});
            ExecResult r;
            r.timedOut = true;
            r.exitCode = 124;
            return r;
        }
        QThread::msleep(sleepMs);
        sleepMs = qMin(sleepMs * 2, 100);
    }
}

Result<qint64> GuestAgent::openFile(const QString &path, const QString &mode)
{
    auto r = command(QStringLiteral("guest-file-open"), {{QStringLiteral("path"), path}, {QStringLiteral("mode"), mode}});
    if (!r)
        return r.error();
    return r->toInteger();
}

Status GuestAgent::closeFile(qint64 handle)
{
    auto r = command(QStringLiteral("guest-file-close"), {{QStringLiteral("handle"), handle}});
    if (!r)
        return r.error();
    return ok();
}

Result<QByteArray> GuestAgent::read(qint64 handle, int count, bool *eof)
{
    auto r = command(QStringLiteral("guest-file-read"), {{QStringLiteral("handle"), handle}, {QStringLiteral("count"), count}}, 60);
    if (!r)
        return r.error();
    return parseRead(r->toObject(), count, eof);
}

Status GuestAgent::write(qint64 handle, const QByteArray &data)
{
    qint64 done = 0;
    while (done < data.size()) {
        const QByteArray part = data.mid(done, kWriteChunk);
        auto r = command(QStringLiteral("guest-file-write"),
                         {{QStringLiteral("handle"), handle}, {QStringLiteral("buf-b64"), QString::fromLatin1(part.toBase64())}}, 60);
        if (!r)
            return r.error();
        const qint64 n = r->toObject().value(QLatin1String("count")).toInteger();
        if (n <= 0)
            return Error{QStringLiteral("the guest did not accept the data"), QStringLiteral("is its disk full?")};
        done += n;
    }
    return ok();
}

Status GuestAgent::seek(qint64 handle, qint64 offset)
{
    auto r = command(QStringLiteral("guest-file-seek"),
                     {{QStringLiteral("handle"), handle}, {QStringLiteral("offset"), offset}, {QStringLiteral("whence"), 0}});
    if (!r)
        return r.error();
    return ok();
}

Status GuestAgent::freeze()
{
    auto r = command(QStringLiteral("guest-fsfreeze-freeze"), {}, 30);
    if (!r)
        return r.error();
    return ok();
}

Status GuestAgent::thaw()
{
    auto r = command(QStringLiteral("guest-fsfreeze-thaw"), {}, 30);
    if (!r)
        return r.error();
    return ok();
}

Status GuestAgent::setTimeToNow(int timeoutS)
{
    const qint64 ms = QDateTime::currentMSecsSinceEpoch();
    auto r = command(QStringLiteral("guest-set-time"), {{QStringLiteral("time"), ms * 1000000}}, timeoutS);
    if (r)
        return ok();
    // qemu-ga refuses guest-set-time in a guest without /sbin/hwclock (busybox images) and,
    // where it has one, sets the clock before hwclock copies it to the RTC and may fail.
    if (r.error().why.contains(QLatin1String("hwclock")))
        return ok();
    if (!r.error().why.contains(QLatin1String("not currently supported")))
        return r.error();
    const qint64 secs = (QDateTime::currentMSecsSinceEpoch() + 500) / 1000;
    Result<ExecResult> set = exec({QStringLiteral("date"), QStringLiteral("-u"), QStringLiteral("-s"), QStringLiteral("@%1").arg(secs)}, {}, timeoutS);
    if (!set)
        return set.error();
    if (set->exitCode != 0)
        return Error{QStringLiteral("the guest's date could not set its clock"), QString::fromUtf8(set->err.left(400)).trimmed()};
    return ok();
}

Result<DiskUsage> GuestAgent::diskUsage(const QString &mountpoint, int timeoutS)
{
    auto r = command(QStringLiteral("guest-get-fsinfo"), {}, timeoutS);
    if (!r)
        return r.error();
    for (const QJsonValue &v : r->toArray()) {
        const QJsonObject fs = v.toObject();
        if (fs.value(QLatin1String("mountpoint")).toString() != mountpoint)
            continue;
        if (!fs.contains(QLatin1String("total-bytes")))
            break;
        return DiskUsage{fs.value(QLatin1String("used-bytes")).toInteger(), fs.value(QLatin1String("total-bytes")).toInteger()};
    }
    return Error{QStringLiteral("the guest agent reports no usage for %1").arg(mountpoint), {}};
}

} // namespace airlock
