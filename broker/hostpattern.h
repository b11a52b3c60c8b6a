#pragma once
// What a rule matches: an exact host, an anchored `*.domain`, an IP literal, a CIDR block,
// or `*` (everything). Hosts compare case-insensitively with a trailing dot removed.
//
//   example.com       matches example.com only (not www.example.com)
//   *.example.com     matches a.example.com and a.b.example.com; NEVER example.com itself
//                     (add it as its own rule) and never evilexample.com: the match is
//                     anchored at a label boundary
//   192.0.2.7, ::1    matches that address (a bare IP target, or a flow's resolved IP)
//   10.0.0.0/8        matches addresses in the block (v4 or v6; IPv4-mapped v6 is unmapped)
//   *                 matches any host and any address (the least specific pattern)
//
// Host patterns never match a target that has only an address, and address patterns
// never match a name (no reverse lookups). Non-ASCII (IDN) patterns are refused: write
// the xn-- form, which is what the guest's DNS query carries.
#include "core/hostname.h"
#include "core/result.h"

#include <QHostAddress>
#include <QString>
#include <utility>

namespace airlock {

class HostPattern {
public:
    enum class Kind { Any, Exact, Wildcard, Address, Cidr };

    // Validates and normalises `text`; the error says what was wrong and how to write it.
    static Result<HostPattern> parse(const QString &text);

    Kind kind() const { return m_kind; }
    bool isAddressPattern() const { return m_kind == Kind::Address || m_kind == Kind::Cidr; }
    // Canonical text: lower-case host, no trailing dot, CIDR with its network address.
    QString text() const { return m_text; }

    // `host` already normalised (normalizeHost); `ip` may be null.
    bool matches(const QString &host, const QHostAddress &ip) const;
    bool matchesHost(const QString &host) const;
    bool matchesAddress(const QHostAddress &ip) const;

    // Higher = more specific, on one scale for all kinds:
    //   exact host, IP literal  : 1000
    //   CIDR /n                 : 500 + n (IPv4 prefix counted as n+96, so /32 = 628)
    //   *.domain                : 100 + labels in domain (*.a.b.c = 103 > *.b.c = 102)
    //   *                       : 0
    int specificity() const;

private:
    Kind m_kind = Kind::Any;
    QString m_text;
    QString m_domain;                       // Exact: the host; Wildcard: the suffix without "*."
    std::pair<QHostAddress, int> m_subnet;  // Address (full length) and Cidr
};

} // namespace airlock
