#pragma once
#include <QByteArray>
#include <QString>

namespace airlock::ctl {

// Reads one secret line from stdin. On a terminal it prompts on stderr with echo off
// (termios); from a pipe it reads one line without prompting. The trailing newline is
// dropped. Returns false at end of input.
bool readSecretLine(const QString &prompt, QByteArray *out);

// Reads all of stdin (a secret's value piped in), dropping one trailing newline;
// on a terminal, one line without echo.
bool readSecretValue(const QString &prompt, QByteArray *out);

} // namespace airlock::ctl
