#pragma once
// The request part of an egress rule as people write it and the wire carries it: an HTTP
// method and a path pattern, or a git service and a repository pattern. What each field
// means and how it matches: broker/requestpattern.h.
#include <QString>

namespace airlock {

struct RequestRule {
    QString method; // "GET"; any when empty
    QString path;   // "/repos/myorg/*"; any when empty
    QString git;    // "fetch" | "push"; then no method or path
    QString repo;   // with git: "myorg/*"; any when empty

    bool isEmpty() const { return method.isEmpty() && path.isEmpty() && git.isEmpty() && repo.isEmpty(); }
    // "GET /repos/myorg/*", "git push myorg/*", "" when empty: for rule lists and reasons.
    QString text() const;
    bool operator==(const RequestRule &) const = default;
};

} // namespace airlock
