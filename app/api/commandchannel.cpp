#include "api/commandchannel.h"

#include <QFile>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace airlock {

namespace {

// Waits up to `ms` for `pid` to end; true when it did (status in *status).
bool waitFor(pid_t pid, int ms, int *status)
{
    for (int waited = 0;; waited += 20) {
        const pid_t r = ::waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return true;
        if (waited >= ms)
            return false;
        const timespec step{0, 20 * 1000 * 1000};
        ::nanosleep(&step, nullptr);
    }
}

} // namespace

CommandChannel::~CommandChannel()
{
    close();
}

Status CommandChannel::start(const QStringList &argv)
{
    const QString what = QStringLiteral("cannot start `%1`").arg(argv.join(QLatin1Char(' ')));
    if (argv.isEmpty() || argv.first().isEmpty())
        return Error{what, QStringLiteral("the command is empty")};
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return Error{what, QString::fromLocal8Bit(std::strerror(errno))};

    std::vector<QByteArray> words;
    for (const QString &a : argv)
        words.push_back(QFile::encodeName(a));
    std::vector<char *> cargv;
    for (QByteArray &w : words)
        cargv.push_back(w.data());
    cargv.push_back(nullptr);

    // dup2 in the child clears close-on-exec on 0 and 1 only: no other descriptor leaks.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pair[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pair[1], STDOUT_FILENO);
    const int e = ::posix_spawnp(&m_pid, cargv[0], &actions, nullptr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pair[1]);
    if (e != 0) {
        ::close(pair[0]);
        m_pid = -1;
        return Error{what, QString::fromLocal8Bit(std::strerror(e))};
    }
    m_fd = pair[0];
    m_reaped = false;
    return ok();
}

QString CommandChannel::exitDescription()
{
    if (m_pid < 0)
        return {};
    if (!m_reaped) {
        // The socket said the program is done; give it a moment to be reaped.
        if (!waitFor(m_pid, 2000, &m_status))
            return {};
        m_reaped = true;
    }
    if (WIFEXITED(m_status))
        return QStringLiteral("exited with %1").arg(WEXITSTATUS(m_status));
    if (WIFSIGNALED(m_status))
        return QStringLiteral("was killed by signal %1").arg(WTERMSIG(m_status));
    return QStringLiteral("ended");
}

void CommandChannel::close()
{
    if (m_fd >= 0) {
        ::close(m_fd); // the program reads end of input and ends, as ssh does
        m_fd = -1;
    }
    if (m_pid < 0 || m_reaped)
        return;
    if (!waitFor(m_pid, 3000, &m_status)) {
        ::kill(m_pid, SIGTERM);
        if (!waitFor(m_pid, 2000, &m_status)) {
            ::kill(m_pid, SIGKILL);
            waitFor(m_pid, 5000, &m_status);
        }
    }
    m_reaped = true;
}

} // namespace airlock
