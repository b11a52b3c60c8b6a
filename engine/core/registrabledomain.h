#pragma once
// The patterns a person means by "allow this host's domain", following the Public Suffix List
// (libpsl): www.bbc.co.uk gives *.bbc.co.uk, never *.co.uk, and a.b.github.io gives
// *.b.github.io (github.io is a public suffix: its sites belong to different people). Lives in
// core because both the daemon (egress.decide --match domain) and the GUI's decision bar show
// or build it, and the GUI does not link the broker.
#include <QStringList>

namespace airlock {

// The host name normalised (lower case, no trailing dot), then:
//   below a registrable domain (www.bbc.co.uk)   -> {"*.bbc.co.uk"}
//   a registrable domain itself (example.com)    -> {"example.com", "*.example.com"}: the
//                                                   name and everything under it
//   a public suffix itself (co.uk, github.io)    -> {"github.io"}: that host only, never a
//                                                   wildcard over names of other owners
//   an IP literal, a single label, ""            -> {} (there is no domain to allow)
QStringList domainRulePatterns(const QString &host);

} // namespace airlock
