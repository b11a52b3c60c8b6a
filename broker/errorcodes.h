#pragma once
// Error::code values the broker returns; the same numbers as app/api/jsonrpc.h's rpc::Code
// (the broker library does not link the API layer).
namespace airlock::codes {
constexpr int kInvalidParams = -32602;
constexpr int kFailed = -32000;
constexpr int kNotFound = -32004;
constexpr int kConflict = -32009;
} // namespace airlock::codes
