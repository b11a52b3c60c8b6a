#pragma once

// broker/ links no app code; these mirror app/api/jsonrpc.h's application codes so the
// vault's errors reach clients with the right JSON-RPC code.
namespace airlock {
constexpr int kInvalidParamsCode = -32602;
constexpr int kFailedCode = -32000;
constexpr int kPermissionDeniedCode = -32001;
constexpr int kUnavailableCode = -32003;
constexpr int kNotFoundCode = -32004;
constexpr int kConflictCode = -32009;
} // namespace airlock
