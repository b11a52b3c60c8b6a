#pragma once
#include <QHostAddress>
#include <QProcess>

// What the helpers that run a real server for a test (sshd, haproxy) share.

// Terminates `process` if it runs and waits for it; kills it when it does not end in 5 s.
void stopChild(QProcess &process);

// Waits up to `ms` until `address`:`port` accepts a connection: true then; false when
// `process` ended first or the time ran out (the caller tells which from process.state()).
bool waitUntilListening(const QProcess &process, const QHostAddress &address, quint16 port, int ms);
