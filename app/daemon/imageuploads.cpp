#include "daemon/imageuploads.h"
#include "core/diskspace.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace airlock {

namespace {
constexpr qint64 kAbandonedAfterS = 3600;
}

Status ImageUploads::reset()
{
    QMutexLocker lock(&m_lock);
    QDir(m_dir).removeRecursively();
    if (!QDir().mkpath(m_dir) || !QFile::setPermissions(m_dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner))
        return Error{QStringLiteral("cannot create %1").arg(m_dir), QStringLiteral("check the permissions of airlockd's data directory")};
    return ok();
}

QString ImageUploads::path(uid_t uid, const QString &name) const
{
    return QStringLiteral("%1/%2-%3.part").arg(m_dir).arg(uid).arg(name);
}

Result<qint64> ImageUploads::append(uid_t uid, const QString &name, qint64 offset, const QByteArray &data)
{
    QMutexLocker lock(&m_lock);
    removeAbandoned();
    QFile file(path(uid, name));
    const qint64 have = file.exists() ? file.size() : 0;
    if (offset != 0 && offset != have)
        return Error{QStringLiteral("this upload of %1 is at byte %2, not %3").arg(name).arg(have).arg(offset),
                     QStringLiteral("send offset %1 next, or offset 0 to start again").arg(have), ErrorKind::InvalidParams};
    if (offset + data.size() > kMaxBytes) {
        file.remove();
        return Error{QStringLiteral("the image is larger than %1 GiB").arg(kMaxBytes >> 30),
                     QStringLiteral("slim it (fewer layers, no build caches) and import again"), ErrorKind::InvalidParams};
    }
    if (Status room = requireFreeSpace(QStringLiteral("cannot keep the upload of %1").arg(name), m_dir, data.size() + kKeepFree); !room) {
        file.remove();
        return room.error();
    }
    if (!file.open(offset == 0 ? QIODevice::WriteOnly | QIODevice::Truncate : QIODevice::WriteOnly | QIODevice::Append) ||
        file.write(data) != data.size() || !file.flush()) {
        const Error e = explainDiskFull(Error{QStringLiteral("cannot keep the upload of %1").arg(name), file.errorString()}, m_dir);
        file.close();
        file.remove();
        return e;
    }
    return offset + data.size();
}

void ImageUploads::remove(uid_t uid, const QString &name)
{
    QMutexLocker lock(&m_lock);
    QFile::remove(path(uid, name));
}

void ImageUploads::removeAbandoned()
{
    const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(-kAbandonedAfterS);
    for (const QFileInfo &f : QDir(m_dir).entryInfoList({QStringLiteral("*.part")}, QDir::Files))
        if (f.lastModified().toUTC() < before)
            QFile::remove(f.filePath());
}

} // namespace airlock
