// The pieces of GuestAgent that judge the guest's replies, apart from libvirt so the fuzz
// target (tests/fuzz/targets/fuzz_guestagent.cpp) builds them alone: every byte here is the
// guest's, so each is bounded and checked against what was asked.
#include "guestagent.h"

#include <QJsonDocument>

namespace airlock {

Result<QJsonValue> GuestAgent::parseReply(const QByteArray &reply, const QString &execute)
{
    if (reply.size() > kMaxReplyBytes)
        return Error{QStringLiteral("the guest agent's answer to %1 is too large").arg(execute),
                     QStringLiteral("more than %1 MiB; the guest is misbehaving").arg(kMaxReplyBytes >> 20)};
    QJsonParseError parseError{};
    const QJsonDocument json = QJsonDocument::fromJson(reply, &parseError);
    if (parseError.error != QJsonParseError::NoError || !json.isObject())
        return Error{QStringLiteral("the guest agent's answer to %1 is not a JSON object").arg(execute),
                     QStringLiteral("the guest is misbehaving")};
    const QJsonObject doc = json.object();
    if (doc.contains(QLatin1String("error")))
        return Error{QStringLiteral("the guest agent refused %1").arg(execute),
                     doc.value(QLatin1String("error")).toObject().value(QLatin1String("desc")).toString().left(1000)};
    return doc.value(QLatin1String("return"));
}

Result<QByteArray> GuestAgent::parseRead(const QJsonObject &reply, int count, bool *eof)
{
    // The text is bounded before it is decoded, and what it decodes to after: base64 without
    // padding ("aQ0" is two bytes) passes a length check on the text alone.
    const QByteArray b64 = reply.value(QLatin1String("buf-b64")).toString().toLatin1();
    const auto tooMuch = [count] {
        return Error{QStringLiteral("the guest agent returned more than the %1 bytes asked for").arg(count),
                     QStringLiteral("the guest is misbehaving")};
    };
    if (b64.size() > (qsizetype(count) + 2) / 3 * 4)
        return tooMuch();
    QByteArray data = QByteArray::fromBase64(b64);
    if (data.size() > count)
        return tooMuch();
    *eof = reply.value(QLatin1String("eof")).toBool();
    return data;
}

Result<ExecResult> GuestAgent::parseExited(const QJsonObject &st)
{
    ExecResult r;
    r.exitCode = st.contains(QLatin1String("exitcode")) ? st.value(QLatin1String("exitcode")).toInt()
                                                        : 128 + st.value(QLatin1String("signal")).toInt();
    for (const auto &[key, out] : {std::pair{"out-data", &r.out}, std::pair{"err-data", &r.err}}) {
        const QByteArray b64 = st.value(QLatin1String(key)).toString().toLatin1();
        if (b64.size() <= (kMaxExecOutput + 2) / 3 * 4) // bounded before decoding, checked after
            *out = QByteArray::fromBase64(b64);
        if (out->size() > kMaxExecOutput || b64.size() > (kMaxExecOutput + 2) / 3 * 4)
            return Error{QStringLiteral("the command's output is too large"),
                         QStringLiteral("more than %1 MiB on %2; write it to a file in the guest and copy that out")
                             .arg(kMaxExecOutput >> 20)
                             .arg(QLatin1String(key) == QLatin1String("out-data") ? QStringLiteral("stdout") : QStringLiteral("stderr"))};
    }
    return r;
}

Result<QByteArray> GuestAgent::readAll(const ReadFn &read, qint64 maxBytes)
{
    QByteArray data;
    bool eof = false;
    while (!eof) {
        // One byte more than allowed tells a file of exactly maxBytes from a larger one.
        const qint64 want = qMin<qint64>(maxBytes + 1 - data.size(), kChunk);
        Result<QByteArray> part = read(int(want), &eof);
        if (!part)
            return part.error();
        if (part->isEmpty())
            break; // no progress: the end, whatever eof says
        data += part.value();
        if (data.size() > maxBytes)
            return Error{QStringLiteral("the guest file is larger than %1 bytes").arg(maxBytes),
                         QStringLiteral("it cannot be what airlockd expects there")};
    }
    return data;
}

} // namespace airlock
