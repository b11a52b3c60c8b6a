#pragma once
#include "core/result.h"

#include <QString>
#include <QStringList>
#include <sys/types.h>

namespace airlock {

// A program whose stdin and stdout are one end of a socket pair: `ssh HOST airlockctl proxy`
// carrying the API, or any command that bridges to an airlockd. Its stderr stays the
// caller's, so ssh's own prompts and errors reach the person. Closing ends the program:
// the socket is shut, then it gets a moment to exit before SIGTERM and SIGKILL.
class CommandChannel {
public:
    CommandChannel() = default;
    ~CommandChannel();
    CommandChannel(const CommandChannel &) = delete;
    CommandChannel &operator=(const CommandChannel &) = delete;

    Status start(const QStringList &argv);
    int fd() const { return m_fd; }
    // How the program ended ("exited with 255"), empty while it runs; reaps it if it ended.
    QString exitDescription();
    void close();

private:
    int m_fd = -1;
    pid_t m_pid = -1;
    int m_status = 0;
    bool m_reaped = false;
};

} // namespace airlock
