// libFuzzer target: the guest agent's replies, which the guest writes. parseReply bounds and
// parses one reply; what it returns is then read as a file chunk and as an exec's status,
// and a sequence of chunks (split at the first byte's count) goes through readAll.
#include "guestagent.h"

#include <QJsonObject>
#include <cstdint>
#include <cstdlib>

using namespace airlock;

static void check(bool condition)
{
    if (!condition)
        std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const int asked = int(data[0]) * 97 + 1; // the count a guest-file-read asked for
    const QByteArray reply = QByteArray::fromRawData(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));
    const Result<QJsonValue> parsed = GuestAgent::parseReply(reply, QStringLiteral("guest-file-read"));
    if (!parsed) {
        check(!parsed.error().what.isEmpty());
        return 0;
    }
    const QJsonObject object = parsed->toObject();
    bool eof = false;
    const Result<QByteArray> chunk = GuestAgent::parseRead(object, asked, &eof);
    check(!chunk || chunk->size() <= asked);
    const Result<ExecResult> exited = GuestAgent::parseExited(object);
    check(!exited || (exited->out.size() <= GuestAgent::kMaxExecOutput && exited->err.size() <= GuestAgent::kMaxExecOutput));

    // The same reply as every chunk of a file: readAll stops at the limit, whatever the guest says.
    const qint64 limit = asked * 3;
    int calls = 0;
    const Result<QByteArray> whole = GuestAgent::readAll(
        [&](int count, bool *end) -> Result<QByteArray> {
            check(count >= 1 && count <= limit + 1);
            Result<QByteArray> part = GuestAgent::parseRead(object, count, end);
            if (++calls > 64)
                *end = true;
            return part;
        },
        limit);
    check(!whole || whole->size() <= limit);
    return 0;
}
