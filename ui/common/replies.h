#pragma once
#include "api/apiclient.h"
#include "api/jsonrpc.h"
#include "protocol/jsonfields.h"

#include <QString>

namespace airlock::ui {

// The daemon does not offer this method (yet): views show "not available" instead of an error.
inline bool isMethodMissing(const ApiClient::Reply &r) { return !r.ok && r.errorCode == rpc::MethodNotFound; }

// A reply read as the protocol's payload: the daemon's error, or what the protocol library
// refuses in the result (its message names the field), never half an object.
inline Error replyError(const ApiClient::Reply &r) { return Error{r.errorMessage, {}, rpc::kindOf(r.errorCode)}; }

template <typename T>
Result<T> replyAs(const ApiClient::Reply &r)
{
    return r.ok ? proto::fromReply<T>(r.result) : Result<T>(replyError(r));
}

template <typename T>
Result<QList<T>> replyListAs(const ApiClient::Reply &r)
{
    return r.ok ? proto::listFromJson<T>(r.result) : Result<QList<T>>(replyError(r));
}

// "3 h 12 min", "45 s": short durations for tables.
QString formatDuration(qint64 seconds);
QString formatBytes(qint64 bytes);

} // namespace airlock::ui
