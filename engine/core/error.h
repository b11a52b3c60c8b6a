#pragma once
#include <QString>

namespace airlock {

// What kind of failure an Error is: what a caller (and a client) can tell apart without
// parsing prose. The kind never names a wire code: app/api/jsonrpc.h (rpc::codeOf) maps
// each kind to its JSON-RPC code, in that one place.
enum class ErrorKind {
    Failed,           // anything else: the message says what and why
    InvalidParams,    // a parameter missing, of the wrong type or out of range
    NotFound,         // no such object
    Conflict,         // the object exists but is in the wrong state for this
    Unavailable,      // a part this needs is not there or not reachable now (libvirt, vault, agent)
    PermissionDenied, // the caller may not do this
    TooLarge,         // a request or answer over its bound
    // The protocol's own failures, so a client's Error keeps what the daemon answered.
    ParseError,
    InvalidRequest,
    MethodNotFound,
    Internal,
};

// An error a person can act on: what failed, and what to do about it.
struct Error {
    QString what;  // "cannot open the store /var/lib/airlock/airlock.db"
    QString why;   // "the file is not a SQLite database; move it aside or restore a backup"
    ErrorKind kind = ErrorKind::Failed;

    QString message() const { return why.isEmpty() ? what : what + QStringLiteral(": ") + why; }
};

} // namespace airlock
