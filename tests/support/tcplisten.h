#pragma once
#include <QString>

// A listening TCP socket on ipv4:port (SO_REUSEADDR, close-on-exec) in the calling thread's
// network namespace; -1 when the address cannot be bound.
int listenTcp(const QString &ipv4, quint16 port);
