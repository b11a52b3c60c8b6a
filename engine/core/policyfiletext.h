#pragma once
// Reading a policy file from disk, bounded, for whoever hands it to the parser
// (broker/policyfile.h): airlockctl and the desktop app before they send one, airlockd for
// the file a template names.
#include "core/policylimits.h"
#include "core/result.h"

#include <QString>

namespace airlock {

struct PolicyFileText {
    QString text;
    QString name; // its absolute path, kept in each imported rule's origin
};

// A regular file of at most 512 KiB of UTF-8; the error says which of these it is not.
Result<PolicyFileText> readPolicyFile(const QString &path);
// The form a file's name asks for: YAML for *.yaml and *.yml, JSON otherwise.
PolicyFileFormat policyFileFormatOf(const QString &path);

} // namespace airlock
