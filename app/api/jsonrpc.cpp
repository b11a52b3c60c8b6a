#include "api/jsonrpc.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <variant>

namespace airlock::rpc {

bool isValidUtf8(const QByteArray &bytes)
{
    // RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF.
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.constData());
    const auto *end = p + bytes.size();
    while (p < end) {
        const unsigned char c = *p;
        if (c < 0x80) { ++p; continue; }
        int extra;
        unsigned cp;
        if ((c & 0xE0) == 0xC0) { extra = 1; cp = c & 0x1F; }
        else if ((c & 0xF0) == 0xE0) { extra = 2; cp = c & 0x0F; }
        else if ((c & 0xF8) == 0xF0) { extra = 3; cp = c & 0x07; }
        else return false;
        if (end - p <= extra)
            return false;
        for (int i = 1; i <= extra; ++i) {
            if ((p[i] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        static constexpr unsigned kMin[] = {0, 0x80, 0x800, 0x10000};
        if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        p += extra + 1;
    }
    return true;
}

std::variant<Request, ParseFailure> parseRequest(const QByteArray &line)
{
    if (!isValidUtf8(line))
        return ParseFailure{QJsonValue::Null, ParseError, QStringLiteral("the request is not valid UTF-8")};
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
    if (err.error != QJsonParseError::NoError)
        return ParseFailure{QJsonValue::Null, ParseError,
                            QStringLiteral("the request is not JSON (%1 at offset %2); send one JSON-RPC 2.0 object per line")
                                .arg(err.errorString()).arg(err.offset)};
    if (!doc.isObject())
        return ParseFailure{QJsonValue::Null, InvalidRequest, QStringLiteral("the request must be a JSON object (batches are not supported)")};
    const QJsonObject o = doc.object();
    Request r;
    r.notification = !o.contains(QLatin1String("id"));
    r.id = o.value(QLatin1String("id"));
    if (!r.notification && !r.id.isString() && !r.id.isDouble() && !r.id.isNull())
        return ParseFailure{QJsonValue::Null, InvalidRequest, QStringLiteral("\"id\" must be a string, a number or null")};
    if (o.value(QLatin1String("jsonrpc")) != QLatin1String("2.0"))
        return ParseFailure{r.id, InvalidRequest, QStringLiteral("\"jsonrpc\" must be \"2.0\"")};
    const QJsonValue method = o.value(QLatin1String("method"));
    if (!method.isString() || method.toString().isEmpty())
        return ParseFailure{r.id, InvalidRequest, QStringLiteral("\"method\" must be a non-empty string")};
    r.method = method.toString();
    const QJsonValue params = o.value(QLatin1String("params"));
    if (!params.isUndefined() && !params.isNull() && !params.isObject())
        return ParseFailure{r.id, InvalidParams, QStringLiteral("\"params\" must be an object with named parameters")};
    r.params = params.toObject();
    return r;
}

namespace {
QByteArray line(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
}

// Any JSON value as compact text (QJsonDocument only takes arrays and objects).
QByteArray compact(const QJsonValue &v)
{
    if (v.isObject())
        return QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact);
    if (v.isArray())
        return QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact);
    QByteArray wrapped = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
    return wrapped.mid(1, wrapped.size() - 2);
}
} // namespace

QByteArray encodeRequest(int id, const QString &method, const QJsonObject &params)
{
    return line({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id},
                 {QStringLiteral("method"), method}, {QStringLiteral("params"), params}});
}

// The envelope is written by hand: nesting the result in a QJsonObject would deep-copy it,
// which was the largest cost of a `status` round trip.
QByteArray encodeResult(const QJsonValue &id, const QJsonValue &result)
{
    return encodeRawResult(id, compact(result));
}

QByteArray encodeRawResult(const QJsonValue &id, const QByteArray &resultJson)
{
    QByteArray idJson;
    const double d = id.toDouble();
    if (id.isDouble() && d > -9007199254740992.0 && d < 9007199254740992.0 && d == double(qint64(d)))
        idJson = QByteArray::number(qint64(id.toDouble())); // the common case, without a JSON round
    else
        idJson = compact(id);
    return "{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"result\":" + resultJson + "}\n";
}

QByteArray encodeError(const QJsonValue &id, int code, const QString &message, const QJsonValue &data)
{
    QJsonObject error{{QStringLiteral("code"), code}, {QStringLiteral("message"), message}};
    if (!data.isUndefined() && !data.isNull())
        error.insert(QStringLiteral("data"), data);
    return line({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id},
                 {QStringLiteral("error"), error}});
}

QByteArray encodeNotification(const QString &method, const QJsonObject &params)
{
    return line({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("method"), method},
                 {QStringLiteral("params"), params}});
}

int codeOf(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::Failed: return Failed;
    case ErrorKind::InvalidParams: return InvalidParams;
    case ErrorKind::NotFound: return NotFound;
    case ErrorKind::Conflict: return Conflict;
    case ErrorKind::Unavailable: return Unavailable;
    case ErrorKind::PermissionDenied: return PermissionDenied;
    case ErrorKind::TooLarge: return TooLarge;
    case ErrorKind::ParseError: return ParseError;
    case ErrorKind::InvalidRequest: return InvalidRequest;
    case ErrorKind::MethodNotFound: return MethodNotFound;
    case ErrorKind::Internal: return InternalError;
    }
    return Failed; // a value outside the enum: the generic code, never another kind's
}

ErrorKind kindOf(int code)
{
    switch (code) {
    case InvalidParams: return ErrorKind::InvalidParams;
    case NotFound: return ErrorKind::NotFound;
    case Conflict: return ErrorKind::Conflict;
    case Unavailable: return ErrorKind::Unavailable;
    case PermissionDenied: return ErrorKind::PermissionDenied;
    case TooLarge: return ErrorKind::TooLarge;
    case ParseError: return ErrorKind::ParseError;
    case InvalidRequest: return ErrorKind::InvalidRequest;
    case MethodNotFound: return ErrorKind::MethodNotFound;
    case InternalError: return ErrorKind::Internal;
    default: return ErrorKind::Failed;
    }
}

} // namespace airlock::rpc
