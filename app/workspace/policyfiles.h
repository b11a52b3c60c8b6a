#pragma once
// Reading and writing policy files on the client's side: the daemon parses the text
// (broker/policyfile.h), airlockctl and the desktop app only move it, bounded, between the disk and the socket.
#include "core/result.h"

#include <QByteArray>
#include <QString>

namespace airlock {

struct PolicyFileText {
    QString text;
    QString name; // its absolute path, kept in each imported rule's origin
};

// A regular file of at most 512 KiB of UTF-8; the error says which of these it is not.
Result<PolicyFileText> readPolicyFile(const QString &path);
// Replaces `path` whole or leaves it as it was (a temporary file renamed into place).
Status writeTextFile(const QString &path, const QByteArray &bytes);

} // namespace airlock
