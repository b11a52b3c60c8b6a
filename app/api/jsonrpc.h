#pragma once
#include "core/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <variant>

// JSON-RPC 2.0, one object per line, as ApiServer (api/apiserver.h) serves it; the methods are in app/PROTOCOL.md.
namespace airlock::rpc {

enum Code : int {
    ParseError = -32700,
    InvalidRequest = -32600,
    MethodNotFound = -32601,
    InvalidParams = -32602,
    InternalError = -32603,
    // Application codes: what a client can tell apart without parsing prose.
    Failed = -32000,
    PermissionDenied = -32001,
    Unavailable = -32003,
    NotFound = -32004,
    Conflict = -32009,
    TooLarge = -32013,
};

// A request line larger than this is refused and the connection closed.
constexpr qsizetype kMaxLineBytes = 1 << 20;
// A reply or event line a client accepts: the largest answer is an exec's output (16 MiB of
// stdout and 16 MiB of stderr, base64 in JSON); past this the client gives the daemon up.
constexpr qsizetype kMaxReplyLineBytes = 64 << 20;

struct Request {
    QJsonValue id;        // null for a notification
    QString method;
    QJsonObject params;
    bool notification = false;
};

struct ParseFailure {
    QJsonValue id;        // whatever id could be recovered, else null
    int code;
    QString message;
};

// Parses one line (without its '\n'). Invalid UTF-8, non-objects, a wrong "jsonrpc",
// a non-string method, non-object params: each has its own message.
std::variant<Request, ParseFailure> parseRequest(const QByteArray &line);

QByteArray encodeRequest(int id, const QString &method, const QJsonObject &params);
QByteArray encodeResult(const QJsonValue &id, const QJsonValue &result);
QByteArray encodeRawResult(const QJsonValue &id, const QByteArray &resultJson);
QByteArray encodeError(const QJsonValue &id, int code, const QString &message, const QJsonValue &data = {});
QByteArray encodeNotification(const QString &method, const QJsonObject &params);

bool isValidUtf8(const QByteArray &bytes);

// The one mapping between an Error's kind and its code on the wire (app/PROTOCOL.md, "Errors").
int codeOf(ErrorKind kind);
inline int codeOf(const Error &e) { return codeOf(e.kind); }
// A client's way back: a code no kind has (another daemon's, a future one) is Failed.
ErrorKind kindOf(int code);

} // namespace airlock::rpc
