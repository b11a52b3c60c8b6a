// libFuzzer target: the broker's DNS query parser and the answers built from what it accepts.
#include "dnsmessage.h"

#include <cstdint>
#include <cstdlib>

using namespace airlock::dns;

static void check(bool condition)
{
    if (!condition)
        std::abort(); // a broken invariant is a finding, like a crash
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::span<const char> message(reinterpret_cast<const char *>(data), size);
    const ParseResult r = parseQuery(message);
    if (!r.ok) {
        check(!r.error.isEmpty());
        if (r.idValid)
            check(formErr(r.id, r.flags).size() == kHeaderSize);
        return 0;
    }
    const Query &q = r.query;
    check(q.wireName.size() >= 1 && q.wireName.size() <= kMaxName);
    check(q.name.size() <= 253);
    check(q.questionEnd <= int(size));
    // The answer echoes the question; reading its name back gives the same name.
    const QByteArray answer = answerA(q, 0xc6120001, 30);
    check(answer.size() == kHeaderSize + q.wireName.size() + 4 + 16);
    QString name;
    QByteArray wire;
    int next = 0;
    QString why;
    check(readName(std::span<const char>(answer.constData(), size_t(answer.size())), kHeaderSize, &name, &wire, &next, &why));
    check(name == q.name && wire == q.wireName);
    // Re-encoding the parsed name gives the wire form, modulo case.
    check(encodeName(q.name) == q.wireName.toLower());
    check(answerEmpty(q).size() == kHeaderSize + q.wireName.size() + 4);
    return 0;
}
