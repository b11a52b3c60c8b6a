#include "daemon/instancelock.h"

#include <QFile>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace airlock {

InstanceLock::~InstanceLock()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

Status InstanceLock::acquire(const QString &path)
{
    const QByteArray native = QFile::encodeName(path);
    m_fd = ::open(native.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (m_fd < 0)
        return Error{QStringLiteral("cannot open the lock file %1").arg(path), QString::fromLocal8Bit(std::strerror(errno))};
    if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = {};
        const ssize_t n = ::pread(m_fd, pid, sizeof pid - 1, 0);
        ::close(m_fd);
        m_fd = -1;
        const QString holder = n > 0 ? QString::fromLatin1(pid, int(n)).trimmed() : QStringLiteral("unknown");
        return Error{QStringLiteral("another airlockd (pid %1) already serves this data directory").arg(holder),
                     QStringLiteral("use that one, stop it first, or give this one another --data-dir")};
    }
    const QByteArray me = QByteArray::number(::getpid()) + '\n';
    if (::ftruncate(m_fd, 0) != 0 || ::pwrite(m_fd, me.constData(), size_t(me.size()), 0) != me.size())
        return Error{QStringLiteral("cannot write the lock file %1").arg(path), QString::fromLocal8Bit(std::strerror(errno))};
    return ok();
}

} // namespace airlock
