// libFuzzer target: the reader of the guest's process reports (broker/guestprocess.h), bytes a
// hostile guest writes to its org.airlock.proc.0 port, and the table they land in.
#include "guestprocess.h"

#include <cstdint>
#include <cstdlib>

using namespace airlock;

static void check(bool condition)
{
    if (!condition)
        std::abort(); // a broken invariant is a finding, like a crash
}

static bool printable(const QString &s)
{
    for (QChar c : s)
        if (c.unicode() < 0x20 || c.unicode() > 0x7e)
            return false;
    return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    // Every report is within its bounds, and what is taken is all printable.
    GuestProcessTable table(GuestProcessTable::Limits{64, std::chrono::seconds(60), 1 << 30});
    guestprocess::LineReader reader;
    qint64 reports = 0;
    reader.feed(bytes, [&](const GuestSocketReport &r) {
        ++reports;
        check(r.localPort && r.remotePort && r.process.pid > 0 && r.process.ppid >= 0);
        check(!r.process.comm.isEmpty() && r.process.comm.size() <= guestprocess::kMaxComm);
        check(r.process.parent.size() <= guestprocess::kMaxComm && r.process.cmdline.size() <= guestprocess::kMaxCmdline);
        check(printable(r.process.comm) && printable(r.process.parent) && printable(r.process.cmdline));
        check(r.process.chain.size() <= guestprocess::kMaxChain);
        for (const QString &name : r.process.chain)
            check(!name.isEmpty() && name.size() <= guestprocess::kMaxComm && printable(name) && !name.contains(QLatin1Char('>')));
        table.add(QStringLiteral("s"), r);
        const auto found = table.find(QStringLiteral("s"), r.udp, r.localPort, r.remoteIp, r.remotePort);
        check(found && *found == r.process);
        check(GuestProcess::fromStored(GuestProcess::toStored(r.process)) == r.process);
    });
    check(table.stats(QStringLiteral("s")).sockets <= 64);
    // One line is a report exactly when the parser takes it.
    const qsizetype newline = bytes.indexOf('\n');
    if (newline >= 0 && reports == 0 && bytes.size() > 0)
        check(!guestprocess::parseLine(bytes.first(newline)) || newline > guestprocess::kMaxLine);
    // Fed in two pieces, the same bytes give the same reports.
    if (size > 1) {
        guestprocess::LineReader split;
        qint64 again = 0;
        const auto count = [&](const GuestSocketReport &) { ++again; };
        split.feed(bytes.first(size / 2), count);
        split.feed(bytes.sliced(size / 2), count);
        check(again == reports && split.junk() == reader.junk());
    }
    return 0;
}
