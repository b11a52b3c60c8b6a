#pragma once
// What one HTTP request asks for, as request rules (requestpattern.h) read it: its method,
// its path in every form a server may read it, and for git's smart HTTP the service and the
// repository. Made from guest bytes (the request line): total and bounded, any method and
// target give facts, never an error, and the work is linear in the target (at most
// http::kMaxLine bytes).
//
// Forms of the path (the query is never part of it):
//   path        percent-encoded unreserved characters (A-Z a-z 0-9 - . _ ~) decoded, the hex
//               of every other escape upper-cased. Allow rules match this form only.
//   readings    what a lax server could make of it: `path`, the fully decoded path, and each
//               with its dot segments removed (RFC 3986 5.2.4), distinct. Deny rules match any.
//   ambiguous   `path` still has a dot segment, an empty segment ("//"), a backslash, or an
//               escaped NUL, slash or backslash: servers differ on what it names, so no allow
//               rule with a path or a git part matches it (it is asked, or a host rule decides).
// Git (smart HTTP, as git-http-backend and the forges serve it):
//   GET  REPO/info/refs?service=git-upload-pack | POST REPO/git-upload-pack     fetch (clone)
//   GET  REPO/info/refs?service=git-receive-pack | POST REPO/git-receive-pack   push
// REPO without its leading "/" and a trailing ".git". `git` is read from `path` with the
// method and exactly one `service` parameter; `gitReadings` from every reading, whatever the
// method or how often `service` appears, so a deny rule sees a push however it is spelled.
#include <QByteArray>
#include <QByteArrayView>
#include <QList>

namespace airlock {

enum class GitService { None, Fetch, Push };

struct GitRequest {
    GitService service = GitService::None;
    QByteArray repo;  // "myorg/tool"; empty when service is None
    bool operator==(const GitRequest &) const = default;
};

struct RequestFacts {
    QByteArray method;             // as sent (methods are case-sensitive tokens)
    QByteArray path;               // the normalized form
    QList<QByteArray> readings;    // path first
    bool ambiguous = false;
    GitRequest git;                // from `path`; None when ambiguous
    QList<GitRequest> gitReadings; // distinct, services other than None only
};

RequestFacts requestFacts(QByteArrayView method, QByteArrayView target);

// "fetch", "push", "" (None), and back; nullopt-like None for an unknown word.
QByteArray gitServiceName(GitService service);
GitService gitServiceFromName(QByteArrayView name);

} // namespace airlock
