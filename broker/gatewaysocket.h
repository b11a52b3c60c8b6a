#pragma once
// The sockets the broker listens with on a sandbox's gateway address. Only these may receive
// what the nftables table redirects (NftRuleset accepts a redirected packet only for a socket
// with IP_TRANSPARENT), and nobody may bind beside them.
#include <QString>
#include <QtGlobal>

namespace airlock {

// A non-blocking, bound (and for SOCK_STREAM listening) socket on address:port, or -1 with
// *why saying what failed. It sets IP_TRANSPARENT, which needs CAP_NET_ADMIN or CAP_NET_RAW:
// the mark by which the table tells the broker's sockets from anyone else's. UDP sockets
// never set SO_REUSEADDR, so no other socket can bind the same port beside them and take
// the guests' datagrams; TCP keeps it (it only lets a restart bind over TIME_WAIT, never
// beside a listener).
int gatewaySocket(int type, quint32 address, quint16 port, int backlog, QString *why);

} // namespace airlock
