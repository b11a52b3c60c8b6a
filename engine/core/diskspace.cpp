#include "core/diskspace.h"

#include <QDir>
#include <QFileInfo>
#include <QStorageInfo>

namespace airlock {

namespace {

constexpr qint64 kNearlyFullBytes = 1024 * 1024;

QStorageInfo storageOf(const QString &path)
{
    QString p = QFileInfo(path).absoluteFilePath();
    while (!QFileInfo::exists(p) && p != QDir::rootPath())
        p = QFileInfo(p).absolutePath();
    return QStorageInfo(p);
}

} // namespace

bool diskIsFull(const QString &path, const QString &output)
{
    if (output.contains(QLatin1String("No space left on device")) || output.contains(QLatin1String("disk is full")))
        return true;
    const QStorageInfo storage = storageOf(path);
    return storage.isValid() && storage.bytesAvailable() < kNearlyFullBytes;
}

Error diskFullError(const QString &what, const QString &path)
{
    const QString mount = storageOf(path).rootPath();
    return Error{QStringLiteral("%1: the disk holding %2 (%3) is full").arg(what, path, mount),
                 QStringLiteral("free space on %1 (see `df -h %1`) and try again").arg(mount)};
}

Status requireFreeSpace(const QString &what, const QString &path, qint64 bytes)
{
    const QStorageInfo storage = storageOf(path);
    if (!storage.isValid() || storage.bytesAvailable() >= bytes)
        return ok();
    Error e = diskFullError(what, path);
    e.why = QStringLiteral("%1 MiB are left, %2 MiB are needed; ").arg(storage.bytesAvailable() >> 20).arg(bytes >> 20) + e.why;
    return e;
}

Error explainDiskFull(const Error &e, const QString &path)
{
    return diskIsFull(path, e.message()) ? diskFullError(e.what, path) : e;
}

} // namespace airlock
