#pragma once
// Reading and writing policy files on the client's side: the daemon parses the text
// (broker/policyfile.h), airlockctl and the desktop app only move it, bounded, between the disk and the socket.
#include "core/policyfiletext.h"
#include "core/result.h"

#include <QByteArray>
#include <QString>

namespace airlock {

// Replaces `path` whole or leaves it as it was (a temporary file renamed into place).
Status writeTextFile(const QString &path, const QByteArray &bytes);

} // namespace airlock
