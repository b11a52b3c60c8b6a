// libFuzzer target: the JSON-RPC socket's line splitter and request parser, as ApiServer
// runs them on what a local client sends. The first byte picks the read size, so the same
// lines also arrive cut at every place a socket may cut them.
#include "api/jsonrpc.h"
#include "api/linereader.h"

#include <QJsonDocument>
#include <cstdint>
#include <cstdlib>

using namespace airlock;

static void check(bool condition)
{
    if (!condition)
        std::abort();
}

static void checkParsed(const QByteArray &line)
{
    const auto parsed = rpc::parseRequest(line);
    if (const auto *failure = std::get_if<rpc::ParseFailure>(&parsed)) {
        check(!failure->message.isEmpty());
        check(failure->code == rpc::ParseError || failure->code == rpc::InvalidRequest ||
              failure->code == rpc::InvalidParams);
        return;
    }
    const auto &request = std::get<rpc::Request>(parsed);
    check(!request.method.isEmpty());
    check(request.notification || request.id.isString() || request.id.isDouble() || request.id.isNull());
    // The answer carries the id back exactly as the client sent it.
    const QJsonObject echoed = QJsonDocument::fromJson(rpc::encodeResult(request.id, QJsonObject{})).object();
    check(request.notification || echoed.value(QLatin1String("id")) == request.id);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const qsizetype step = qsizetype(data[0]) + 1;
    const QByteArray input = QByteArray::fromRawData(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));
    // A small limit so the fuzzer reaches the overlong-line paths, not only the parser.
    constexpr qsizetype kLimit = 4096;
    rpc::LineReader reader(kLimit);
    qsizetype lines = 0;
    for (qsizetype at = 0; at < input.size() && !reader.overflowed(); at += step) {
        reader.append(QByteArrayView(input).sliced(at, qMin(step, input.size() - at)));
        while (const std::optional<QByteArray> line = reader.next()) {
            check(line->size() <= kLimit && !line->contains('\n'));
            ++lines;
            checkParsed(*line);
        }
        check(reader.overflowed() || reader.bufferedBytes() <= kLimit + step);
    }
    check(lines <= input.count('\n'));
    return 0;
}
