#pragma once
// The request part of a rule (core/requestrule.h), compiled: an HTTP method, a path pattern,
// or a git service with a repository pattern, on the hosts the rule's host pattern names. Such a rule decides single
// requests on a connection the broker reads (policy.h: Policy::decideRequest), never a
// connection.
//
//   method  an HTTP method ("GET"), any when empty
//   path    "/repos/myorg/*": '*' stands for any run of characters, '/' included; the
//           query is not part of it. Written as requestfacts.h normalizes a path.
//   git     "fetch" (clone, fetch, pull) or "push"; a git rule has no method or path
//   repo    with git: "myorg/*", any repository when empty
//
// Allow rules match requestfacts.h's `path` and `git`, exactly and case by case, and never an
// ambiguous path. Deny rules match any reading and ignore case, so a spelling a lax server
// would take for the denied path (or repository) is denied too.
#include "core/requestrule.h"
#include "core/result.h"
#include "requestfacts.h"

#include <QByteArray>
#include <QString>

namespace airlock {

class RequestPattern {
public:
    static constexpr int kMaxPath = 512;
    static constexpr int kMaxRepo = 256;
    static constexpr int kMaxMethod = 20;

    // Validates and normalizes (method upper-cased, path escapes as requestfacts.h writes them,
    // repo without ".git"); the error says what was wrong and how to write it.
    static Result<RequestPattern> parse(const RequestRule &rule);

    const RequestRule &rule() const { return m_rule; }
    bool matches(const RequestFacts &facts, bool allow) const;
    // Ranks rules that match the same request: a git rule over a method or path rule, then
    // the longer literal part, then a rule that also names the method. Larger wins.
    int specificity() const;

private:
    RequestRule m_rule;
    GitService m_git = GitService::None;
    QByteArray m_method;
    QByteArray m_path;
    QByteArray m_repo;
};

// Does `pattern` ('*': any run of bytes) match all of `text`? Linear in practice, bounded by
// |pattern| x |text| at worst.
bool globMatch(QByteArrayView pattern, QByteArrayView text, Qt::CaseSensitivity cs);

} // namespace airlock
