#pragma once
// The engine's rows as protocol payloads. SandboxEngine answers with the JSON it builds from
// its tables and knows nothing of app/protocol; the services read each row here into the
// payload airlockd sends, fill in what only they know (held requests, disk use, a template's
// name) and reply with toJson. A row the payload cannot read is the engine's bug: the call
// fails with Internal instead of sending what the protocol does not say.
#include "protocol/jsonfields.h"

#include <QJsonArray>
#include <QJsonObject>

namespace airlock {

template <typename T>
Result<T> fromEngine(const QJsonObject &row)
{
    Result<T> read = T::fromJson(row);
    if (!read)
        return Error{QStringLiteral("airlockd cannot send what the engine answered"), read.error().message(), ErrorKind::Internal};
    return read;
}

template <typename T>
Result<QList<T>> fromEngine(const QJsonArray &rows)
{
    QList<T> out;
    for (const QJsonValue &row : rows) {
        Result<T> read = fromEngine<T>(row.toObject());
        if (!read)
            return read.error();
        out.append(std::move(read.value()));
    }
    return out;
}

} // namespace airlock
