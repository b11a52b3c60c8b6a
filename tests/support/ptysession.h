#pragma once
// A program on a real pseudo-terminal (forkpty), for the tests of what needs one: the console
// of `run` and `secret login`, and run's prompts.
#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QString>
#include <QStringList>
#include <QTest>
#include <csignal>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

namespace airlock::test {

// A program on the master side of a pseudo-terminal: what it prints is kept, what the test
// types goes to it as keystrokes.
class PtySession {
public:
    ~PtySession()
    {
        if (m_pid > 0 && !m_exited) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
        }
        if (m_master >= 0)
            ::close(m_master);
    }
    bool start(const QString &program, const QStringList &args)
    {
        QList<QByteArray> argv{program.toLocal8Bit()};
        for (const QString &a : args)
            argv << a.toLocal8Bit();
        QList<char *> ptrs;
        for (QByteArray &a : argv)
            ptrs << a.data();
        ptrs << nullptr;
        winsize size{40, 120, 0, 0};
        m_pid = ::forkpty(&m_master, nullptr, nullptr, &size);
        if (m_pid == 0) {
            ::execv(ptrs.first(), ptrs.data());
            ::_exit(127);
        }
        return m_pid > 0;
    }
    // Reads until `pattern` has appeared after what was already matched; false on timeout or exit.
    bool waitFor(const QByteArray &pattern, int ms)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms) {
            const qsizetype at = m_out.indexOf(pattern, m_seen);
            if (at >= 0) {
                m_seen = at + pattern.size();
                return true;
            }
            if (!readSome(200))
                return m_out.indexOf(pattern, m_seen) >= 0;
        }
        return false;
    }
    void type(const QByteArray &keys) { QVERIFY(::write(m_master, keys.constData(), size_t(keys.size())) == keys.size()); }
    // The exit code once the program ends within `ms`, else -1.
    int finish(int ms)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms) {
            readSome(200);
            int status = 0;
            if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
                m_exited = true;
                while (readSome(100)) {
                }
                return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            }
        }
        return -1;
    }
    const QByteArray &transcript() const { return m_out; }

private:
    bool readSome(int ms)
    {
        pollfd p{m_master, POLLIN, 0};
        if (::poll(&p, 1, ms) <= 0)
            return true;
        char buffer[4096];
        const ssize_t n = ::read(m_master, buffer, sizeof buffer);
        if (n <= 0)
            return false; // EIO: the program closed the terminal
        m_out.append(buffer, n);
        return true;
    }
    pid_t m_pid = -1;
    int m_master = -1;
    bool m_exited = false;
    QByteArray m_out;
    qsizetype m_seen = 0;
};

} // namespace airlock::test
