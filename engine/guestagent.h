#pragma once
#include "core/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>
#include <functional>
#include <libvirt/libvirt.h>

namespace airlock {

struct ExecResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    bool timedOut = false;
};

// A guest filesystem's fill level as statvfs sees it (total excludes root's reserve).
struct DiskUsage {
    qint64 usedBytes = 0;
    qint64 totalBytes = 0;
    // Nothing useful fits any more: under 1% or 8 MiB left.
    bool full() const { return totalBytes > 0 && totalBytes - usedBytes < qMax(totalBytes / 100, qint64(8) << 20); }
};

// qemu-guest-agent through libvirt (virDomainQemuAgentCommand): exec with separate
// stdout/stderr and exit code, file transfer in chunks, fsfreeze. Safe to use from any
// thread; the domain handle stays owned by the caller.
class GuestAgent {
public:
    explicit GuestAgent(virDomainPtr domain) : m_domain(domain) {}

    Status ping(int timeoutS = 2);
    Result<ExecResult> exec(const QStringList &argv, const QByteArray &stdinData, int timeoutS);

    Result<qint64> openFile(const QString &path, const QString &mode);
    Status closeFile(qint64 handle);
    Result<QByteArray> read(qint64 handle, int count, bool *eof);
    Status write(qint64 handle, const QByteArray &data);
    Status seek(qint64 handle, qint64 offset);

    Result<DiskUsage> diskUsage(const QString &mountpoint, int timeoutS = 5);

    Status freeze();
    Status thaw();
    // Sets the guest's clock to the host's (after a checkpoint's restore it is behind).
    Status setTimeToNow(int timeoutS = 10);

    // Reads a whole guest file of at most maxBytes (more: an error naming the limit).
    Result<QByteArray> readAll(qint64 handle, qint64 maxBytes);

    static constexpr int kChunk = 4 << 20;         // guest-file-read size per call
    // Larger guest-file-write payloads (192 KiB was tried) stall qemu-ga and libvirt marks
    // the agent unresponsive.
    static constexpr int kWriteChunk = 64 << 10;   // guest-file-write size per call

    // Every byte the guest agent sends is the guest's: each reply is bounded before it is
    // parsed, and what it claims is checked against what was asked.
    static constexpr qsizetype kMaxReplyBytes = 32 << 20; // one JSON reply (libvirt's own message cap)
    static constexpr qsizetype kMaxExecOutput = 16 << 20; // stdout, and stderr, of one exec (qemu-ga's cap)

    // The pieces that judge the guest's replies (guestagentreply.cpp), on their own so tests
    // and the fuzz target can feed them lies.
    static Result<QJsonValue> parseReply(const QByteArray &reply, const QString &execute);
    static Result<QByteArray> parseRead(const QJsonObject &reply, int count, bool *eof);
    static Result<ExecResult> parseExited(const QJsonObject &status);
    using ReadFn = std::function<Result<QByteArray>(int count, bool *eof)>;
    static Result<QByteArray> readAll(const ReadFn &read, qint64 maxBytes);

private:
    Result<QJsonValue> command(const QString &execute, const QJsonObject &arguments, int timeoutS = 10);
    virDomainPtr m_domain;
};

} // namespace airlock
