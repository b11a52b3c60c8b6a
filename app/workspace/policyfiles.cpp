#include "workspace/policyfiles.h"

#include <QSaveFile>

namespace airlock {

Status writeTextFile(const QString &path, const QByteArray &bytes)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        return Error{QStringLiteral("cannot write %1").arg(path), file.errorString()};
    return ok();
}

} // namespace airlock
