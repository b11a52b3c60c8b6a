#pragma once
#include "core/result.h"

#include <QMutex>
#include <QString>
#include <sys/types.h>

namespace airlock {

// The archives people upload for image.import, staged in one directory (<dataDir>/uploads) until
// the import runs. An upload is one file per user and image name, written in order: each chunk
// must start where the file ends (offset 0 starts again). Bounded: at most kMaxBytes an upload,
// and a chunk is refused when it would leave less than kKeepFree on the disk. Uploads nobody
// finished are removed when airlockd starts and once an hour has passed since their last chunk.
// Safe from any thread; each call blocks on one file write (it runs on the sandbox pool).
class ImageUploads {
public:
    static constexpr qint64 kMaxBytes = 64LL << 30;
    static constexpr qint64 kKeepFree = 1LL << 30;

    explicit ImageUploads(const QString &dir) : m_dir(dir) {}
    // Empties the directory (at start: nothing in it can be finished any more).
    Status reset();
    // Appends `data` at `offset`; the size of the upload afterwards.
    Result<qint64> append(uid_t uid, const QString &name, qint64 offset, const QByteArray &data);
    // The finished upload's file, for the import; remove() it afterwards.
    QString path(uid_t uid, const QString &name) const;
    void remove(uid_t uid, const QString &name);

private:
    void removeAbandoned();

    const QString m_dir;
    QMutex m_lock;
};

} // namespace airlock
