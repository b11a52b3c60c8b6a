// libFuzzer target: the TLS handshake watch of a name flow. The first input byte says where
// the rest splits into upstream bytes and guest bytes. Checked: the guest's bytes get the same
// verdict and the same cleared count whole and in pieces; cleared never exceeds what was fed
// nor goes back; a refusal sets an error; and it survives any interleaving with the upstream.
#include "tlshandshakewatch.h"

#include <cstdint>
#include <cstdlib>

using airlock::TlsHandshakeWatch;

static void check(bool condition)
{
    if (!condition)
        std::abort();
}

// Feeds `client` in pieces of `piece` bytes; `server` (if any) right after the first piece.
static bool feed(TlsHandshakeWatch &watch, QByteArrayView client, QByteArrayView server, qsizetype piece)
{
    bool ok = true;
    qint64 last = 0;
    for (qsizetype i = 0; i < client.size() && ok; i += piece) {
        ok = watch.client(client.sliced(i, std::min(piece, client.size() - i)));
        check(watch.cleared() >= last && watch.cleared() <= std::min(i + piece, client.size()));
        last = watch.cleared();
        if (i == 0 && ok && !server.isEmpty() && watch.wantsServer())
            ok = watch.server(server);
    }
    check(ok == watch.error().isEmpty());
    return ok;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const QByteArrayView all(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));
    const qsizetype cut = std::min<qsizetype>(all.size(), qsizetype(data[0]) * 64);
    const QByteArrayView server = all.first(cut);
    const QByteArrayView client = all.sliced(cut);
    TlsHandshakeWatch whole(QStringLiteral("a.example")), pieces(QStringLiteral("a.example"));
    const bool a = feed(whole, client, {}, std::max<qsizetype>(client.size(), 1));
    const bool b = feed(pieces, client, {}, 3);
    check(a == b && whole.cleared() == pieces.cleared() && whole.hellos() == pieces.hellos());
    TlsHandshakeWatch mixed(QStringLiteral("a.example"));
    feed(mixed, client, server, 5);
    return 0;
}
