#include "ctl/secretinput.h"

#include <cstdio>
#include <termios.h>
#include <unistd.h>

namespace airlock::ctl {

namespace {

// Echo off for the life of this object, restored even on early return.
class NoEcho {
public:
    NoEcho()
    {
        m_active = ::tcgetattr(STDIN_FILENO, &m_saved) == 0;
        if (m_active) {
            termios quiet = m_saved;
            quiet.c_lflag &= ~tcflag_t(ECHO);
            quiet.c_lflag |= ECHONL;
            ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
        }
    }
    ~NoEcho()
    {
        if (m_active)
            ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &m_saved);
    }

private:
    termios m_saved{};
    bool m_active = false;
};

bool readLine(QByteArray *out)
{
    out->clear();
    int c;
    bool any = false;
    while ((c = std::fgetc(stdin)) != EOF) {
        any = true;
        if (c == '\n')
            break;
        out->append(char(c));
    }
    if (out->endsWith('\r'))
        out->chop(1);
    return any;
}

} // namespace

bool readSecretLine(const QString &prompt, QByteArray *out)
{
    if (::isatty(STDIN_FILENO)) {
        std::fprintf(stderr, "%s", qPrintable(prompt));
        std::fflush(stderr);
        NoEcho quiet;
        return readLine(out);
    }
    return readLine(out);
}

bool readSecretValue(const QString &prompt, QByteArray *out)
{
    if (::isatty(STDIN_FILENO))
        return readSecretLine(prompt, out);
    out->clear();
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0)
        out->append(buffer, qsizetype(n));
    if (out->endsWith('\n'))
        out->chop(1);
    if (out->endsWith('\r'))
        out->chop(1);
    return true;
}

} // namespace airlock::ctl
