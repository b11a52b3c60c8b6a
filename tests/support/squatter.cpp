#include "squatter.h"

#include <QProcess>
#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

constexpr int kNotDropped = 0xfe;

bool unprivilegedUser(uid_t *uid, gid_t *gid, QString *error)
{
    const passwd *pw = ::getpwnam("nobody");
    if (!pw) {
        QProcess::execute(QStringLiteral("useradd"), {QStringLiteral("-r"), QStringLiteral("-M"), QStringLiteral("-s"),
                                                      QStringLiteral("/usr/sbin/nologin"), QStringLiteral("nobody")});
        pw = ::getpwnam("nobody");
    }
    if (!pw || pw->pw_uid == 0) {
        *error = QStringLiteral("no unprivileged user \"nobody\" and useradd -r could not make one");
        return false;
    }
    *uid = pw->pw_uid;
    *gid = pw->pw_gid;
    return true;
}

// In the forked child: only async-signal-safe calls from here on.
[[noreturn]] void squat(uid_t uid, gid_t gid, int type, in_addr_t address, quint16 port, bool shared, int report, int control)
{
    int result = 0;
    if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0 || ::getuid() == 0)
        result = kNotDropped; // never mistaken for a refused bind
    ::prctl(PR_SET_PDEATHSIG, SIGKILL); // after setuid, which clears it
    const int fd = result ? -1 : ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
    if (!result) {
        const int one = 1;
        if (shared) {
            ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
        }
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_port = htons(port);
        sa.sin_addr.s_addr = address;
        if (::bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 || (type == SOCK_STREAM && ::listen(fd, 8) != 0))
            result = errno ? errno : EINVAL;
    }
    const unsigned char code = static_cast<unsigned char>(result);
    (void)!::write(report, &code, 1);
    if (result)
        ::_exit(0);
    char heard = 'N';
    for (;;) {
        pollfd fds[2] = {{fd, POLLIN, 0}, {control, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0 && errno != EINTR)
            break;
        if (fds[0].revents & POLLIN) {
            heard = 'H';
            char buf[512];
            if (type == SOCK_STREAM) {
                const int c = ::accept(fd, nullptr, nullptr);
                if (c >= 0)
                    ::close(c);
            } else {
                (void)!::recv(fd, buf, sizeof buf, 0);
            }
        }
        if (fds[1].revents)
            break;
    }
    (void)!::write(report, &heard, 1);
    ::_exit(0);
}

} // namespace

Squatter::~Squatter() { stop(); }

int Squatter::start(int type, const QString &ipv4, quint16 port, bool shared, QString *error)
{
    stop();
    uid_t uid = 0;
    gid_t gid = 0;
    if (!unprivilegedUser(&uid, &gid, error))
        return -1;
    in_addr address{};
    if (::inet_pton(AF_INET, ipv4.toLatin1().constData(), &address) != 1) {
        *error = QStringLiteral("not an IPv4 address: %1").arg(ipv4);
        return -1;
    }
    int report[2], control[2];
    if (::pipe2(report, O_CLOEXEC) != 0 || ::pipe2(control, O_CLOEXEC) != 0) {
        *error = QStringLiteral("pipe2 failed");
        return -1;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        *error = QStringLiteral("fork failed");
        return -1;
    }
    if (pid == 0)
        squat(uid, gid, type, address.s_addr, port, shared, report[1], control[0]);
    ::close(report[1]);
    ::close(control[0]);
    m_pid = pid;
    m_report = report[0];
    m_control = control[1];
    unsigned char code = 0xff;
    pollfd p{m_report, POLLIN, 0};
    if (::poll(&p, 1, 10000) != 1 || ::read(m_report, &code, 1) != 1) {
        *error = QStringLiteral("the unprivileged child did not report");
        stop();
        return -1;
    }
    if (code != 0)
        stop();
    if (code == kNotDropped) {
        *error = QStringLiteral("the child could not become user %1").arg(uid);
        return -1;
    }
    return code;
}

bool Squatter::heardAnything()
{
    if (m_pid < 0)
        return false;
    (void)!::write(m_control, "x", 1);
    char heard = 'N';
    pollfd p{m_report, POLLIN, 0};
    if (::poll(&p, 1, 5000) == 1)
        (void)!::read(m_report, &heard, 1);
    stop();
    return heard == 'H';
}

void Squatter::stop()
{
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
        m_pid = -1;
    }
    for (int *fd : {&m_report, &m_control}) {
        if (*fd >= 0)
            ::close(*fd);
        *fd = -1;
    }
}
