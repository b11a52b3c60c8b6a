#pragma once
// The person's end of a port exposed on a remote host: a listener on this machine's
// 127.0.0.1, each connection carried by its own run of the remote's command with
// `--to SANDBOX:GUESTPORT` appended (`ssh HOST airlockctl proxy --to ...`), so the bytes
// travel the same authenticated channel as the API.
#include "core/result.h"

#include <QString>
#include <QStringList>

namespace airlock::ctl {

class LoopbackForward {
public:
    LoopbackForward() = default;
    ~LoopbackForward();
    LoopbackForward(const LoopbackForward &) = delete;
    LoopbackForward &operator=(const LoopbackForward &) = delete;

    // Binds 127.0.0.1:`port`; with `port` 0, `preferred` when it is free, else any port.
    Result<int> listen(int port, int preferred);
    // Accepts and relays until SIGINT or SIGTERM; each connection on its own thread.
    void run(const QStringList &command);

private:
    int m_fd = -1;
};

} // namespace airlock::ctl
