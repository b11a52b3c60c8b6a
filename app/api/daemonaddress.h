#pragma once
#include <QString>
#include <QStringList>

namespace airlock {

// Where a client reaches airlockd: this machine's socket, or the command of a remote host
// whose stdin/stdout carry the protocol (`ssh HOST airlockctl proxy`). The GUI hands its
// connection's address to the workers that open a second connection (workspace copies).
struct DaemonAddress {
    QString socketPath;
    QStringList command; // set for a remote host; socketPath is then unused
    QString name;        // the remote host's name, for messages

    bool isRemote() const { return !command.isEmpty(); }
};

} // namespace airlock
