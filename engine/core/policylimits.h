#pragma once
// The bounds of a policy file (broker/policyfile.h), known to the daemon that parses one and
// to whoever reads one from disk (core/policyfiletext.h) before handing it over.
#include <QtGlobal>

namespace airlock {

inline constexpr int kPolicyFileVersion = 1;
inline constexpr qsizetype kMaxPolicyFileBytes = 512 * 1024; // one API request line holds it
inline constexpr qsizetype kMaxPolicyRules = 4096;
inline constexpr qsizetype kMaxPolicyText = 1024; // description, why, from

} // namespace airlock
