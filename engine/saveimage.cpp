#include "saveimage.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace airlock::saveimage {

namespace {

constexpr char kMagic[] = "LibvirtQemudSave";
constexpr char kPartialMagic[] = "LibvirtQemudPart";
constexpr quint32 kVersion = 2;
constexpr quint32 kRawFormat = 0;

struct RawHeader {
    char magic[16];
    quint32 version, dataLength, wasRunning, format, cookieOffset;
    quint32 unused[14];
};
static_assert(sizeof(RawHeader) == kHeaderBytes);

Error fileError(const QString &what, const QString &path)
{
    return Error{QStringLiteral("%1 %2").arg(what, path), QString::fromLocal8Bit(std::strerror(errno))};
}

class Fd {
public:
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd() { if (m_fd >= 0) ::close(m_fd); }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    int get() const { return m_fd; }
private:
    int m_fd;
};

Result<RawHeader> readRaw(int fd, const QString &path)
{
    RawHeader h{};
    if (::pread(fd, &h, sizeof h, 0) != qint64(sizeof h))
        return Error{QStringLiteral("%1 is not a checkpoint's memory file").arg(path), QStringLiteral("it is shorter than its header")};
    if (std::memcmp(h.magic, kPartialMagic, sizeof h.magic) == 0)
        return Error{QStringLiteral("the memory file %1 is incomplete").arg(path), QStringLiteral("its save never finished; remove the snapshot")};
    if (std::memcmp(h.magic, kMagic, sizeof h.magic) != 0)
        return Error{QStringLiteral("%1 is not a checkpoint's memory file").arg(path), QStringLiteral("it does not start with libvirt's save header")};
    if (h.version != kVersion || h.format != kRawFormat)
        return Error{QStringLiteral("the memory file %1 is of a kind Airlock does not copy").arg(path),
                     QStringLiteral("version %1, format %2 (Airlock reads version 2, uncompressed)").arg(h.version).arg(h.format)};
    if (h.dataLength == 0 || h.dataLength > kMaxDataBytes || h.cookieOffset > h.dataLength)
        return Error{QStringLiteral("the header of the memory file %1 is damaged").arg(path), QStringLiteral("remove the snapshot")};
    return h;
}

// The header and its block; `raw` gets the header as it is on disk.
Result<SaveImageHeader> readHeader(int fd, const QString &path, RawHeader *raw)
{
    Result<RawHeader> h = readRaw(fd, path);
    if (!h)
        return h.error();
    QByteArray block(qsizetype(h->dataLength), Qt::Uninitialized);
    if (::pread(fd, block.data(), size_t(block.size()), kHeaderBytes) != block.size())
        return Error{QStringLiteral("the memory file %1 is cut short").arg(path), QStringLiteral("remove the snapshot")};
    const qsizetype xmlEnd = h->cookieOffset ? qsizetype(h->cookieOffset) : block.size();
    SaveImageHeader out;
    out.dataLength = h->dataLength;
    out.xml = QByteArray(block.constData(), qsizetype(qstrnlen(block.constData(), uint(xmlEnd))));
    if (h->cookieOffset)
        out.cookie = QByteArray(block.constData() + xmlEnd, qsizetype(qstrnlen(block.constData() + xmlEnd, uint(block.size() - xmlEnd))));
    if (raw)
        *raw = h.value();
    return out;
}

// `len` bytes from `in` to `out`, both at their current offsets: shared extents where the
// file system can (FICLONE does whole files only), else an in-kernel copy.
Status copyRange(int in, int out, qint64 len, const QString &to)
{
    while (len > 0) {
        const ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, size_t(qMin<qint64>(len, qint64(1) << 30)), 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? Status(fileError(QStringLiteral("cannot copy the checkpoint to"), to))
                         : Status(Error{QStringLiteral("cannot copy the checkpoint to %1").arg(to), QStringLiteral("its memory file ended early")});
        len -= n;
    }
    return ok();
}

} // namespace

Result<SaveImageHeader> read(const QString &path)
{
    Fd fd(::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0)
        return fileError(QStringLiteral("cannot open the memory file"), path);
    return readHeader(fd.get(), path, nullptr);
}

Status copyWithXml(const QString &from, const QString &to, const QByteArray &xml)
{
    Fd in(::open(QFile::encodeName(from).constData(), O_RDONLY | O_CLOEXEC));
    if (in.get() < 0)
        return fileError(QStringLiteral("cannot open the memory file"), from);
    RawHeader h{};
    Result<SaveImageHeader> old = readHeader(in.get(), from, &h);
    if (!old)
        return old.error();
    // The block as libvirt lays it out: XML, NUL, cookie, NUL, zeros to its old length.
    QByteArray block = xml + '\0';
    const quint32 cookieOffset = old->cookie.isEmpty() ? 0 : quint32(block.size());
    if (!old->cookie.isEmpty())
        block += old->cookie + '\0';
    if (block.size() > qsizetype(h.dataLength))
        return Error{QStringLiteral("the fork's definition does not fit in the checkpoint's header"),
                     QStringLiteral("%1 bytes, room for %2").arg(block.size()).arg(h.dataLength)};
    block.append(QByteArray(qsizetype(h.dataLength) - block.size(), '\0'));
    RawHeader fresh = h;
    fresh.cookieOffset = cookieOffset;

    struct stat st {};
    if (::fstat(in.get(), &st) < 0)
        return fileError(QStringLiteral("cannot read the size of"), from);
    const QByteArray toName = QFile::encodeName(to);
    Fd out(::open(toName.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (out.get() < 0)
        return fileError(QStringLiteral("cannot create"), to);
    auto fail = [&toName](Status s) {
        ::unlink(toName.constData());
        return s;
    };
    if (::ioctl(out.get(), FICLONE, in.get()) < 0) {
        if (Status s = copyRange(in.get(), out.get(), st.st_size, to); !s)
            return fail(s);
    }
    if (::pwrite(out.get(), &fresh, sizeof fresh, 0) != qint64(sizeof fresh) ||
        ::pwrite(out.get(), block.constData(), size_t(block.size()), kHeaderBytes) != block.size())
        return fail(fileError(QStringLiteral("cannot write the fork's header to"), to));
    return ok();
}

} // namespace airlock::saveimage
