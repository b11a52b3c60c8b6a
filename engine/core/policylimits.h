#pragma once
// The bounds of a policy file (broker/policyfile.h), known to the daemon that parses one and
// to the clients that read one from disk (app/workspace/policyfiles.h) before sending it.
#include <QtGlobal>

namespace airlock {

inline constexpr int kPolicyFileVersion = 1;
inline constexpr qsizetype kMaxPolicyFileBytes = 512 * 1024; // one API request line holds it
inline constexpr qsizetype kMaxPolicyRules = 4096;
inline constexpr qsizetype kMaxPolicyText = 1024; // description, why, from

} // namespace airlock
