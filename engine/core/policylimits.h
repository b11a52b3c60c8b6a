#pragma once
// The bounds and forms of a policy file (broker/policyfile.h), known to the daemon that
// parses or writes one and to whoever reads one from disk (core/policyfiletext.h).
#include <QtGlobal>

namespace airlock {

inline constexpr int kPolicyFileVersion = 1;
inline constexpr qsizetype kMaxPolicyFileBytes = 512 * 1024; // one API request line holds it
inline constexpr qsizetype kMaxPolicyRules = 4096;
inline constexpr qsizetype kMaxPolicyText = 1024; // description, why, from

// The same schema either way; the parser tells them apart by the first character.
enum class PolicyFileFormat : quint8 { Json, Yaml };

} // namespace airlock
