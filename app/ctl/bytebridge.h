#pragma once
// Bytes copied both ways between one side (`in` read, `out` written: stdin/stdout, or one
// socket twice) and a socket, for `airlockctl proxy` and the loopback forwarder of an
// exposed port on a remote host.
#include <QString>

namespace airlock::ctl {

// Runs until `sock` ends (its far side is done) or `out` cannot be written; the end of
// `in` is passed on as a half-close of `sock`, so the far side can still answer. Empty
// when it ended normally, else what failed.
QString bridge(int in, int out, int sock);

// Connects to 127.0.0.1:`port`; -1 (and errno) when it cannot.
int connectLoopback(int port);

} // namespace airlock::ctl
